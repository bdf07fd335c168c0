#include "costmodels/artifacts/model_bundle.h"

#include <filesystem>
#include <set>
#include <string>

namespace shardplan {

std::string ModelBundleDirectory(const std::string& models_root, const std::string& name,
                                 const std::string& version) {
  return (std::filesystem::path(models_root) / name / version).string();
}

ModelManifest ManifestOfBundle(const BundleInfo& info, const NeuralCostModel& model) {
  ModelManifest manifest;
  manifest.name = info.name;
  manifest.version = info.version;
  manifest.kind = "neural";
  manifest.hardware_profile = info.hardware_profile;
  manifest.backend = info.backend;
  manifest.created = info.created;
  manifest.description = info.description;
  // The forward and backward models of one device count share a dataset: count it once.
  std::set<std::string> datasets;
  for (const auto& [sub_model, training] : info.training) {
    const std::string key =
        training.data_sha256.empty() ? "sub-model:" + sub_model : training.data_sha256;
    if (datasets.insert(key).second) manifest.data_size += training.samples;
    manifest.test_mse[sub_model] = training.test_mse;
  }
  manifest.costs_interconnect = model.comm_costs() == NeuralCostModel::CommCosts::kNeural;
  if (!model.device_set_comm().has_value()) {
    for (const auto& [n, models] : model.comm()) manifest.device_counts.push_back(n);
  }
  return manifest;
}

}  // namespace shardplan
