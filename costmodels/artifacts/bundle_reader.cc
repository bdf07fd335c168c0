// ReadModelBundle: parses the manifest and verifies every weights file against it
// (model_bundle.h).
#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/sha256.h"
#include "base/status_macros.h"
#include "costmodels/artifacts/bundle_file.h"
#include "costmodels/artifacts/bundle_manifest.h"
#include "costmodels/artifacts/mlp_tensors.h"
#include "costmodels/artifacts/model_bundle.h"
#include "costmodels/artifacts/weights_file.h"

namespace shardplan {
namespace {

using bundle_internal::CommInputNames;
using bundle_internal::CommSubModelName;
using bundle_internal::DeviceSetCommSubModelName;
using bundle_internal::FeatureNames;
using bundle_internal::json;
using bundle_internal::kCollectivesOutput;
using bundle_internal::kCollectivesSubModel;
using bundle_internal::kComputeWeightsFile;
using bundle_internal::kManifestFile;
using bundle_internal::ManifestReader;
using bundle_internal::NameAndVersionOf;
using bundle_internal::ReadAccessShapes;
using bundle_internal::ReadNormalizer;
using bundle_internal::ReadTraining;
using bundle_internal::ReadTrainingRange;
namespace fs = std::filesystem;

// The bounds of a weights file whose tensors are the MLPs `mlps` (prefix, layer sizes): exactly
// the size they imply, within kMaxWeightsFileBytes. Sizes that make no MLP, or one larger than
// the cap, leave only the cap (TakeMlpTensors refuses what is read then).
FileBounds WeightsBounds(const std::vector<std::pair<std::string, std::vector<int>>>& mlps) {
  FileBounds bounds = FileBounds::AtMost(kMaxWeightsFileBytes);
  uint64_t total = kWeightsHeaderBytes;
  std::vector<std::string> described;
  for (const auto& [prefix, sizes] : mlps) {
    const std::optional<uint64_t> bytes = MlpTensorsBytes(prefix, sizes, kMaxWeightsFileBytes);
    if (!bytes.has_value()) return bounds;
    total += *bytes;
    described.push_back(absl::StrCat(prefix, " [", absl::StrJoin(sizes, ","), "]"));
  }
  bounds.exact_bytes = total;
  bounds.exact_what =
      absl::StrCat("the manifest's architecture (", absl::StrJoin(described, ", "), ", float32)");
  return bounds;
}

// Reads a weights file the manifest names (refused unless its size is what `bounds` say), checks
// its SHA-256 and parses it.
absl::StatusOr<std::map<std::string, WeightsTensor>> ReadWeights(
    const ManifestReader& reader, const std::string& directory, const json& entry,
    const std::string& where, const std::string& expected_file, const FileBounds& bounds) {
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string file, reader.String(entry, "weights", where));
  // Fixed names keep a manifest from pointing outside its directory.
  if (file != expected_file) {
    return reader.Error(absl::StrCat("field '", where, ".weights' is '", file, "', expected '",
                                     expected_file, "'"));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string sha256, reader.String(entry, "sha256", where));
  const std::string path = directory + "/" + file;
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string bytes,
                             ReadChecksummedBundleFile(path, sha256, bounds));
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<WeightsTensor> tensors, ParseWeights(bytes, path));
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
                                               int64_t format_version, BundleInfo& info) {
  SHARDPLAN_ASSIGN_OR_RETURN(const json* entry, reader.Field(manifest, "compute", ""));
  const std::string where = "compute";
  ShardFeatureSet feature_set = ShardFeatureSet::kReference;
  if (entry->contains("feature_set")) {
    SHARDPLAN_ASSIGN_OR_RETURN(const std::string name, reader.String(*entry, "feature_set", where));
    if (format_version < 2) {
      return reader.Error("field 'compute.feature_set' needs format_version 2 or later");
    }
    if (!ParseShardFeatureSet(name, &feature_set)) {
      return reader.Error(
          absl::StrCat("compute.feature_set '", name, "' is not 'reference' or 'served'"));
    }
  }
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<std::string> features,
                             reader.Strings(*entry, "features", where));
  const std::vector<std::string> expected = ShardFeatureNames(feature_set);
  if (features != expected) {
    return reader.Error(absl::StrCat(
        "compute.features [", absl::StrJoin(features, ","), "] is not this build's feature order [",
        absl::StrJoin(expected, ","), "] (feature set ", ShardFeatureSetName(feature_set), ")"));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<int> table_sizes,
                             reader.Ints(*entry, "table_mlp_sizes", where));
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<int> pred_sizes,
                             reader.Ints(*entry, "pred_mlp_sizes", where));
  SHARDPLAN_ASSIGN_OR_RETURN(FeatureNormalizer normalizer, ReadNormalizer(reader, *entry, where));
  SHARDPLAN_RETURN_IF_ERROR(ReadTraining(reader, *entry, where, "compute", info));
  FeatureTransform transform = FeatureTransform::kRaw;
  if (entry->contains("feature_transform")) {
    SHARDPLAN_ASSIGN_OR_RETURN(const std::string name,
                               reader.String(*entry, "feature_transform", where));
    if (format_version < 2) {
      return reader.Error("field 'compute.feature_transform' needs format_version 2 or later");
    }
    if (!ParseFeatureTransform(name, &transform)) {
      return reader.Error(
          absl::StrCat("compute.feature_transform '", name, "' is not 'raw' or 'log'"));
    }
  }
  ComputeCalls calls = ComputeCalls::kOnePerDevice;
  if (entry->contains("calls")) {
    SHARDPLAN_ASSIGN_OR_RETURN(const std::string name, reader.String(*entry, "calls", where));
    if (format_version < 2) {
      return reader.Error("field 'compute.calls' needs format_version 2 or later");
    }
    if (!ParseComputeCalls(name, &calls)) {
      return reader.Error(
          absl::StrCat("compute.calls '", name, "' is not 'device' or 'kernel_call'"));
    }
  }

  const std::string path = directory + "/" + kComputeWeightsFile;
  SHARDPLAN_ASSIGN_OR_RETURN(
      auto tensors,
      ReadWeights(reader, directory, *entry, where, kComputeWeightsFile,
                  WeightsBounds({{"table_mlp", table_sizes}, {"pred_mlp", pred_sizes}})));
  SHARDPLAN_ASSIGN_OR_RETURN(Mlp table_mlp,
                             TakeMlpTensors("table_mlp", table_sizes, true, path, tensors));
  SHARDPLAN_ASSIGN_OR_RETURN(Mlp pred_mlp,
                             TakeMlpTensors("pred_mlp", pred_sizes, false, path, tensors));
  SHARDPLAN_RETURN_IF_ERROR(RefuseLeftovers(path, tensors));
  auto compute = NeuralComputeModel::Create(
      std::move(normalizer), std::move(table_mlp), std::move(pred_mlp),
      NeuralComputeModel::kDefaultLatentMemoCapacity, transform, feature_set, calls);
  if (!compute.ok()) return reader.Error(absl::StrCat("compute: ", compute.status().message()));
  return compute;
}

absl::StatusOr<CommDirection> ReadDirection(const ManifestReader& reader, const json& entry,
                                            const std::string& where) {
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string name, reader.String(entry, "direction", where));
  if (name == "forward") return CommDirection::kForward;
  if (name == "backward") return CommDirection::kBackward;
  return reader.Error(
      absl::StrCat(where, ".direction '", name, "' is not 'forward' or 'backward'"));
}

// A comm model's normaliser and MLP (a weights file <sub_model>.weights with one "mlp"), after
// checking that its inputs are `expected_inputs`; records its training in `info`.
struct CommMlp {
  FeatureNormalizer normalizer;
  Mlp mlp;
};
absl::StatusOr<CommMlp> ReadCommMlp(const ManifestReader& reader, const std::string& directory,
                                    const json& entry, const std::string& where,
                                    const std::string& sub_model,
                                    const std::vector<std::string>& expected_inputs,
                                    BundleInfo& info) {
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<std::string> inputs,
                             reader.Strings(entry, "inputs", where));
  if (inputs != expected_inputs) {
    return reader.Error(absl::StrCat(where, " (", sub_model, "): inputs [",
                                     absl::StrJoin(inputs, ","), "] are not [",
                                     absl::StrJoin(expected_inputs, ","), "]"));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<int> sizes, reader.Ints(entry, "mlp_sizes", where));
  SHARDPLAN_ASSIGN_OR_RETURN(FeatureNormalizer normalizer, ReadNormalizer(reader, entry, where));
  SHARDPLAN_RETURN_IF_ERROR(ReadTraining(reader, entry, where, sub_model, info));
  const std::string file = sub_model + ".weights";
  const std::string path = directory + "/" + file;
  SHARDPLAN_ASSIGN_OR_RETURN(auto tensors, ReadWeights(reader, directory, entry, where, file,
                                                       WeightsBounds({{"mlp", sizes}})));
  SHARDPLAN_ASSIGN_OR_RETURN(Mlp mlp, TakeMlpTensors("mlp", sizes, false, path, tensors));
  SHARDPLAN_RETURN_IF_ERROR(RefuseLeftovers(path, tensors));
  return CommMlp{std::move(normalizer), std::move(mlp)};
}

absl::StatusOr<NeuralCommModel> ReadComm(const ManifestReader& reader, const std::string& directory,
                                         const json& entry, const std::string& where,
                                         BundleInfo& info) {
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t n, reader.Int(entry, "num_devices", where));
  if (n <= 0 || n > 65536)
    return reader.Error(absl::StrCat(where, ".num_devices ", n, " is invalid"));
  SHARDPLAN_ASSIGN_OR_RETURN(const CommDirection direction, ReadDirection(reader, entry, where));
  const int devices = static_cast<int>(n);
  const std::string sub_model = CommSubModelName(devices, direction);
  SHARDPLAN_ASSIGN_OR_RETURN(CommMlp read, ReadCommMlp(reader, directory, entry, where, sub_model,
                                                       CommInputNames(devices, direction), info));
  auto comm =
      NeuralCommModel::Create(devices, direction, std::move(read.normalizer), std::move(read.mlp));
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
  return comm;
}

absl::StatusOr<std::vector<DeviceLayout>> ReadLayouts(const ManifestReader& reader,
                                                      const json& entry, const std::string& where) {
  SHARDPLAN_ASSIGN_OR_RETURN(const json* list, reader.Field(entry, "trained_layouts", where));
  const std::string path = ManifestReader::Path(where, "trained_layouts");
  if (!list->is_array()) return reader.Error(absl::StrCat(path, " must be an array"));
  std::vector<DeviceLayout> layouts;
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string at = absl::StrCat(path, "[", i, "]");
    SHARDPLAN_ASSIGN_OR_RETURN(const int64_t devices, reader.Int((*list)[i], "devices", at));
    SHARDPLAN_ASSIGN_OR_RETURN(const int64_t per_host,
                               reader.Int((*list)[i], "devices_per_host", at));
    if (devices <= 0 || devices > 65536 || per_host <= 0 || per_host > devices) {
      return reader.Error(
          absl::StrCat(at, ": ", devices, " devices in hosts of ", per_host, " is not a layout"));
    }
    const DeviceLayout layout{static_cast<int>(devices), static_cast<int>(per_host)};
    if (std::find(layouts.begin(), layouts.end(), layout) != layouts.end()) {
      return reader.Error(absl::StrCat(at, ": ", layout.name(), " is listed twice"));
    }
    layouts.push_back(layout);
  }
  // The layouts are what the plan's out-of-range warning and `model check` go by.
  if (layouts.empty()) return reader.Error(absl::StrCat(path, " is empty"));
  return layouts;
}

absl::StatusOr<DeviceSetCommModel> ReadDeviceSetComm(const ManifestReader& reader,
                                                     const std::string& directory,
                                                     const json& entry, const std::string& where,
                                                     BundleInfo& info) {
  SHARDPLAN_ASSIGN_OR_RETURN(const CommDirection direction, ReadDirection(reader, entry, where));
  const std::string sub_model = DeviceSetCommSubModelName(direction);
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t batch_size, reader.Int(entry, "batch_size", where));
  if (batch_size <= 0) {
    return reader.Error(absl::StrCat(ManifestReader::Path(where, "batch_size"), " ", batch_size,
                                     " is not positive"));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(CommMlp read, ReadCommMlp(reader, directory, entry, where, sub_model,
                                                       DeviceSetCommInputNames(direction), info));
  auto comm = DeviceSetCommModel::Create(direction, std::move(read.normalizer), std::move(read.mlp),
                                         batch_size);
  if (!comm.ok()) return reader.Error(absl::StrCat(sub_model, ": ", comm.status().message()));
  return comm;
}

// The optional `device_set_comm` list (format 2): a forward and a backward entry, which must
// record the same trained layouts.
absl::StatusOr<std::optional<DeviceSetCommModels>> ReadDeviceSetComms(
    const ManifestReader& reader, const std::string& directory, const json& manifest,
    int64_t format_version, bool zero_comm, BundleInfo& info) {
  if (!manifest.contains("device_set_comm")) return std::nullopt;
  if (format_version < 2) {
    return reader.Error("field 'device_set_comm' needs format_version 2 or later");
  }
  if (zero_comm) return reader.Error("comm_costs is 'zero' but device_set_comm is listed");
  const json& list = manifest["device_set_comm"];
  if (!list.is_array() || list.size() != 2) {
    return reader.Error("field 'device_set_comm' must list a forward and a backward model");
  }
  std::optional<DeviceSetCommModel> forward, backward;
  std::vector<DeviceLayout> layouts;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = absl::StrCat("device_set_comm[", i, "]");
    SHARDPLAN_ASSIGN_OR_RETURN(DeviceSetCommModel model,
                               ReadDeviceSetComm(reader, directory, list[i], where, info));
    SHARDPLAN_ASSIGN_OR_RETURN(std::vector<DeviceLayout> these,
                               ReadLayouts(reader, list[i], where));
    if (i > 0 && these != layouts) {
      return reader.Error(
          "device_set_comm: the forward and backward models record different "
          "trained_layouts");
    }
    layouts = std::move(these);
    auto& slot = model.direction() == CommDirection::kForward ? forward : backward;
    if (slot.has_value()) {
      return reader.Error(absl::StrCat(where, ": ", DeviceSetCommSubModelName(model.direction()),
                                       " is listed twice"));
    }
    slot.emplace(std::move(model));
  }
  // Per-layout test MSEs name trained layouts only: a typo would make a trained layout look held
  // out to `model check`, which never judges those.
  for (const CommDirection direction : {CommDirection::kForward, CommDirection::kBackward}) {
    const std::string sub_model = DeviceSetCommSubModelName(direction);
    const auto training = info.training.find(sub_model);
    if (training == info.training.end()) continue;
    for (const auto& entry : training->second.test_mse_by_layout) {
      const std::string& name = entry.first;  // not a structured binding: the lambda captures it
      if (std::none_of(layouts.begin(), layouts.end(),
                       [&](const DeviceLayout& l) { return l.name() == name; })) {
        return reader.Error(absl::StrCat(sub_model, ".training.test_mse_by_layout: '", name,
                                         "' is not one of its trained_layouts"));
      }
    }
  }
  return DeviceSetCommModels{*std::move(forward), *std::move(backward), std::move(layouts)};
}

// The optional `collectives` entry (format 2): the collective model's MLP over call features.
absl::StatusOr<std::optional<NeuralCollectiveModel>> ReadCollectives(
    const ManifestReader& reader, const std::string& directory, const json& manifest,
    int64_t format_version, bool zero_comm, BundleInfo& info) {
  if (!manifest.contains("collectives")) return std::nullopt;
  if (format_version < 2) {
    return reader.Error("field 'collectives' needs format_version 2 or later");
  }
  if (zero_comm) return reader.Error("comm_costs is 'zero' but collectives is listed");
  const std::string where = kCollectivesSubModel;
  const json& entry = manifest[where];
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string output, reader.String(entry, "output", where));
  if (output != kCollectivesOutput) {
    return reader.Error(
        absl::StrCat("collectives.output '", output, "' is not '", kCollectivesOutput, "'"));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(CommMlp read,
                             ReadCommMlp(reader, directory, entry, where, kCollectivesSubModel,
                                         CollectiveCallFeatureNames(), info));
  auto model = NeuralCollectiveModel::Create(std::move(read.normalizer), std::move(read.mlp));
  if (!model.ok()) return reader.Error(absl::StrCat("collectives: ", model.status().message()));
  return *std::move(model);
}

}  // namespace

namespace bundle_internal {

absl::StatusOr<ManifestFile> ReadManifestFile(const std::string& directory) {
  const std::string manifest_path = directory + "/" + kManifestFile;
  auto text = ReadBundleFile(manifest_path, FileBounds::AtMost(kMaxManifestBytes));
  if (!text.ok()) {
    if (absl::IsNotFound(text.status())) {
      return absl::NotFoundError(absl::StrCat(manifest_path, ": no manifest"));
    }
    return text.status();
  }
  const ManifestReader reader(manifest_path);
  json manifest = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (manifest.is_discarded()) return reader.Error("not valid JSON");
  if (!manifest.is_object()) return reader.Error("not a JSON object");
  return ManifestFile{manifest_path, std::move(manifest), Sha256Hex(*text)};
}

}  // namespace bundle_internal

absl::StatusOr<LoadedBundle> ReadModelBundle(const std::string& directory) {
  SHARDPLAN_ASSIGN_OR_RETURN(const bundle_internal::ManifestFile file,
                             bundle_internal::ReadManifestFile(directory));
  const json& manifest = file.manifest;
  const ManifestReader reader(file.path);

  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t format_version, reader.Int(manifest, "format_version"));
  if (format_version < kOldestModelBundleFormatVersion ||
      format_version > kModelBundleFormatVersion) {
    return reader.Error(
        absl::StrCat("format_version ", format_version, " is not supported (this build reads ",
                     kOldestModelBundleFormatVersion, " to ", kModelBundleFormatVersion, ")"));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string kind, reader.String(manifest, "kind"));
  if (kind != "neural") return reader.Error(absl::StrCat("kind '", kind, "' is not 'neural'"));

  LoadedBundle bundle;
  bundle.directory = directory;
  bundle.manifest_sha256 = file.sha256;
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
                             ReadCompute(reader, directory, manifest, format_version, info));
  SHARDPLAN_ASSIGN_OR_RETURN(auto comm, ReadComms(reader, directory, manifest, zero_comm, info));
  SHARDPLAN_ASSIGN_OR_RETURN(
      std::optional<DeviceSetCommModels> device_set_comm,
      ReadDeviceSetComms(reader, directory, manifest, format_version, zero_comm, info));
  SHARDPLAN_ASSIGN_OR_RETURN(
      std::optional<NeuralCollectiveModel> collectives,
      ReadCollectives(reader, directory, manifest, format_version, zero_comm, info));
  if (format_version < 2) {
    for (const auto& [sub_model, training] : info.training) {
      if (!training.test_mse_by_layout.empty()) {
        return reader.Error(
            absl::StrCat(sub_model, ".training.test_mse_by_layout needs format_version 2"));
      }
    }
  }
  if (!zero_comm && comm.empty() && !device_set_comm.has_value()) {
    return reader.Error("comm_costs is 'neural' but no comm models are listed");
  }
  SHARDPLAN_ASSIGN_OR_RETURN(
      std::optional<TableFeatureRange> training_range,
      ReadTrainingRange(reader, manifest.contains("compute") ? manifest["compute"] : json(),
                        "compute"));
  auto model = NeuralCostModel::Create(
      info.name, info.version, std::move(compute), std::move(comm),
      zero_comm ? NeuralCostModel::CommCosts::kZero : NeuralCostModel::CommCosts::kNeural,
      std::move(training_range), std::move(device_set_comm), std::move(collectives));
  if (!model.ok()) return reader.Error(std::string(model.status().message()));
  SHARDPLAN_ASSIGN_OR_RETURN(
      std::optional<AccessShapeSummary> access_shapes,
      ReadAccessShapes(reader, manifest.contains("compute") ? manifest["compute"] : json(),
                       "compute"));
  model = NeuralCostModel::WithAccessShapes(*std::move(model), std::move(access_shapes));
  if (!model.ok()) return reader.Error(std::string(model.status().message()));
  bundle.model = std::make_shared<const NeuralCostModel>(*std::move(model));
  bundle.manifest = ManifestOfBundle(info, *bundle.model);
  return bundle;
}

}  // namespace shardplan
