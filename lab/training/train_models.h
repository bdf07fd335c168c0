#ifndef SHARDPLAN_LAB_TRAINING_TRAIN_MODELS_H_
#define SHARDPLAN_LAB_TRAINING_TRAIN_MODELS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "costmodels/neural/neural_cost_model.h"
#include "lab/training/datasets.h"
#include "lab/training/trainer.h"

namespace shardplan::training {

// How a sub-model trained, and its test-split predictions (for the scatter plot).
struct SubModelReport {
  int64_t samples = 0;
  TrainResult result;                  // params, epochs, MSEs, s/epoch, test predictions
  std::vector<int64_t> test_samples;   // the test split: record indices in the file
  std::vector<float> test_measured;    // test_samples order, num outputs per sample
};

struct TrainedCompute {
  NeuralComputeModel model;
  SubModelReport report;
};
struct TrainedComm {
  NeuralCommModel model;
  SubModelReport report;
};
struct TrainedCollectives {
  NeuralCollectiveModel model;
  SubModelReport report;  // samples, test_samples: rows (one per record and call member); the
                          // MSEs are of ln(ms)
};
struct TrainedDeviceSetComm {
  DeviceSetCommModel model;
  SubModelReport report;  // samples, test_samples: rows (one per record and device)
  std::map<std::string, double> test_mse_by_layout;  // DeviceLayout::name() -> test MSE
};

// Splits `data` (SplitDataset with options.seed), z-scores it with statistics of the training
// split (compute: the distinct (pool index, dim) configs of its samples, like the reference's
// statistics over the augmented table set; comm: its input rows; population std), trains the
// reference architecture and returns the best-validation model. INVALID_ARGUMENT for a dataset
// with fewer than 10 samples (no test split).
// The compute model's feature set (docs/cost-models.md, "Compute feature sets"): the reference's
// raw features, or "log": FeatureTransform::kLog and the 17 bins' stds floored at 0.05, so that a
// histogram the data rarely held is not hundreds of sigmas out.
struct ComputeFeatureSet {
  FeatureTransform transform = FeatureTransform::kRaw;
  double min_bin_std = 0.0;
  // What a sample's label is the cost of: a device (the reference's) or one kernel call
  // (ComputeCalls::kPerKernelCall: every sample must be one call, ComputeDataset::multi_call).
  ComputeCalls calls = ComputeCalls::kOnePerDevice;
  static ComputeFeatureSet Raw() { return {}; }
  static ComputeFeatureSet Log() { return {FeatureTransform::kLog, 0.05}; }
};
// The compute model's training loss: the reference's squared error, or, with a positive floor,
// a relative one (RelativeLossWeights: every set's error counted relative to its cost).
// Reported MSEs and early stopping stay on the plain squared error either way.
struct ComputeLoss {
  double relative_floor_ms = 0.0;  // 0: squared error
  static ComputeLoss Relative() { return {0.1}; }
  // For the manifest: "" for the squared error, else "relative (floor F ms)".
  std::string Describe() const;
};
absl::StatusOr<TrainedCompute> TrainComputeModel(const ComputeDataset& data,
                                                 const TrainOptions& options,
                                                 ComputeFeatureSet features = {},
                                                 ComputeLoss loss = {});
absl::StatusOr<TrainedComm> TrainCommModel(const CommDataset& data,
                                           NeuralCommModel::Direction direction,
                                           const TrainOptions& options);

// The device-set comm model of `direction`: records split 80/10/10 (SplitDataset over records,
// so a record's devices stay in one split), z-scored with the training rows' statistics, an MLP
// in->32->32->1 trained on every row.
// The collective model: records split 80/10/10 (a call's members stay in one split), z-scored
// with the training rows' statistics, an MLP 16->32->32->1 on ln(ms) of every row.
absl::StatusOr<TrainedCollectives> TrainCollectiveModel(const CollectiveDataset& data,
                                                       const TrainOptions& options);

absl::StatusOr<TrainedDeviceSetComm> TrainDeviceSetCommModel(const DeviceSetCommDataset& data,
                                                             CommDirection direction,
                                                             const TrainOptions& options);

}  // namespace shardplan::training

#endif  // SHARDPLAN_LAB_TRAINING_TRAIN_MODELS_H_
