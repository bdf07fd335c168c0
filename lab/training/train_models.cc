#include "lab/training/train_models.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "lab/training/comm_objective.h"
#include "lab/training/compute_objective.h"
#include "lab/training/feature_stats.h"
#include "lab/training/split.h"

namespace shardplan::training {
namespace {

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
                                                 const TrainOptions& options) {
  SHARDPLAN_RETURN_IF_ERROR(CheckSize(data.size(), data.path));
  const Split split = SplitDataset(data.size(), options.seed);
  // Statistics over the distinct table configs of the training samples, first occurrence each.
  std::map<std::pair<int32_t, int32_t>, int64_t> distinct;
  for (int64_t sample : split.train) {
    for (int64_t r = data.row_offsets[sample]; r < data.row_offsets[sample + 1]; ++r) {
      distinct.emplace(data.row_keys[r], r);
    }
  }
  std::vector<int64_t> stat_rows;
  for (const auto& [key, row] : distinct) stat_rows.push_back(row);
  const FeatureStats stats = ComputeFeatureStats(data.features, kNumTableFeatures, stat_rows);
  SHARDPLAN_ASSIGN_OR_RETURN(FeatureNormalizer normalizer,
                             FeatureNormalizer::Create(stats.means, stats.stds));
  std::vector<float> features = data.features;
  NormalizeRows(normalizer, features);

  ComputeObjective objective(features, data.row_offsets, data.labels,
                             ComputeObjective::DefaultTableShape(),
                             ComputeObjective::DefaultPredShape());
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
      NeuralComputeModel::Create(std::move(normalizer), std::move(table), std::move(pred)));
  return TrainedCompute{std::move(model), std::move(report)};
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

}  // namespace shardplan::training
