#ifndef SHARDPLAN_COSTMODELS_ARTIFACTS_BUNDLE_MANIFEST_H_
#define SHARDPLAN_COSTMODELS_ARTIFACTS_BUNDLE_MANIFEST_H_

// Internal to costmodels/artifacts: the bundle manifest (manifest.json) and the names in it,
// shared by the bundle writer and reader. The public API is model_bundle.h.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "costmodels/artifacts/model_bundle.h"
#include "costmodels/neural/neural_cost_model.h"
#include "nlohmann/json.hpp"

namespace shardplan::bundle_internal {

using json = nlohmann::json;

inline constexpr char kManifestFile[] = "manifest.json";
inline constexpr char kComputeWeightsFile[] = "compute.weights";
// The collective model (format 2): its sub-model name (weights "collectives.weights") and what
// its output is.
inline constexpr char kCollectivesSubModel[] = "collectives";
inline constexpr char kCollectivesOutput[] = "log_ms";

// ---- Names ----------------------------------------------------------------------------------

// "comm_<n>_forward" or "comm_<n>_backward".
std::string CommSubModelName(int n, NeuralCommModel::Direction direction);

// "comm_any_forward" or "comm_any_backward": the device-set comm models (format 2).
std::string DeviceSetCommSubModelName(NeuralCommModel::Direction direction);

// The comm model's inputs in order: the forward model sees dim sums then waits.
std::vector<std::string> CommInputNames(int n, NeuralCommModel::Direction direction);

// TableFeatureNames(), the compute model's input order.
std::vector<std::string> FeatureNames();

// INVALID_ARGUMENT naming which unless both are valid path components: [A-Za-z0-9._-]+, at most
// 128 characters, not starting with '.'.
absl::Status CheckNameAndVersion(const std::string& name, const std::string& version);

// The last two components of a bundle directory: what its manifest's name and version must be.
std::pair<std::string, std::string> NameAndVersionOf(const std::string& directory);

// "2026-11-26T08:00:00Z": a bundle's creation time when the writer was given none.
std::string NowRfc3339();

// INVALID_ARGUMENT unless `info` names a valid name and version (they become path components),
// the model's id is name@version, and training is given only for sub-models the model has.
absl::Status CheckBundleInfo(const BundleInfo& info, const NeuralCostModel& model);

// ---- Manifest writing -----------------------------------------------------------------------

// The weights files of `model` by file name, and the manifest that lists them.
struct BundleFiles {
  std::vector<std::pair<std::string, std::string>> weights;  // file name, bytes
  std::string manifest;
};

// Serializes the weights of `model` and the manifest describing them with `info`; no I/O.
absl::StatusOr<BundleFiles> EncodeBundle(const BundleInfo& info, const NeuralCostModel& model);

// Writes `files` (weights first, the manifest last) into a hidden temporary directory beside
// <models_root>/<name>/<version>, fsyncs them and renames it into place: a reader scanning the
// root sees no bundle or a complete one. ALREADY_EXISTS when the version exists (versions are
// immutable); INTERNAL naming the path and step for an I/O failure, leaving no partial bundle.
absl::Status WriteBundleDirectory(const std::string& models_root, const std::string& name,
                                  const std::string& version, const BundleFiles& files);

// ---- Manifest reading -----------------------------------------------------------------------

// Typed access to the manifest; every error names the file and the field.
class ManifestReader {
 public:
  explicit ManifestReader(std::string file) : file_(std::move(file)) {}

  absl::Status Error(const std::string& what) const {
    return absl::FailedPreconditionError(absl::StrCat(file_, ": ", what));
  }

  absl::StatusOr<const json*> Field(const json& object, const std::string& key,
                                    const std::string& where) const {
    if (!object.is_object()) return Error(absl::StrCat(where, " is not an object"));
    auto it = object.find(key);
    if (it == object.end()) return Error(absl::StrCat("field '", Path(where, key), "' is missing"));
    return &*it;
  }

  absl::StatusOr<std::string> String(const json& object, const std::string& key,
                                     const std::string& where = "") const {
    SHARDPLAN_ASSIGN_OR_RETURN(const json* value, Field(object, key, where));
    if (!value->is_string()) return TypeError(where, key, "a string");
    return value->get<std::string>();
  }

  absl::StatusOr<int64_t> Int(const json& object, const std::string& key,
                              const std::string& where = "") const {
    SHARDPLAN_ASSIGN_OR_RETURN(const json* value, Field(object, key, where));
    if (!value->is_number_integer()) return TypeError(where, key, "an integer");
    if (value->is_number_unsigned() &&
        value->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return TypeError(where, key, "an integer in range");
    }
    return value->get<int64_t>();
  }

  absl::StatusOr<uint64_t> Uint(const json& object, const std::string& key,
                                const std::string& where = "") const {
    SHARDPLAN_ASSIGN_OR_RETURN(const json* value, Field(object, key, where));
    if (value->is_number_unsigned()) return value->get<uint64_t>();
    if (value->is_number_integer() && value->get<int64_t>() >= 0) {
      return static_cast<uint64_t>(value->get<int64_t>());
    }
    return TypeError(where, key, "a non-negative integer");
  }

  // null (how JSON writers spell NaN) reads as NaN.
  absl::StatusOr<double> Double(const json& object, const std::string& key,
                                const std::string& where = "") const {
    SHARDPLAN_ASSIGN_OR_RETURN(const json* value, Field(object, key, where));
    if (value->is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!value->is_number()) return TypeError(where, key, "a number");
    return value->get<double>();
  }

  absl::StatusOr<std::vector<double>> Doubles(const json& object, const std::string& key,
                                              const std::string& where) const {
    SHARDPLAN_ASSIGN_OR_RETURN(const json* value, Field(object, key, where));
    if (!value->is_array()) return TypeError(where, key, "an array of numbers");
    std::vector<double> out;
    for (const json& v : *value) {
      if (!v.is_number()) return TypeError(where, key, "an array of numbers");
      out.push_back(v.get<double>());
    }
    return out;
  }

  absl::StatusOr<std::vector<int>> Ints(const json& object, const std::string& key,
                                        const std::string& where) const {
    SHARDPLAN_ASSIGN_OR_RETURN(const json* value, Field(object, key, where));
    if (!value->is_array()) return TypeError(where, key, "an array of integers");
    std::vector<int> out;
    for (const json& v : *value) {
      if (!v.is_number_integer() || v.get<int64_t>() <= 0 || v.get<int64_t>() > (1 << 20)) {
        return TypeError(where, key, "an array of positive integers");
      }
      out.push_back(v.get<int>());
    }
    return out;
  }

  absl::StatusOr<std::vector<std::string>> Strings(const json& object, const std::string& key,
                                                   const std::string& where) const {
    SHARDPLAN_ASSIGN_OR_RETURN(const json* value, Field(object, key, where));
    if (!value->is_array()) return TypeError(where, key, "an array of strings");
    std::vector<std::string> out;
    for (const json& v : *value) {
      if (!v.is_string()) return TypeError(where, key, "an array of strings");
      out.push_back(v.get<std::string>());
    }
    return out;
  }

  static std::string Path(const std::string& where, const std::string& key) {
    return where.empty() ? key : absl::StrCat(where, ".", key);
  }

 private:
  absl::Status TypeError(const std::string& where, const std::string& key,
                         const std::string& expected) const {
    return Error(absl::StrCat("field '", Path(where, key), "' must be ", expected));
  }

  std::string file_;
};

// A bundle's manifest.json, parsed: NOT_FOUND "<path>: no manifest" when there is none,
// FAILED_PRECONDITION when it is out of bounds (ReadBundleFile), not JSON or not an object.
struct ManifestFile {
  std::string path;
  json manifest;       // an object
  std::string sha256;  // of the file's bytes: what identifies this bundle content
};
absl::StatusOr<ManifestFile> ReadManifestFile(const std::string& directory);

absl::StatusOr<FeatureNormalizer> ReadNormalizer(const ManifestReader& reader, const json& entry,
                                                 const std::string& where);

// The compute entry's optional "training_range" ({"min": [...], "max": [...]}, TableFeatures
// order): nullopt when absent (bundles written before it), an error naming the field when
// malformed.
absl::StatusOr<std::optional<TableFeatureRange>> ReadTrainingRange(const ManifestReader& reader,
                                                                   const json& compute_entry,
                                                                   const std::string& where);

// The compute entry's optional "access_shapes" (docs/model-bundles.md): the metric ("lookup_l1"),
// the threshold, the cover radius and the centres, each an array of 17 fractions in bin order.
inline constexpr char kAccessShapeMetric[] = "lookup_l1";
json AccessShapesJson(const AccessShapeSummary& shapes);
// nullopt when absent (bundles written before it); an error naming the field when malformed or
// refused by CheckAccessShapeSummary.
absl::StatusOr<std::optional<AccessShapeSummary>> ReadAccessShapes(const ManifestReader& reader,
                                                                   const json& compute_entry,
                                                                   const std::string& where);

// Training is optional (an imported checkpoint has none).
absl::Status ReadTraining(const ManifestReader& reader, const json& entry, const std::string& where,
                          const std::string& sub_model, BundleInfo& info);

}  // namespace shardplan::bundle_internal

#endif  // SHARDPLAN_COSTMODELS_ARTIFACTS_BUNDLE_MANIFEST_H_
