#ifndef SHARDPLAN_COSTMODELS_ARTIFACTS_MODEL_BUNDLE_H_
#define SHARDPLAN_COSTMODELS_ARTIFACTS_MODEL_BUNDLE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "costmodels/model_registry.h"
#include "costmodels/neural/neural_cost_model.h"

namespace shardplan {

// A neural model bundle on disk (docs/design.md section 4; the format is docs/model-bundles.md):
//
//   <models root>/<name>/<version>/
//     manifest.json            format version, identity, provenance, architecture,
//                              normalisation, training summary, SHA-256 of every weights file
//     compute.weights          the compute model's tensors
//     comm_<N>_forward.weights the comm models of each device count N
//     comm_<N>_backward.weights
//
// Versions are immutable: a bundle is written once, into a hidden temporary directory
// (".<version>.tmp-<pid>") whose files are fsynced, then renamed to <version> in one step, so a
// reader scanning the root sees either no bundle or a complete one.

// The manifest format versions this build reads: 1 (the compute model and fixed-N comm models)
// and 2 (adds `device_set_comm`, comm models for any device count, and
// `compute.feature_transform`: docs/model-bundles.md). It writes 2 for a bundle with device-set
// comm models or a non-raw feature transform, and 1 otherwise. A bundle of another format is
// refused as incompatible.
inline constexpr int kModelBundleFormatVersion = 2;
inline constexpr int kOldestModelBundleFormatVersion = 1;

// How one sub-model ("compute", "comm_4_forward", ...) was trained, for the manifest.
struct SubModelTraining {
  std::string data_file;    // the dataset, as given to the trainer
  std::string data_sha256;  // hex SHA-256 of the dataset file
  int64_t samples = 0;      // records in the dataset (before the split)
  int64_t epochs = 0;       // epochs run (early stopping included)
  double train_mse = 0.0;   // ms^2, with the best-validation weights
  double valid_mse = 0.0;
  double test_mse = 0.0;
  // Device-set comm models: the test MSE of each trained layout ("16x8": 16 devices in hosts of
  // 8), as MSEs grow with the device count; `model check` compares a layout's fresh MSE with its
  // own.
  std::map<std::string, double> test_mse_by_layout;
  // The training loss when not the plain squared error, e.g. "relative (floor 0.1 ms)"
  // (docs/training.md); the MSEs above are plain squared errors either way.
  std::string loss;
};

// Everything in a manifest that is not weights.
struct BundleInfo {
  std::string name;              // [A-Za-z0-9._-]+, not starting with '.'
  std::string version;           // same alphabet; compared with VersionLess
  std::string description;
  std::string hardware_profile;  // e.g. "sim-rtx2080ti", "cpu-amd-epyc"
  std::string backend;           // "sim", "cpu", "gpu", or "torch-import"
  std::string created;           // RFC 3339 UTC; WriteModelBundle fills it when empty
  uint64_t seed = 0;             // the trainer's seed
  // Keyed by sub-model name: "compute", "comm_<N>_forward", "comm_<N>_backward".
  std::map<std::string, SubModelTraining> training;
};

// A bundle read back and ready to serve.
struct LoadedBundle {
  BundleInfo info;
  ModelManifest manifest;  // what ListModels shows (kind "neural")
  std::shared_ptr<const NeuralCostModel> model;
  std::string directory;
  std::string manifest_sha256;  // identifies this exact bundle content (reload detection)
};

// The directory a bundle of `name`@`version` lives in under `models_root`.
std::string ModelBundleDirectory(const std::string& models_root, const std::string& name,
                                 const std::string& version);

// Writes `model` with `info` to ModelBundleDirectory(models_root, info.name, info.version)
// atomically. `info.name`/`info.version` must equal the model's. INVALID_ARGUMENT for a bad
// name or version (naming which); ALREADY_EXISTS when that version exists (versions are
// immutable); INTERNAL naming the path and step for an I/O failure, leaving no partial bundle.
absl::Status WriteModelBundle(const std::string& models_root, const BundleInfo& info,
                              const NeuralCostModel& model);

// Reads and verifies the bundle in `directory`: the manifest parses, its format version is
// within kOldestModelBundleFormatVersion..kModelBundleFormatVersion, name and version match the
// last two path components, the feature order is TableFeatureNames(), every weights file exists
// with the manifest's SHA-256 and the shapes of the declared architecture. Errors are
// FAILED_PRECONDITION (corrupt or incompatible) or NOT_FOUND (no manifest), and name the file and
// the reason.
absl::StatusOr<LoadedBundle> ReadModelBundle(const std::string& directory);

// The ListModels view of a bundle: kind "neural", data_size the sum of the distinct datasets'
// samples, test_mse per sub-model, device_counts the comm models' (empty, meaning any, with zero
// comm costs or device-set comm models).
ModelManifest ManifestOfBundle(const BundleInfo& info, const NeuralCostModel& model);

}  // namespace shardplan

#endif  // SHARDPLAN_COSTMODELS_ARTIFACTS_MODEL_BUNDLE_H_
