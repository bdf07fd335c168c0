// WritePolicyBundle / ReadPolicyBundle (policy_bundle.h): a manifest and one weights file,
// written and verified with the model bundles' machinery (bundle_manifest.h, bundle_file.h,
// weights_file.h).
#include "costmodels/artifacts/policy_bundle.h"

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/sha256.h"
#include "base/status_macros.h"
#include "costmodels/artifacts/bundle_file.h"
#include "costmodels/artifacts/bundle_manifest.h"
#include "costmodels/artifacts/weights_file.h"

namespace shardplan {
namespace {

using bundle_internal::json;
using bundle_internal::ManifestReader;

inline constexpr char kPolicyKind[] = "policy";
inline constexpr char kPolicyWeightsFile[] = "policy.weights";
// A manifest lists every tensor's shape and every constant; these bounds keep one that declares
// absurd counts from making the loader allocate before the file sizes refuse it. The shipped
// policies have tens of tensors and constants and at most a few hundred curve points.
inline constexpr size_t kMaxTensors = 4096;
inline constexpr size_t kMaxTensorRank = 8;
inline constexpr size_t kMaxCurvePoints = 100000;

uint64_t TensorElements(const std::vector<uint32_t>& shape) {
  uint64_t n = 1;
  for (uint32_t d : shape) n *= d;
  return n;
}

absl::Status CheckPolicyToWrite(const Policy& policy, const PolicyBundleInfo& info) {
  SHARDPLAN_RETURN_IF_ERROR(bundle_internal::CheckNameAndVersion(policy.name, policy.version));
  if (policy.algorithm.empty()) return absl::InvalidArgumentError("policy algorithm is empty");
  if (policy.architecture.empty()) {
    return absl::InvalidArgumentError("policy architecture is empty");
  }
  if (policy.tensors.empty()) return absl::InvalidArgumentError("policy has no tensors");
  for (const auto& [name, tensor] : policy.tensors) {
    if (name.empty()) return absl::InvalidArgumentError("policy tensor with an empty name");
    if (tensor.shape.empty() || tensor.shape.size() > kMaxTensorRank) {
      return absl::InvalidArgumentError(absl::StrCat("policy tensor '", name, "' has rank ",
                                                     tensor.shape.size(), "; expected 1 to ",
                                                     kMaxTensorRank));
    }
    if (TensorElements(tensor.shape) != tensor.data.size()) {
      return absl::InvalidArgumentError(absl::StrCat("policy tensor '", name, "' has ",
                                                     tensor.data.size(), " values for shape [",
                                                     absl::StrJoin(tensor.shape, ","), "]"));
    }
    for (float v : tensor.data) {
      if (!std::isfinite(v)) {
        return absl::InvalidArgumentError(
            absl::StrCat("policy tensor '", name, "' holds a non-finite value"));
      }
    }
  }
  for (const auto& [name, value] : policy.constants) {
    if (name.empty()) return absl::InvalidArgumentError("policy constant with an empty name");
    if (!std::isfinite(value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("policy constant '", name, "' is not finite: ", value));
    }
  }
  for (const PolicyCurvePoint& point : info.training.curve) {
    if (!std::isfinite(point.value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("training curve point at ", point.episodes, " episodes is not finite"));
    }
  }
  return absl::OkStatus();
}

json PolicyTrainingJson(const PolicyTraining& t) {
  json curve = json::array();
  for (const PolicyCurvePoint& point : t.curve) curve.push_back({point.episodes, point.value});
  return {{"data", t.data},
          {"data_sha256", t.data_sha256},
          {"tasks", t.tasks},
          {"episodes", t.episodes},
          {"updates", t.updates},
          {"wall_seconds", t.wall_seconds},
          {"curve_metric", t.curve_metric},
          {"curve", std::move(curve)}};
}

// The weights bytes and the manifest describing them; no I/O.
absl::StatusOr<bundle_internal::BundleFiles> EncodePolicy(const PolicyBundleInfo& info,
                                                          const Policy& policy) {
  std::vector<WeightsTensor> tensors;
  json shapes = json::object();
  for (const auto& [name, tensor] : policy.tensors) {  // sorted by name: a stable file
    tensors.push_back({name, tensor.shape, tensor.data});
    shapes[name] = tensor.shape;
  }
  SHARDPLAN_ASSIGN_OR_RETURN(std::string weights, SerializeWeights(tensors));
  json constants = json::object();
  for (const auto& [name, value] : policy.constants) constants[name] = value;
  json hyperparameters = json::object();
  for (const auto& [name, value] : info.hyperparameters) hyperparameters[name] = value;
  const json manifest = {{"format_version", kPolicyBundleFormatVersion},
                         {"kind", kPolicyKind},
                         {"name", policy.name},
                         {"version", policy.version},
                         {"algorithm", policy.algorithm},
                         {"architecture", policy.architecture},
                         {"hardware_profile", policy.hardware_profile},
                         {"description", info.description},
                         {"created", info.created},
                         {"seed", info.seed},
                         {"constants", std::move(constants)},
                         {"hyperparameters", std::move(hyperparameters)},
                         {"training", PolicyTrainingJson(info.training)},
                         {"tensors", std::move(shapes)},
                         {"weights", kPolicyWeightsFile},
                         {"sha256", Sha256Hex(weights)}};
  bundle_internal::BundleFiles files;
  files.weights.emplace_back(kPolicyWeightsFile, std::move(weights));
  files.manifest = manifest.dump(2) + "\n";
  return files;
}

// The manifest's "tensors": name -> shape, within the bounds above.
absl::StatusOr<std::map<std::string, std::vector<uint32_t>>> ReadShapes(
    const ManifestReader& reader, const json& manifest) {
  SHARDPLAN_ASSIGN_OR_RETURN(const json* shapes, reader.Field(manifest, "tensors", ""));
  if (!shapes->is_object() || shapes->empty()) {
    return reader.Error("field 'tensors' must be a non-empty object of shapes");
  }
  if (shapes->size() > kMaxTensors) {
    return reader.Error(absl::StrCat("field 'tensors' lists ", shapes->size(),
                                     " tensors, more than ", kMaxTensors));
  }
  std::map<std::string, std::vector<uint32_t>> out;
  for (const auto& [name, shape] : shapes->items()) {
    const std::string where = absl::StrCat("tensors.", name);
    if (!shape.is_array() || shape.empty() || shape.size() > kMaxTensorRank) {
      return reader.Error(absl::StrCat("field '", where, "' must be an array of 1 to ",
                                       kMaxTensorRank, " dimensions"));
    }
    std::vector<uint32_t> dims;
    for (const json& d : shape) {
      if (!d.is_number_integer() || d.get<int64_t>() <= 0 || d.get<int64_t>() > (1 << 24)) {
        return reader.Error(absl::StrCat("field '", where, "' must hold positive dimensions"));
      }
      dims.push_back(d.get<uint32_t>());
    }
    out.emplace(name, std::move(dims));
  }
  return out;
}

// The exact size of the weights file those shapes imply, or nullopt beyond the cap.
std::optional<uint64_t> WeightsBytes(const std::map<std::string, std::vector<uint32_t>>& shapes) {
  uint64_t total = kWeightsHeaderBytes;
  for (const auto& [name, shape] : shapes) {
    total += SerializedTensorBytes(name.size(), shape);
    if (total > kMaxWeightsFileBytes) return std::nullopt;
  }
  return total;
}

absl::StatusOr<std::map<std::string, double>> ReadConstants(const ManifestReader& reader,
                                                            const json& manifest) {
  SHARDPLAN_ASSIGN_OR_RETURN(const json* constants, reader.Field(manifest, "constants", ""));
  if (!constants->is_object()) return reader.Error("field 'constants' must be an object");
  std::map<std::string, double> out;
  for (const auto& [name, value] : constants->items()) {
    if (!value.is_number() || !std::isfinite(value.get<double>())) {
      return reader.Error(absl::StrCat("field 'constants.", name, "' must be a finite number"));
    }
    out.emplace(name, value.get<double>());
  }
  return out;
}

absl::Status ReadPolicyTraining(const ManifestReader& reader, const json& manifest,
                                PolicyBundleInfo& info) {
  SHARDPLAN_ASSIGN_OR_RETURN(const json* training, reader.Field(manifest, "training", ""));
  PolicyTraining& t = info.training;
  SHARDPLAN_ASSIGN_OR_RETURN(t.data, reader.String(*training, "data", "training"));
  SHARDPLAN_ASSIGN_OR_RETURN(t.data_sha256, reader.String(*training, "data_sha256", "training"));
  SHARDPLAN_ASSIGN_OR_RETURN(t.tasks, reader.Int(*training, "tasks", "training"));
  SHARDPLAN_ASSIGN_OR_RETURN(t.episodes, reader.Int(*training, "episodes", "training"));
  SHARDPLAN_ASSIGN_OR_RETURN(t.updates, reader.Int(*training, "updates", "training"));
  SHARDPLAN_ASSIGN_OR_RETURN(t.wall_seconds, reader.Double(*training, "wall_seconds", "training"));
  SHARDPLAN_ASSIGN_OR_RETURN(t.curve_metric, reader.String(*training, "curve_metric", "training"));
  SHARDPLAN_ASSIGN_OR_RETURN(const json* curve, reader.Field(*training, "curve", "training"));
  if (!curve->is_array() || curve->size() > kMaxCurvePoints) {
    return reader.Error(absl::StrCat("field 'training.curve' must be an array of at most ",
                                     kMaxCurvePoints, " [episodes, value] points"));
  }
  for (const json& point : *curve) {
    if (!point.is_array() || point.size() != 2 || !point[0].is_number_integer() ||
        !point[1].is_number()) {
      return reader.Error("field 'training.curve' must hold [episodes, value] points");
    }
    t.curve.push_back({point[0].get<int64_t>(), point[1].get<double>()});
  }
  return absl::OkStatus();
}

absl::Status ReadHyperparameters(const ManifestReader& reader, const json& manifest,
                                 PolicyBundleInfo& info) {
  SHARDPLAN_ASSIGN_OR_RETURN(const json* hyper, reader.Field(manifest, "hyperparameters", ""));
  if (!hyper->is_object()) return reader.Error("field 'hyperparameters' must be an object");
  for (const auto& [name, value] : hyper->items()) {
    if (!value.is_string()) {
      return reader.Error(absl::StrCat("field 'hyperparameters.", name, "' must be a string"));
    }
    info.hyperparameters.emplace(name, value.get<std::string>());
  }
  return absl::OkStatus();
}

// The server's choice among policies goes to the newest `created`, compared as text: so it must
// be an RFC 3339 time, rewritten in UTC ("2026-11-26T08:00:00Z", fixed width, ordered as text),
// and not in the future, or one bundle could claim every request for its algorithm for good.
absl::StatusOr<std::string> NormalizedCreated(const ManifestReader& reader,
                                              const std::string& created) {
  absl::Time time;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, created, &time, &error)) {
    return reader.Error(
        absl::StrCat("field 'created' is not an RFC 3339 time (", created, "): ", error));
  }
  if (time > absl::Now() + absl::Hours(24)) {
    return reader.Error(absl::StrCat("field 'created' (", created, ") lies in the future"));
  }
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", time, absl::UTCTimeZone());
}

}  // namespace

absl::Status WritePolicyBundle(const std::string& models_root, const PolicyBundleInfo& info,
                               const Policy& policy) {
  SHARDPLAN_RETURN_IF_ERROR(CheckPolicyToWrite(policy, info));
  PolicyBundleInfo filled = info;
  if (filled.created.empty()) filled.created = bundle_internal::NowRfc3339();
  SHARDPLAN_ASSIGN_OR_RETURN(const bundle_internal::BundleFiles files,
                             EncodePolicy(filled, policy));
  return bundle_internal::WriteBundleDirectory(models_root, policy.name, policy.version, files);
}

absl::StatusOr<LoadedPolicy> ReadPolicyBundle(const std::string& directory) {
  SHARDPLAN_ASSIGN_OR_RETURN(const bundle_internal::ManifestFile file,
                             bundle_internal::ReadManifestFile(directory));
  const json& manifest = file.manifest;
  const ManifestReader reader(file.path);
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string kind, reader.String(manifest, "kind"));
  if (kind != kPolicyKind) return reader.Error(absl::StrCat("kind '", kind, "' is not 'policy'"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t format_version, reader.Int(manifest, "format_version"));
  if (format_version != kPolicyBundleFormatVersion) {
    return reader.Error(absl::StrCat("format_version ", format_version,
                                     " is not supported (this build reads policy bundles of "
                                     "format ",
                                     kPolicyBundleFormatVersion, ")"));
  }

  LoadedPolicy loaded;
  loaded.directory = directory;
  auto policy = std::make_shared<Policy>();
  policy->content_sha256 = file.sha256;
  SHARDPLAN_ASSIGN_OR_RETURN(policy->name, reader.String(manifest, "name"));
  SHARDPLAN_ASSIGN_OR_RETURN(policy->version, reader.String(manifest, "version"));
  const auto [dir_name, dir_version] = bundle_internal::NameAndVersionOf(directory);
  if (policy->name != dir_name || policy->version != dir_version) {
    return reader.Error(absl::StrCat("names ", policy->id(), " but lives in the directory of ",
                                     dir_name, "@", dir_version));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(policy->algorithm, reader.String(manifest, "algorithm"));
  SHARDPLAN_ASSIGN_OR_RETURN(policy->architecture, reader.String(manifest, "architecture"));
  if (policy->algorithm.empty() || policy->architecture.empty()) {
    return reader.Error("fields 'algorithm' and 'architecture' must not be empty");
  }
  SHARDPLAN_ASSIGN_OR_RETURN(policy->hardware_profile, reader.String(manifest, "hardware_profile"));
  PolicyBundleInfo& info = loaded.info;
  SHARDPLAN_ASSIGN_OR_RETURN(info.description, reader.String(manifest, "description"));
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string created, reader.String(manifest, "created"));
  SHARDPLAN_ASSIGN_OR_RETURN(info.created, NormalizedCreated(reader, created));
  SHARDPLAN_ASSIGN_OR_RETURN(info.seed, reader.Uint(manifest, "seed"));
  SHARDPLAN_ASSIGN_OR_RETURN(policy->constants, ReadConstants(reader, manifest));
  SHARDPLAN_RETURN_IF_ERROR(ReadHyperparameters(reader, manifest, info));
  SHARDPLAN_RETURN_IF_ERROR(ReadPolicyTraining(reader, manifest, info));

  // The weights: the fixed file name (a manifest cannot point outside its directory), exactly
  // the size the declared shapes imply, the manifest's SHA-256, then exactly those tensors.
  SHARDPLAN_ASSIGN_OR_RETURN(const auto shapes, ReadShapes(reader, manifest));
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string weights, reader.String(manifest, "weights"));
  if (weights != kPolicyWeightsFile) {
    return reader.Error(
        absl::StrCat("field 'weights' is '", weights, "', expected '", kPolicyWeightsFile, "'"));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string sha256, reader.String(manifest, "sha256"));
  FileBounds bounds = FileBounds::AtMost(kMaxWeightsFileBytes);
  if (const std::optional<uint64_t> bytes = WeightsBytes(shapes); bytes.has_value()) {
    bounds.exact_bytes = *bytes;
    bounds.exact_what = "the manifest's tensor shapes (float32)";
  }
  const std::string path = directory + "/" + kPolicyWeightsFile;
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string bytes,
                             ReadChecksummedBundleFile(path, sha256, bounds));
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<WeightsTensor> tensors, ParseWeights(bytes, path));
  for (WeightsTensor& tensor : tensors) {
    auto declared = shapes.find(tensor.name);
    if (declared == shapes.end()) {
      return absl::FailedPreconditionError(
          absl::StrCat(path, ": tensor '", tensor.name, "' is not listed in the manifest"));
    }
    if (declared->second != tensor.shape) {
      return absl::FailedPreconditionError(absl::StrCat(
          path, ": tensor '", tensor.name, "' has shape [", absl::StrJoin(tensor.shape, ","),
          "], the manifest says [", absl::StrJoin(declared->second, ","), "]"));
    }
    for (float v : tensor.data) {
      if (!std::isfinite(v)) {
        return absl::FailedPreconditionError(
            absl::StrCat(path, ": tensor '", tensor.name, "' holds a non-finite value"));
      }
    }
    policy->tensors.emplace(tensor.name,
                            PolicyTensor{std::move(tensor.shape), std::move(tensor.data)});
  }
  if (policy->tensors.size() != shapes.size()) {
    for (const auto& [name, shape] : shapes) {
      if (!policy->tensors.contains(name)) {
        return absl::FailedPreconditionError(
            absl::StrCat(path, ": tensor '", name, "' listed in the manifest is missing"));
      }
    }
  }
  loaded.policy = std::move(policy);
  return loaded;
}

}  // namespace shardplan
