#include "tests/integration/support/test_bundles.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "costmodels/artifacts/model_bundle.h"
#include "tests/unit/costmodels/artifacts/bundle_test_util.h"

namespace shardplan::testing_bundles {

absl::StatusOr<NeuralCostModel> TinyNeuralModel(const std::string& name,
                                                const std::string& version, unsigned seed) {
  // The artifacts tests' model: reference compute sizes, no comm models (CommCosts::kZero).
  return testing_bundle::RandomModel(name, version, /*device_counts=*/{}, seed);
}

absl::Status WriteTinyBundle(const std::string& models_root, const std::string& name,
                             const std::string& version, unsigned seed) {
  absl::StatusOr<NeuralCostModel> model = TinyNeuralModel(name, version, seed);
  if (!model.ok()) return model.status();
  BundleInfo info;
  info.name = name;
  info.version = version;
  info.description = "tiny test bundle";
  info.hardware_profile = "test-profile";
  info.backend = "sim";
  info.seed = seed;
  SubModelTraining compute;
  compute.data_file = "compute.jsonl";
  compute.data_sha256 = std::string(64, 'a');
  compute.samples = 1234;
  compute.epochs = 3;
  compute.train_mse = 0.5;
  compute.valid_mse = 0.6;
  compute.test_mse = 0.25;
  info.training["compute"] = compute;
  return WriteModelBundle(models_root, info, *model);
}

absl::Status OverwriteBundleFile(const std::string& models_root, const std::string& name,
                                 const std::string& version, const std::string& file,
                                 const std::string& bytes) {
  const std::string path =
      absl::StrCat(ModelBundleDirectory(models_root, name, version), "/", file);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

std::string FreshTempDir(const std::string& label) {
  static std::atomic<int> counter{0};
  const char* base = std::getenv("TEST_TMPDIR");
  const std::filesystem::path dir =
      std::filesystem::path(base != nullptr ? base : "/tmp") /
      absl::StrCat("shardplan-", label, "-", getpid(), "-", counter++);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace shardplan::testing_bundles
