#include "costmodels/artifacts/bundle_manifest.h"

#include <algorithm>

#include "absl/strings/str_join.h"
#include "base/sha256.h"
#include "costmodels/artifacts/mlp_tensors.h"
#include "costmodels/artifacts/weights_file.h"

namespace shardplan::bundle_internal {
namespace {

// Names and versions become path components: no separators, no "..", nothing hidden.
bool IsValidComponent(const std::string& s) {
  if (s.empty() || s.front() == '.' || s.size() > 128) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

const char* DirectionName(NeuralCommModel::Direction direction) {
  return direction == NeuralCommModel::Direction::kForward ? "forward" : "backward";
}

// Sub-model names of `model` in manifest order.
std::vector<std::string> SubModelNames(const NeuralCostModel& model) {
  std::vector<std::string> names = {"compute"};
  for (const auto& [n, models] : model.comm()) {
    names.push_back(CommSubModelName(n, NeuralCommModel::Direction::kForward));
    names.push_back(CommSubModelName(n, NeuralCommModel::Direction::kBackward));
  }
  if (model.device_set_comm().has_value()) {
    names.push_back(DeviceSetCommSubModelName(NeuralCommModel::Direction::kForward));
    names.push_back(DeviceSetCommSubModelName(NeuralCommModel::Direction::kBackward));
  }
  if (model.collectives().has_value()) names.push_back(kCollectivesSubModel);
  return names;
}

json NormalizationJson(const FeatureNormalizer& normalizer) {
  // nlohmann writes doubles with 17 significant digits, so they read back bit-identical.
  return {{"mean", normalizer.means()}, {"std", normalizer.stds()}};
}

json TrainingJson(const SubModelTraining& t) {
  json training = {{"data_file", t.data_file}, {"data_sha256", t.data_sha256},
                   {"samples", t.samples},     {"epochs", t.epochs},
                   {"train_mse", t.train_mse}, {"valid_mse", t.valid_mse},
                   {"test_mse", t.test_mse}};
  if (!t.test_mse_by_layout.empty()) training["test_mse_by_layout"] = t.test_mse_by_layout;
  if (!t.loss.empty()) training["loss"] = t.loss;
  return training;
}

void AddTraining(const BundleInfo& info, const std::string& sub_model, json& entry) {
  auto it = info.training.find(sub_model);
  if (it != info.training.end()) entry["training"] = TrainingJson(it->second);
}

json CommEntryJson(const BundleInfo& info, const NeuralCommModel& comm, const std::string& file,
                   const std::string& sha256) {
  const std::string sub_model = CommSubModelName(comm.num_devices(), comm.direction());
  json entry = {{"num_devices", comm.num_devices()},
                {"direction", DirectionName(comm.direction())},
                {"weights", file},
                {"sha256", sha256},
                {"mlp_sizes", MlpSizes(comm.mlp())},
                {"inputs", CommInputNames(comm.num_devices(), comm.direction())},
                {"normalization", NormalizationJson(comm.normalizer())}};
  AddTraining(info, sub_model, entry);
  return entry;
}

json LayoutsJson(const std::vector<DeviceLayout>& layouts) {
  json list = json::array();
  for (const DeviceLayout& layout : layouts) {
    list.push_back({{"devices", layout.devices}, {"devices_per_host", layout.devices_per_host}});
  }
  return list;
}

json DeviceSetCommEntryJson(const BundleInfo& info, const DeviceSetCommModel& comm,
                            const std::vector<DeviceLayout>& layouts, const std::string& file,
                            const std::string& sha256) {
  json entry = {{"direction", DirectionName(comm.direction())},
                {"weights", file},
                {"sha256", sha256},
                {"mlp_sizes", MlpSizes(comm.mlp())},
                {"inputs", DeviceSetCommInputNames(comm.direction())},
                {"normalization", NormalizationJson(comm.normalizer())},
                {"batch_size", comm.trained_batch_size()},
                {"trained_layouts", LayoutsJson(layouts)}};
  AddTraining(info, DeviceSetCommSubModelName(comm.direction()), entry);
  return entry;
}

}  // namespace

std::string DeviceSetCommSubModelName(NeuralCommModel::Direction direction) {
  return absl::StrCat("comm_any_", DirectionName(direction));
}

std::string CommSubModelName(int n, NeuralCommModel::Direction direction) {
  return absl::StrCat("comm_", n, "_", DirectionName(direction));
}

std::vector<std::string> CommInputNames(int n, NeuralCommModel::Direction direction) {
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(absl::StrCat("dim_sum_", i));
  if (direction == NeuralCommModel::Direction::kForward) {
    for (int i = 0; i < n; ++i) names.push_back(absl::StrCat("wait_", i));
  }
  return names;
}

std::vector<std::string> FeatureNames() {
  std::vector<std::string> names;
  for (std::string_view name : TableFeatureNames()) names.emplace_back(name);
  return names;
}

absl::Status CheckNameAndVersion(const std::string& name, const std::string& version) {
  if (!IsValidComponent(name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bundle name '", name, "' is invalid: use [A-Za-z0-9._-], not starting with '.'"));
  }
  if (!IsValidComponent(version)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bundle version '", version, "' is invalid: use [A-Za-z0-9._-], not starting with '.'"));
  }
  return absl::OkStatus();
}

absl::Status CheckBundleInfo(const BundleInfo& info, const NeuralCostModel& model) {
  SHARDPLAN_RETURN_IF_ERROR(CheckNameAndVersion(info.name, info.version));
  if (model.id() != info.name + "@" + info.version) {
    return absl::InvalidArgumentError(absl::StrCat("bundle info names ", info.name, "@",
                                                   info.version, " but the model is ", model.id()));
  }
  const std::vector<std::string> sub_models = SubModelNames(model);
  for (const auto& [sub_model, training] : info.training) {
    if (std::find(sub_models.begin(), sub_models.end(), sub_model) == sub_models.end()) {
      return absl::InvalidArgumentError(absl::StrCat("training is given for '", sub_model,
                                                     "', which the model does not have (it has ",
                                                     absl::StrJoin(sub_models, ", "), ")"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<BundleFiles> EncodeBundle(const BundleInfo& info, const NeuralCostModel& model) {
  BundleFiles files;
  const NeuralComputeModel& compute = model.compute();
  std::vector<WeightsTensor> tensors;
  AppendMlpTensors("table_mlp", compute.table_mlp(), tensors);
  AppendMlpTensors("pred_mlp", compute.pred_mlp(), tensors);
  SHARDPLAN_ASSIGN_OR_RETURN(std::string compute_bytes, SerializeWeights(tensors));

  // Format 2 adds the device-set comm models, the compute feature transform and feature set and
  // the collective model; a bundle without any stays format 1, readable by older builds and
  // byte-identical to what they wrote.
  const bool served = compute.feature_set() != ShardFeatureSet::kReference;
  const bool per_call = compute.calls() != ComputeCalls::kOnePerDevice;
  const bool format_2 = model.device_set_comm().has_value() ||
                        compute.feature_transform() != FeatureTransform::kRaw || served ||
                        model.collectives().has_value();
  json manifest = {
      {"format_version", format_2 ? 2 : 1},
      {"name", info.name},
      {"version", info.version},
      {"kind", "neural"},
      {"description", info.description},
      {"hardware_profile", info.hardware_profile},
      {"backend", info.backend},
      {"created", info.created},
      {"seed", info.seed},
      {"comm_costs", model.comm_costs() == NeuralCostModel::CommCosts::kZero ? "zero" : "neural"}};
  json compute_entry = {{"weights", kComputeWeightsFile},
                        {"sha256", Sha256Hex(compute_bytes)},
                        {"table_mlp_sizes", MlpSizes(compute.table_mlp())},
                        {"pred_mlp_sizes", MlpSizes(compute.pred_mlp())},
                        {"features", ShardFeatureNames(compute.feature_set())},
                        {"normalization", NormalizationJson(compute.normalizer())}};
  if (compute.feature_transform() != FeatureTransform::kRaw) {
    compute_entry["feature_transform"] = FeatureTransformName(compute.feature_transform());
  }
  if (served) compute_entry["feature_set"] = ShardFeatureSetName(compute.feature_set());
  if (per_call) compute_entry["calls"] = ComputeCallsName(compute.calls());
  if (model.training_range().has_value()) {
    compute_entry["training_range"] = {{"min", model.training_range()->min},
                                       {"max", model.training_range()->max}};
  }
  if (const auto& shapes = model.access_shapes(); shapes.has_value()) {
    compute_entry["access_shapes"] = AccessShapesJson(*shapes);
  }
  AddTraining(info, "compute", compute_entry);
  manifest["compute"] = std::move(compute_entry);
  files.weights.emplace_back(kComputeWeightsFile, std::move(compute_bytes));

  json comm = json::array();
  for (const auto& [n, models] : model.comm()) {
    for (const NeuralCommModel* m : {&models.forward, &models.backward}) {
      tensors.clear();
      AppendMlpTensors("mlp", m->mlp(), tensors);
      SHARDPLAN_ASSIGN_OR_RETURN(std::string bytes, SerializeWeights(tensors));
      const std::string file = CommSubModelName(n, m->direction()) + ".weights";
      comm.push_back(CommEntryJson(info, *m, file, Sha256Hex(bytes)));
      files.weights.emplace_back(file, std::move(bytes));
    }
  }
  manifest["comm"] = std::move(comm);
  if (const auto& any = model.device_set_comm(); any.has_value()) {
    json entries = json::array();
    for (const DeviceSetCommModel* m : {&any->forward, &any->backward}) {
      tensors.clear();
      AppendMlpTensors("mlp", m->mlp(), tensors);
      SHARDPLAN_ASSIGN_OR_RETURN(std::string bytes, SerializeWeights(tensors));
      const std::string file = DeviceSetCommSubModelName(m->direction()) + ".weights";
      entries.push_back(
          DeviceSetCommEntryJson(info, *m, any->trained_layouts, file, Sha256Hex(bytes)));
      files.weights.emplace_back(file, std::move(bytes));
    }
    manifest["device_set_comm"] = std::move(entries);
  }
  if (const auto& collectives = model.collectives(); collectives.has_value()) {
    tensors.clear();
    AppendMlpTensors("mlp", collectives->mlp(), tensors);
    SHARDPLAN_ASSIGN_OR_RETURN(std::string bytes, SerializeWeights(tensors));
    const std::string file = std::string(kCollectivesSubModel) + ".weights";
    json entry = {{"weights", file},
                  {"sha256", Sha256Hex(bytes)},
                  {"mlp_sizes", MlpSizes(collectives->mlp())},
                  {"inputs", CollectiveCallFeatureNames()},
                  {"normalization", NormalizationJson(collectives->normalizer())},
                  {"output", kCollectivesOutput}};
    AddTraining(info, kCollectivesSubModel, entry);
    manifest["collectives"] = std::move(entry);
    files.weights.emplace_back(file, std::move(bytes));
  }
  files.manifest = manifest.dump(2) + "\n";
  return files;
}

absl::StatusOr<FeatureNormalizer> ReadNormalizer(const ManifestReader& reader, const json& entry,
                                                 const std::string& where) {
  SHARDPLAN_ASSIGN_OR_RETURN(const json* norm, reader.Field(entry, "normalization", where));
  const std::string path = ManifestReader::Path(where, "normalization");
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<double> mean, reader.Doubles(*norm, "mean", path));
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<double> std, reader.Doubles(*norm, "std", path));
  auto normalizer = FeatureNormalizer::Create(std::move(mean), std::move(std));
  if (!normalizer.ok())
    return reader.Error(absl::StrCat(path, ": ", normalizer.status().message()));
  return normalizer;
}

absl::StatusOr<std::optional<TableFeatureRange>> ReadTrainingRange(const ManifestReader& reader,
                                                                   const json& compute_entry,
                                                                   const std::string& where) {
  if (!compute_entry.is_object() || !compute_entry.contains("training_range")) {
    return std::nullopt;
  }
  const std::string path = ManifestReader::Path(where, "training_range");
  const json& entry = compute_entry["training_range"];
  TableFeatureRange range;
  SHARDPLAN_ASSIGN_OR_RETURN(range.min, reader.Doubles(entry, "min", path));
  SHARDPLAN_ASSIGN_OR_RETURN(range.max, reader.Doubles(entry, "max", path));
  if (range.min.size() != kNumTableFeatures || range.max.size() != kNumTableFeatures) {
    return reader.Error(absl::StrCat(path, ": min and max need ", kNumTableFeatures,
                                     " values each, one per feature"));
  }
  return range;
}

json AccessShapesJson(const AccessShapeSummary& shapes) {
  json centres = json::array();
  for (const AccessShape& centre : shapes.centres) centres.push_back(centre);
  return {{"metric", kAccessShapeMetric},
          {"threshold", shapes.threshold},
          {"cover_radius", shapes.cover_radius},
          {"centres", std::move(centres)}};
}

absl::StatusOr<std::optional<AccessShapeSummary>> ReadAccessShapes(const ManifestReader& reader,
                                                                   const json& compute_entry,
                                                                   const std::string& where) {
  if (!compute_entry.is_object() || !compute_entry.contains("access_shapes")) {
    return std::nullopt;
  }
  const std::string path = ManifestReader::Path(where, "access_shapes");
  const json& entry = compute_entry["access_shapes"];
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string metric, reader.String(entry, "metric", path));
  if (metric != kAccessShapeMetric) {
    return reader.Error(
        absl::StrCat(path, ".metric '", metric, "' is not '", kAccessShapeMetric, "'"));
  }
  AccessShapeSummary shapes;
  SHARDPLAN_ASSIGN_OR_RETURN(shapes.threshold, reader.Double(entry, "threshold", path));
  SHARDPLAN_ASSIGN_OR_RETURN(shapes.cover_radius, reader.Double(entry, "cover_radius", path));
  SHARDPLAN_ASSIGN_OR_RETURN(const json* centres, reader.Field(entry, "centres", path));
  if (!centres->is_array()) return reader.Error(absl::StrCat(path, ".centres must be an array"));
  for (size_t c = 0; c < centres->size(); ++c) {
    const json& bins = (*centres)[c];
    bool valid = bins.is_array() && bins.size() == static_cast<size_t>(kNumAccessBins);
    for (size_t j = 0; valid && j < bins.size(); ++j) valid = bins[j].is_number();
    if (!valid) {
      return reader.Error(absl::StrCat(path, ".centres[", c, "] must be an array of ",
                                       kNumAccessBins, " numbers, one per bin"));
    }
    AccessShape centre;
    for (int j = 0; j < kNumAccessBins; ++j) centre[j] = bins[j].get<double>();
    shapes.centres.push_back(centre);
  }
  if (absl::Status valid = CheckAccessShapeSummary(shapes); !valid.ok()) {
    return reader.Error(absl::StrCat(path, ": ", valid.message()));
  }
  return shapes;
}

absl::Status ReadTraining(const ManifestReader& reader, const json& entry, const std::string& where,
                          const std::string& sub_model, BundleInfo& info) {
  if (!entry.contains("training")) return absl::OkStatus();
  const json& t = entry["training"];
  const std::string path = ManifestReader::Path(where, "training");
  SubModelTraining training;
  SHARDPLAN_ASSIGN_OR_RETURN(training.data_file, reader.String(t, "data_file", path));
  SHARDPLAN_ASSIGN_OR_RETURN(training.data_sha256, reader.String(t, "data_sha256", path));
  SHARDPLAN_ASSIGN_OR_RETURN(training.samples, reader.Int(t, "samples", path));
  SHARDPLAN_ASSIGN_OR_RETURN(training.epochs, reader.Int(t, "epochs", path));
  SHARDPLAN_ASSIGN_OR_RETURN(training.train_mse, reader.Double(t, "train_mse", path));
  SHARDPLAN_ASSIGN_OR_RETURN(training.valid_mse, reader.Double(t, "valid_mse", path));
  SHARDPLAN_ASSIGN_OR_RETURN(training.test_mse, reader.Double(t, "test_mse", path));
  if (t.contains("test_mse_by_layout")) {
    const json& by_layout = t["test_mse_by_layout"];
    const std::string at = ManifestReader::Path(path, "test_mse_by_layout");
    if (!by_layout.is_object()) return reader.Error(absl::StrCat(at, " must be an object"));
    for (const auto& [layout, value] : by_layout.items()) {
      SHARDPLAN_ASSIGN_OR_RETURN(training.test_mse_by_layout[layout],
                                 reader.Double(by_layout, layout, at));
    }
  }
  if (t.contains("loss")) {
    SHARDPLAN_ASSIGN_OR_RETURN(training.loss, reader.String(t, "loss", path));
  }
  info.training[sub_model] = std::move(training);
  return absl::OkStatus();
}

}  // namespace shardplan::bundle_internal
