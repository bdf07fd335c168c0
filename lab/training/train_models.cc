#include "lab/training/train_models.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "lab/training/comm_objective.h"
#include "lab/training/compute_objective.h"
#include "lab/training/feature_stats.h"
#include "lab/training/split.h"

namespace shardplan::training {
namespace {

// The rows of a split of records (record i's rows are [record_offsets[i], record_offsets[i + 1])),
// so that a record's rows stay in one split.
Split RowsOfRecords(const Split& records, const std::vector<int64_t>& record_offsets) {
  const auto rows_of = [&](const std::vector<int64_t>& ids) {
    std::vector<int64_t> out;
    for (int64_t id : ids) {
      for (int64_t r = record_offsets[id]; r < record_offsets[id + 1]; ++r) out.push_back(r);
    }
    return out;
  };
  return Split{rows_of(records.train), rows_of(records.valid), rows_of(records.test)};
}

constexpr int64_t kMinSamples = 10;

absl::Status CheckSize(int64_t samples, const std::string& path) {
  if (samples >= kMinSamples) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", samples, " samples; training needs ",
                                                 kMinSamples, " or more for an 80/10/10 split"));
}

// The measured labels of `samples`, in order.
std::vector<float> LabelsOf(const Objective& objective, std::span<const int64_t> samples) {
  std::vector<float> labels;
  for (int64_t sample : samples) {
    const std::span<const float> l = objective.Labels(sample);
    labels.insert(labels.end(), l.begin(), l.end());
  }
  return labels;
}

}  // namespace

absl::StatusOr<TrainedCompute> TrainComputeModel(const ComputeDataset& data,
                                                 const TrainOptions& options,
                                                 ComputeFeatureSet feature_set, ComputeLoss loss) {
  SHARDPLAN_RETURN_IF_ERROR(CheckSize(data.size(), data.path));
  if (feature_set.calls == ComputeCalls::kPerKernelCall && data.multi_call_samples > 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        data.path, ": ", data.multi_call_samples,
        " samples hold shards of several kernel calls (sharding types or replica counts), whose "
        "cost a per-kernel-call model cannot learn; collect with data collect --kind shards "
        "--one-call"));
  }
  // The model's inputs: the raw features through its transform (then z-scored).
  const size_t width = static_cast<size_t>(data.width);
  std::vector<float> features = data.features;
  for (size_t row = 0; row + width <= features.size(); row += width) {
    TransformFeatures(feature_set.transform, std::span<float, kNumTableFeatures>(
                                                 features.data() + row, kNumTableFeatures));
  }
  const Split split = SplitDataset(data.size(), options.seed);
  // Statistics over the distinct table (shard) configs of the training samples, first
  // occurrence each.
  std::map<std::tuple<int32_t, int32_t, int64_t>, int64_t> distinct;
  for (int64_t sample : split.train) {
    for (int64_t r = data.row_offsets[sample]; r < data.row_offsets[sample + 1]; ++r) {
      const int64_t variant = data.row_variants.empty() ? 0 : data.row_variants[r];
      distinct.emplace(std::make_tuple(data.row_keys[r].first, data.row_keys[r].second, variant),
                       r);
    }
  }
  std::vector<int64_t> stat_rows;
  for (const auto& [key, row] : distinct) stat_rows.push_back(row);
  FeatureStats stats = ComputeFeatureStats(features, data.width, stat_rows);
  for (int f = 0; f < kNumAccessBins; ++f) {  // the bins are the first features
    stats.stds[f] = std::max(stats.stds[f], feature_set.min_bin_std);
  }
  SHARDPLAN_ASSIGN_OR_RETURN(FeatureNormalizer normalizer,
                             FeatureNormalizer::Create(stats.means, stats.stds));
  NormalizeRows(normalizer, features);

  const std::vector<float> weights = loss.relative_floor_ms > 0.0
                                         ? RelativeLossWeights(data.labels, loss.relative_floor_ms)
                                         : std::vector<float>();
  ComputeObjective objective(features, data.row_offsets, data.labels,
                             ComputeObjective::DefaultTableShape(data.width),
                             ComputeObjective::DefaultPredShape(), weights);
  SubModelReport report;
  report.samples = data.size();
  report.result = Train(objective, split, options);
  report.test_samples = split.test;
  report.test_measured = LabelsOf(objective, split.test);
  SHARDPLAN_ASSIGN_OR_RETURN(
      Mlp table, ToMlp(objective.table_shape(), objective.TableParams(report.result.params)));
  SHARDPLAN_ASSIGN_OR_RETURN(
      Mlp pred, ToMlp(objective.pred_shape(), objective.PredParams(report.result.params)));
  SHARDPLAN_ASSIGN_OR_RETURN(
      NeuralComputeModel model,
      NeuralComputeModel::Create(std::move(normalizer), std::move(table), std::move(pred),
                                 NeuralComputeModel::kDefaultLatentMemoCapacity,
                                 feature_set.transform, data.feature_set, feature_set.calls));
  return TrainedCompute{std::move(model), std::move(report)};
}

std::string ComputeLoss::Describe() const {
  return relative_floor_ms > 0.0 ? absl::StrCat("relative (floor ", relative_floor_ms, " ms)") : "";
}

absl::StatusOr<TrainedComm> TrainCommModel(const CommDataset& data,
                                           NeuralCommModel::Direction direction,
                                           const TrainOptions& options) {
  SHARDPLAN_RETURN_IF_ERROR(CheckSize(data.size(), data.path));
  const bool forward = direction == NeuralCommModel::Direction::kForward;
  const int n = data.num_devices;
  const int width = forward ? 2 * n : n;
  std::vector<float> inputs = forward ? data.forward_inputs : data.backward_inputs;
  const std::vector<float>& labels = forward ? data.forward_labels : data.backward_labels;
  const Split split = SplitDataset(data.size(), options.seed);
  const FeatureStats stats = ComputeFeatureStats(inputs, width, split.train);
  SHARDPLAN_ASSIGN_OR_RETURN(FeatureNormalizer normalizer,
                             FeatureNormalizer::Create(stats.means, stats.stds));
  NormalizeRows(normalizer, inputs);

  CommObjective objective(inputs, labels, CommObjective::DefaultShape(width, n));
  SubModelReport report;
  report.samples = data.size();
  report.result = Train(objective, split, options);
  report.test_samples = split.test;
  report.test_measured = LabelsOf(objective, split.test);
  SHARDPLAN_ASSIGN_OR_RETURN(Mlp mlp, ToMlp(objective.shape(), report.result.params));
  SHARDPLAN_ASSIGN_OR_RETURN(
      NeuralCommModel model,
      NeuralCommModel::Create(n, direction, std::move(normalizer), std::move(mlp)));
  return TrainedComm{std::move(model), std::move(report)};
}

absl::StatusOr<TrainedDeviceSetComm> TrainDeviceSetCommModel(const DeviceSetCommDataset& data,
                                                             CommDirection direction,
                                                             const TrainOptions& options) {
  SHARDPLAN_RETURN_IF_ERROR(CheckSize(data.size(), absl::StrJoin(data.paths, ",")));
  const bool forward = direction == CommDirection::kForward;
  const int width = DeviceSetCommNumInputs(direction);
  // The dataset holds the forward rows; the backward inputs are their first `width` columns.
  const size_t forward_width = static_cast<size_t>(DeviceSetCommNumInputs(CommDirection::kForward));
  std::vector<float> rows;
  rows.reserve(data.forward_rows.size() / forward_width * width);
  for (size_t at = 0; at < data.forward_rows.size(); at += forward_width) {
    rows.insert(rows.end(), data.forward_rows.begin() + at, data.forward_rows.begin() + at + width);
  }
  const std::vector<float>& labels = forward ? data.forward_labels : data.backward_labels;
  // Records, then their rows.
  const Split records = SplitDataset(data.size(), options.seed);
  const Split split = RowsOfRecords(records, data.record_offsets);
  const FeatureStats stats = ComputeFeatureStats(rows, width, split.train);
  SHARDPLAN_ASSIGN_OR_RETURN(FeatureNormalizer normalizer,
                             FeatureNormalizer::Create(stats.means, stats.stds));
  NormalizeRows(normalizer, rows);

  CommObjective objective(rows, labels, MlpShape({width, 32, 32, 1}, /*relu_on_output=*/false));
  SubModelReport report;
  report.samples = static_cast<int64_t>(labels.size());
  report.result = Train(objective, split, options);
  report.test_samples = split.test;
  report.test_measured = LabelsOf(objective, split.test);
  SHARDPLAN_ASSIGN_OR_RETURN(Mlp mlp, ToMlp(objective.shape(), report.result.params));
  // The test split's MSE per layout: rows in split order, each record's rows together.
  std::vector<double> squared(data.layouts.size(), 0.0);
  std::vector<int64_t> count(data.layouts.size(), 0);
  size_t at = 0;
  for (int64_t id : records.test) {
    const int32_t layout = data.record_layout[id];
    for (int64_t r = data.record_offsets[id]; r < data.record_offsets[id + 1]; ++r, ++at) {
      const double d = report.result.test_predictions[at] - labels[r];
      squared[layout] += d * d;
      ++count[layout];
    }
  }
  std::map<std::string, double> by_layout;
  for (size_t k = 0; k < data.layouts.size(); ++k) {
    if (count[k] > 0) by_layout[data.layouts[k].name()] = squared[k] / count[k];
  }
  SHARDPLAN_ASSIGN_OR_RETURN(DeviceSetCommModel model,
                             DeviceSetCommModel::Create(direction, std::move(normalizer),
                                                        std::move(mlp), data.batch_size));
  return TrainedDeviceSetComm{std::move(model), std::move(report), std::move(by_layout)};
}

absl::StatusOr<TrainedCollectives> TrainCollectiveModel(const CollectiveDataset& data,
                                                        const TrainOptions& options) {
  SHARDPLAN_RETURN_IF_ERROR(CheckSize(data.size(), absl::StrJoin(data.paths, ",")));
  constexpr int kWidth = kNumCollectiveCallFeatures;
  // Records, then their rows (a call's members stay in one split).
  const Split records = SplitDataset(data.size(), options.seed);
  const Split split = RowsOfRecords(records, data.record_offsets);
  std::vector<float> rows = data.rows;
  const FeatureStats stats = ComputeFeatureStats(rows, kWidth, split.train);
  SHARDPLAN_ASSIGN_OR_RETURN(FeatureNormalizer normalizer,
                             FeatureNormalizer::Create(stats.means, stats.stds));
  NormalizeRows(normalizer, rows);

  CommObjective objective(rows, data.labels, MlpShape({kWidth, 32, 32, 1}, false));
  SubModelReport report;
  report.samples = static_cast<int64_t>(data.labels.size());
  report.result = Train(objective, split, options);
  report.test_samples = split.test;
  report.test_measured = LabelsOf(objective, split.test);
  SHARDPLAN_ASSIGN_OR_RETURN(Mlp mlp, ToMlp(objective.shape(), report.result.params));
  SHARDPLAN_ASSIGN_OR_RETURN(NeuralCollectiveModel model,
                             NeuralCollectiveModel::Create(std::move(normalizer), std::move(mlp)));
  return TrainedCollectives{std::move(model), std::move(report)};
}

}  // namespace shardplan::training
