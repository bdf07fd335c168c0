// shardplan-bundle-check <bundle directory>: reads and verifies a model bundle the way the
// server loads it; prints its summary (exit 0) or the reason it is refused (exit 1).
#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "costmodels/artifacts/bundle_file.h"
#include "costmodels/artifacts/model_bundle.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: shardplan-bundle-check <models root>/<name>/<version>\n");
    return 2;
  }
  const auto bundle = shardplan::ReadModelBundle(argv[1]);
  if (!bundle.ok()) {
    // The code and message, and the reason the server would count it under (its metric label).
    std::fprintf(stderr, "refused: %s: %s (reason: %s)\n",
                 absl::StatusCodeToString(bundle.status().code()).c_str(),
                 std::string(bundle.status().message()).c_str(),
                 shardplan::ModelLoadFailureReason(bundle.status()).c_str());
    return 1;
  }
  const shardplan::ModelManifest& m = bundle->manifest;
  std::string mse;
  for (const auto& [sub_model, value] : m.test_mse)
    absl::StrAppend(&mse, " ", sub_model, "=", value);
  std::printf("ok %s\n", m.id().c_str());
  std::printf("  hardware_profile: %s\n  backend: %s\n  created: %s\n", m.hardware_profile.c_str(),
              m.backend.c_str(), m.created.c_str());
  const char* any = bundle->model->comm_costs() == shardplan::NeuralCostModel::CommCosts::kZero
                        ? "any (zero comm costs)"
                        : "any (device-set comm models)";
  std::printf("  device_counts: %s\n",
              m.device_counts.empty() ? any : absl::StrJoin(m.device_counts, ",").c_str());
  std::printf("  data_size: %lld\n  test_mse:%s\n  manifest_sha256: %s\n",
              static_cast<long long>(m.data_size), mse.empty() ? " (none)" : mse.c_str(),
              bundle->manifest_sha256.c_str());
  return 0;
}
