// ReadModelBundle: parses the manifest and verifies every weights file against it
// (model_bundle.h).
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/sha256.h"
#include "base/status_macros.h"
#include "costmodels/artifacts/bundle_manifest.h"
#include "costmodels/artifacts/mlp_tensors.h"
#include "costmodels/artifacts/model_bundle.h"
#include "costmodels/artifacts/weights_file.h"

namespace shardplan {
namespace {

using bundle_internal::CommInputNames;
using bundle_internal::CommSubModelName;
using bundle_internal::FeatureNames;
using bundle_internal::json;
using bundle_internal::kComputeWeightsFile;
using bundle_internal::kManifestFile;
using bundle_internal::ManifestReader;
using bundle_internal::ReadNormalizer;
using bundle_internal::ReadTraining;
using bundle_internal::ReadTrainingRange;
namespace fs = std::filesystem;

absl::StatusOr<std::string> ReadWholeFile(const std::string& path, bool* missing) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    if (missing != nullptr) *missing = (err == ENOENT);
    return absl::FailedPreconditionError(absl::StrCat(path, ": cannot open: ", std::strerror(err)));
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) return absl::FailedPreconditionError(absl::StrCat(path, ": read error"));
  return contents.str();
}

// Reads a weights file the manifest names, checks its SHA-256 and parses it.
absl::StatusOr<std::map<std::string, WeightsTensor>> ReadWeights(const ManifestReader& reader,
                                                                 const std::string& directory,
                                                                 const json& entry,
                                                                 const std::string& where,
                                                                 const std::string& expected_file) {
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string file, reader.String(entry, "weights", where));
  // Fixed names keep a manifest from pointing outside its directory.
  if (file != expected_file) {
    return reader.Error(absl::StrCat("field '", where, ".weights' is '", file, "', expected '",
                                     expected_file, "'"));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string sha256, reader.String(entry, "sha256", where));
  const std::string path = directory + "/" + file;
  bool missing = false;
  auto bytes = ReadWholeFile(path, &missing);
  if (!bytes.ok()) {
    if (missing) {
      return absl::FailedPreconditionError(
          absl::StrCat(path, ": weights file is missing (listed in ", kManifestFile, ")"));
    }
    return bytes.status();
  }
  const std::string actual = Sha256Hex(*bytes);
  if (actual != sha256) {
    return absl::FailedPreconditionError(absl::StrCat(path, ": SHA-256 mismatch (manifest ",
                                                      sha256.substr(0, 12), "..., file ",
                                                      actual.substr(0, 12), "...)"));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<WeightsTensor> tensors, ParseWeights(*bytes, path));
  std::map<std::string, WeightsTensor> by_name;
  for (WeightsTensor& t : tensors) by_name.emplace(t.name, std::move(t));
  return by_name;
}

absl::Status RefuseLeftovers(const std::string& path,
                             const std::map<std::string, WeightsTensor>& tensors) {
  if (tensors.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      path, ": tensor '", tensors.begin()->first, "' is not part of the manifest's architecture"));
}

absl::StatusOr<NeuralComputeModel> ReadCompute(const ManifestReader& reader,
                                               const std::string& directory, const json& manifest,
                                               BundleInfo& info) {
  SHARDPLAN_ASSIGN_OR_RETURN(const json* entry, reader.Field(manifest, "compute", ""));
  const std::string where = "compute";
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<std::string> features,
                             reader.Strings(*entry, "features", where));
  if (features != FeatureNames()) {
    return reader.Error(absl::StrCat("compute.features [", absl::StrJoin(features, ","),
                                     "] is not this build's feature order [",
                                     absl::StrJoin(FeatureNames(), ","), "]"));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<int> table_sizes,
                             reader.Ints(*entry, "table_mlp_sizes", where));
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<int> pred_sizes,
                             reader.Ints(*entry, "pred_mlp_sizes", where));
  SHARDPLAN_ASSIGN_OR_RETURN(FeatureNormalizer normalizer, ReadNormalizer(reader, *entry, where));
  SHARDPLAN_RETURN_IF_ERROR(ReadTraining(reader, *entry, where, "compute", info));

  const std::string path = directory + "/" + kComputeWeightsFile;
  SHARDPLAN_ASSIGN_OR_RETURN(auto tensors,
                             ReadWeights(reader, directory, *entry, where, kComputeWeightsFile));
  SHARDPLAN_ASSIGN_OR_RETURN(Mlp table_mlp,
                             TakeMlpTensors("table_mlp", table_sizes, true, path, tensors));
  SHARDPLAN_ASSIGN_OR_RETURN(Mlp pred_mlp,
                             TakeMlpTensors("pred_mlp", pred_sizes, false, path, tensors));
  SHARDPLAN_RETURN_IF_ERROR(RefuseLeftovers(path, tensors));
  auto compute =
      NeuralComputeModel::Create(std::move(normalizer), std::move(table_mlp), std::move(pred_mlp));
  if (!compute.ok()) return reader.Error(absl::StrCat("compute: ", compute.status().message()));
  return compute;
}

absl::StatusOr<NeuralCommModel> ReadComm(const ManifestReader& reader, const std::string& directory,
                                         const json& entry, const std::string& where,
                                         BundleInfo& info) {
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t n, reader.Int(entry, "num_devices", where));
  if (n <= 0 || n > 65536)
    return reader.Error(absl::StrCat(where, ".num_devices ", n, " is invalid"));
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string direction_name,
                             reader.String(entry, "direction", where));
  NeuralCommModel::Direction direction;
  if (direction_name == "forward") {
    direction = NeuralCommModel::Direction::kForward;
  } else if (direction_name == "backward") {
    direction = NeuralCommModel::Direction::kBackward;
  } else {
    return reader.Error(
        absl::StrCat(where, ".direction '", direction_name, "' is not 'forward' or 'backward'"));
  }
  const int devices = static_cast<int>(n);
  const std::string sub_model = CommSubModelName(devices, direction);
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<std::string> inputs,
                             reader.Strings(entry, "inputs", where));
  if (inputs != CommInputNames(devices, direction)) {
    return reader.Error(absl::StrCat(where, " (", sub_model, "): inputs [",
                                     absl::StrJoin(inputs, ","), "] are not [",
                                     absl::StrJoin(CommInputNames(devices, direction), ","), "]"));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<int> sizes, reader.Ints(entry, "mlp_sizes", where));
  SHARDPLAN_ASSIGN_OR_RETURN(FeatureNormalizer normalizer, ReadNormalizer(reader, entry, where));
  SHARDPLAN_RETURN_IF_ERROR(ReadTraining(reader, entry, where, sub_model, info));

  const std::string file = sub_model + ".weights";
  const std::string path = directory + "/" + file;
  SHARDPLAN_ASSIGN_OR_RETURN(auto tensors, ReadWeights(reader, directory, entry, where, file));
  SHARDPLAN_ASSIGN_OR_RETURN(Mlp mlp, TakeMlpTensors("mlp", sizes, false, path, tensors));
  SHARDPLAN_RETURN_IF_ERROR(RefuseLeftovers(path, tensors));
  auto comm = NeuralCommModel::Create(devices, direction, std::move(normalizer), std::move(mlp));
  if (!comm.ok()) return reader.Error(absl::StrCat(sub_model, ": ", comm.status().message()));
  return comm;
}

absl::StatusOr<std::map<int, NeuralCommModels>> ReadComms(const ManifestReader& reader,
                                                          const std::string& directory,
                                                          const json& manifest, bool zero_comm,
                                                          BundleInfo& info) {
  SHARDPLAN_ASSIGN_OR_RETURN(const json* list, reader.Field(manifest, "comm", ""));
  if (!list->is_array()) return reader.Error("field 'comm' must be an array");
  if (zero_comm && !list->empty()) {
    return reader.Error("comm_costs is 'zero' but comm models are listed");
  }
  std::map<int, std::optional<NeuralCommModel>> forward, backward;
  for (size_t i = 0; i < list->size(); ++i) {
    SHARDPLAN_ASSIGN_OR_RETURN(NeuralCommModel comm, ReadComm(reader, directory, (*list)[i],
                                                              absl::StrCat("comm[", i, "]"), info));
    auto& slot = comm.direction() == NeuralCommModel::Direction::kForward
                     ? forward[comm.num_devices()]
                     : backward[comm.num_devices()];
    if (slot.has_value()) {
      return reader.Error(
          absl::StrCat(CommSubModelName(comm.num_devices(), comm.direction()), " is listed twice"));
    }
    slot.emplace(std::move(comm));
  }
  std::map<int, NeuralCommModels> comm;
  for (auto& [n, fw] : forward) {
    auto bw = backward.find(n);
    if (bw == backward.end()) {
      return reader.Error(absl::StrCat("comm_", n, "_forward has no comm_", n, "_backward"));
    }
    comm.emplace(n, NeuralCommModels{*std::move(fw), *std::move(bw->second)});
  }
  for (const auto& [n, bw] : backward) {
    if (!forward.contains(n)) {
      return reader.Error(absl::StrCat("comm_", n, "_backward has no comm_", n, "_forward"));
    }
  }
  if (!zero_comm && comm.empty()) {
    return reader.Error("comm_costs is 'neural' but no comm models are listed");
  }
  return comm;
}

// The directory's last two components, ignoring trailing slashes.
std::pair<std::string, std::string> NameAndVersionOf(const std::string& directory) {
  fs::path path(directory);
  while (!path.empty() && path.filename().empty() && path.has_parent_path() &&
         path != path.parent_path()) {
    path = path.parent_path();
  }
  return {path.parent_path().filename().string(), path.filename().string()};
}

}  // namespace

absl::StatusOr<LoadedBundle> ReadModelBundle(const std::string& directory) {
  const std::string manifest_path = directory + "/" + kManifestFile;
  bool missing = false;
  auto text = ReadWholeFile(manifest_path, &missing);
  if (!text.ok()) {
    if (missing) return absl::NotFoundError(absl::StrCat(manifest_path, ": no manifest"));
    return text.status();
  }
  const ManifestReader reader(manifest_path);
  json manifest = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (manifest.is_discarded()) return reader.Error("not valid JSON");
  if (!manifest.is_object()) return reader.Error("not a JSON object");

  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t format_version, reader.Int(manifest, "format_version"));
  if (format_version != kModelBundleFormatVersion) {
    return reader.Error(absl::StrCat("format_version ", format_version,
                                     " is not supported (this build reads ",
                                     kModelBundleFormatVersion, ")"));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string kind, reader.String(manifest, "kind"));
  if (kind != "neural") return reader.Error(absl::StrCat("kind '", kind, "' is not 'neural'"));

  LoadedBundle bundle;
  bundle.directory = directory;
  bundle.manifest_sha256 = Sha256Hex(*text);
  BundleInfo& info = bundle.info;
  SHARDPLAN_ASSIGN_OR_RETURN(info.name, reader.String(manifest, "name"));
  SHARDPLAN_ASSIGN_OR_RETURN(info.version, reader.String(manifest, "version"));
  const auto [dir_name, dir_version] = NameAndVersionOf(directory);
  if (info.name != dir_name || info.version != dir_version) {
    return reader.Error(absl::StrCat("names ", info.name, "@", info.version,
                                     " but lives in the directory of ", dir_name, "@",
                                     dir_version));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(info.description, reader.String(manifest, "description"));
  SHARDPLAN_ASSIGN_OR_RETURN(info.hardware_profile, reader.String(manifest, "hardware_profile"));
  SHARDPLAN_ASSIGN_OR_RETURN(info.backend, reader.String(manifest, "backend"));
  SHARDPLAN_ASSIGN_OR_RETURN(info.created, reader.String(manifest, "created"));
  SHARDPLAN_ASSIGN_OR_RETURN(info.seed, reader.Uint(manifest, "seed"));
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string comm_costs, reader.String(manifest, "comm_costs"));
  if (comm_costs != "neural" && comm_costs != "zero") {
    return reader.Error(absl::StrCat("comm_costs '", comm_costs, "' is not 'neural' or 'zero'"));
  }
  const bool zero_comm = comm_costs == "zero";

  SHARDPLAN_ASSIGN_OR_RETURN(NeuralComputeModel compute,
                             ReadCompute(reader, directory, manifest, info));
  SHARDPLAN_ASSIGN_OR_RETURN(auto comm, ReadComms(reader, directory, manifest, zero_comm, info));
  SHARDPLAN_ASSIGN_OR_RETURN(
      std::optional<TableFeatureRange> training_range,
      ReadTrainingRange(reader, manifest.contains("compute") ? manifest["compute"] : json(),
                        "compute"));
  auto model = NeuralCostModel::Create(
      info.name, info.version, std::move(compute), std::move(comm),
      zero_comm ? NeuralCostModel::CommCosts::kZero : NeuralCostModel::CommCosts::kNeural,
      std::move(training_range));
  if (!model.ok()) return reader.Error(std::string(model.status().message()));
  bundle.model = std::make_shared<const NeuralCostModel>(*std::move(model));
  bundle.manifest = ManifestOfBundle(info, *bundle.model);
  return bundle;
}

}  // namespace shardplan
