#ifndef SHARDPLAN_COSTMODELS_NEURAL_NEURAL_COST_MODEL_H_
#define SHARDPLAN_COSTMODELS_NEURAL_NEURAL_COST_MODEL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "costmodels/neural/access_shapes.h"
#include "costmodels/neural/collective_model.h"
#include "costmodels/neural/device_set_comm_model.h"
#include "costmodels/neural/latent_memo.h"
#include "costmodels/neural/table_features.h"
#include "nn/mlp.h"
#include "planner/domain/cost_model.h"

namespace shardplan {

// The reference's ComputeCostNet (docs/design.md section 7.3), a DeepSets
// sum-pool: each shard's 20 z-scored features go through the table MLP (20->128->32, ReLU after
// both layers), the 32-d outputs are summed over the device's shards, and the pred MLP
// (32->64->1, no output activation) gives the device's fwd+bwd kernel ms. The result can be
// negative, as in the reference.
//
// Table latents are memoised process-wide per (table features, columns) in a LatentMemo shared
// by copies of the model; results are bit-identical with and without it.
// How a device's shards become what the compute model costs: kOnePerDevice (the reference's, and
// every bundle up to version 6): one pred MLP over the sum of all its shards' latents;
// kPerKernelCall: one per fused kernel call (KernelCallKey: the column level, row-wise,
// table-row-wise, data-parallel per replica count), summed, as TorchRec runs one lookup module
// per sharding type and the simulator measures them (a model trained on calls of one family
// cannot tell from one latent sum that a device runs two calls, each with its own overhead).
enum class ComputeCalls { kOnePerDevice, kPerKernelCall };
const char* ComputeCallsName(ComputeCalls calls);  // "device" / "kernel_call"
bool ParseComputeCalls(std::string_view name, ComputeCalls* calls);

class NeuralComputeModel : public SumPooledCompute {
 public:
  // Latents kept by default: a few thousand (table, dim) pairs cover a large task, and each
  // entry is about 250 bytes, so 64K entries bound the memo near 16 MB per model.
  static constexpr size_t kDefaultLatentMemoCapacity = size_t{1} << 16;

  // INVALID_ARGUMENT unless the normaliser has kNumTableFeatures entries, the table MLP takes
  // kNumTableFeatures inputs and has ReLU on its output, the pred MLP takes the table MLP's
  // output size and gives 1 value without output activation. `latent_memo_capacity` 0 turns
  // the memo off.
  // `transform` maps the raw features to the model's inputs before the normaliser (kRaw: the
  // reference's). `features` says what a shard is described by (kReference: its table's 20
  // features; kServed: what it serves, 21): the normaliser and the table MLP take that many.
  static absl::StatusOr<NeuralComputeModel> Create(
      FeatureNormalizer normalizer, Mlp table_mlp, Mlp pred_mlp,
      size_t latent_memo_capacity = kDefaultLatentMemoCapacity,
      FeatureTransform transform = FeatureTransform::kRaw,
      ShardFeatureSet features = ShardFeatureSet::kReference,
      ComputeCalls calls = ComputeCalls::kOnePerDevice);

  // Cost (ms) of one device holding `shards`, each described by the model's feature set (the
  // reference's: "dim" each shard's column count, "row" its table's row count), as one call or
  // one per kernel call (calls()). Thread-safe; allocation-free after a thread's first calls
  // (memo inserts aside).
  double Predict(std::span<const ShardView> shards) const;

  // The table MLP's output for one shard (latent_size() floats).
  void ShardLatentOf(const ShardView& shard, std::span<float> latent) const;
  // The table MLP's output for `table` seen with `columns` columns: a whole table, or a
  // column-wise shard of it (latent_size() floats).
  void TableLatent(const Table& table, int32_t columns, std::span<float> latent) const;
  // The pred MLP on a summed latent.
  double PredictFromLatentSum(std::span<const float> latent_sum) const;
  // Cost (ms) of one device holding shards given by their raw features (rows of
  // num_features() floats, the feature set's order), as cost data stores them. Bypasses the memo.
  double PredictFromFeatures(std::span<const float> raw_rows) const;

  int latent_size() const override { return table_mlp_.output_size(); }
  // SumPooledCompute: TableLatent of the shard's table at its columns, and the pred MLP.
  void ShardLatent(const CostContext& context, const ShardView& shard,
                   std::span<float> latent) const override {
    ShardLatentOf(shard, latent);
  }
  double CostOfLatentSum(std::span<const float> latent_sum) const override {
    return PredictFromLatentSum(latent_sum);
  }
  const FeatureNormalizer& normalizer() const { return normalizer_; }
  FeatureTransform feature_transform() const { return transform_; }
  ShardFeatureSet feature_set() const { return features_; }
  ComputeCalls calls() const { return calls_; }
  int num_features() const { return NumShardFeatures(features_); }
  const Mlp& table_mlp() const { return table_mlp_; }
  const Mlp& pred_mlp() const { return pred_mlp_; }
  // Null when the memo is off.
  const LatentMemo* latent_memo() const { return memo_.get(); }

 private:
  NeuralComputeModel(FeatureNormalizer normalizer, Mlp table_mlp, Mlp pred_mlp,
                     std::shared_ptr<LatentMemo> memo, FeatureTransform transform,
                     ShardFeatureSet features, ComputeCalls calls);

  // The table MLP on raw features (normalised here into scratch).
  void LatentOfFeatures(const LatentMemo::Key& raw, std::span<float> latent) const;
  // The memoised latent of raw features.
  void LatentOfKey(const LatentMemo::Key& raw, std::span<float> latent) const;

  FeatureNormalizer normalizer_;
  Mlp table_mlp_;
  Mlp pred_mlp_;
  std::shared_ptr<LatentMemo> memo_;
  FeatureTransform transform_;
  ShardFeatureSet features_;
  ComputeCalls calls_;
};

// The reference's CommCostNet for one device count N: an MLP (in->128->64->32->16->N in the
// reference; any widths here) on z-scored raw inputs. The forward model's input is
// [dim_sums (N), waits (N)], the backward model's [dim_sums (N)]; the output is per-device ms.
class NeuralCommModel {
 public:
  using Direction = CommDirection;

  // INVALID_ARGUMENT unless num_devices > 0, the MLP takes N (backward) or 2N (forward) inputs
  // and gives N outputs with no output activation, and the normaliser has one entry per input.
  static absl::StatusOr<NeuralCommModel> Create(int num_devices, Direction direction,
                                                FeatureNormalizer normalizer, Mlp mlp);

  int num_devices() const { return num_devices_; }
  Direction direction() const { return direction_; }
  const FeatureNormalizer& normalizer() const { return normalizer_; }
  const Mlp& mlp() const { return mlp_; }

  // Per-device ms. `dim_sums` has num_devices() entries; `waits` too for the forward model and
  // is ignored by the backward one. Thread-safe.
  std::vector<double> Predict(std::span<const int64_t> dim_sums,
                              std::span<const double> waits) const;

 private:
  NeuralCommModel(int num_devices, Direction direction, FeatureNormalizer normalizer, Mlp mlp);

  int num_devices_;
  Direction direction_;
  FeatureNormalizer normalizer_;
  Mlp mlp_;
};

// The forward and backward comm models of one device count.
struct NeuralCommModels {
  NeuralCommModel forward;
  NeuralCommModel backward;
};

// A neural bundle behind planner's CostModel: one compute model and comm models per device
// count (docs/design.md section 3.1), and/or one pair of device-set comm models for any device
// count and host layout; a fixed-N pair wins for its N. Immutable after Create and safe to call
// from many threads.
//
// Its compute costs read the tables' access histograms (ReadsAccessHistograms): the server
// imputes a missing one before planning, with a warning in the plan. A table that reaches the
// model without one anyway is costed with all 17 bins zero (the features of an empty
// histogram). Comm queries for a device count no comm model covers (which CheckSupports
// refuses) return NaN per device.
//
// A bundle trained where there is no interconnect (the cpu backend measures kernels only) has
// CommCosts::kZero: no comm models, every device count supported, comm costs 0.
class NeuralCostModel : public CostModel {
 public:
  enum class CommCosts { kNeural, kZero };

  // INVALID_ARGUMENT when name or version is empty, or a map key is not the device count of
  // both its models, or a forward/backward model sits in the other slot, or comm models are
  // given with CommCosts::kZero.
  // `training_range`: the raw features the compute model was trained on (the manifest's
  // record), which OutsideTrainingRange checks tables against; none for bundles that predate it.
  // `device_set_comm`: comm models for every device count without a fixed-N pair.
  // `collectives`: the model of row-level and data-parallel shards' collectives; with a compute
  // model on the kServed feature set it makes the model cost every sharding type. INVALID_ARGUMENT
  // when given with CommCosts::kZero (no interconnect was measured).
  static absl::StatusOr<NeuralCostModel> Create(
      std::string name, std::string version, NeuralComputeModel compute,
      std::map<int, NeuralCommModels> comm, CommCosts comm_costs = CommCosts::kNeural,
      std::optional<TableFeatureRange> training_range = std::nullopt,
      std::optional<DeviceSetCommModels> device_set_comm = std::nullopt,
      std::optional<NeuralCollectiveModel> collectives = std::nullopt);

  // `model` with the access-shape summary of its compute data recorded (the manifest's
  // compute.access_shapes), which OutsideTrainingRange checks tables' histograms against;
  // nullopt records none (bundles that predate it never flag by shape). INVALID_ARGUMENT naming
  // the model when CheckAccessShapeSummary refuses the summary.
  static absl::StatusOr<NeuralCostModel> WithAccessShapes(
      NeuralCostModel model, std::optional<AccessShapeSummary> access_shapes);

  std::string id() const override;  // "name@version"
  // FAILED_PRECONDITION naming the device count when no comm models cover it.
  absl::Status CheckSupports(const Task& task) const override;
  bool ReadsAccessHistograms() const override { return true; }
  // The table at its full dim against the training range, and its access histogram against
  // the training histograms, for what the bundle records.
  std::vector<std::string> OutsideTrainingRange(const Table& table) const override;
  // Only for a task the device-set comm models cost (no fixed-N pair for its device count):
  // outside the trained device counts, devices per host or host counts.
  std::string OutsideTrainedTopology(const Topology& topology) const override;
  const SumPooledCompute* sum_pooled_compute() const override { return &compute_; }
  // Every type when the compute model describes shards by what they serve (kServed) and a
  // collective model costs what row-level and data-parallel shards cause; else the column level,
  // as the reference's models.
  bool CostsShardingType(ShardingType type) const override;
  double ComputeCost(const CostContext& context, std::span<const ShardView> shards) const override;
  std::vector<double> BackwardCommCosts(const CostContext& context,
                                        std::span<const int64_t> dim_sums) const override;
  std::vector<double> ForwardCommCosts(const CostContext& context,
                                       std::span<const int64_t> dim_sums,
                                       std::span<const double> waits) const override;
  // The collective model's per-device times; the default (NaN where charged) without one.
  CollectiveCosts CostCollectives(const CostContext& context,
                                  std::span<const CollectiveDemand> demands) const override;

  const NeuralComputeModel& compute() const { return compute_; }
  const std::optional<NeuralCollectiveModel>& collectives() const { return collectives_; }
  const std::map<int, NeuralCommModels>& comm() const { return comm_; }
  const std::optional<DeviceSetCommModels>& device_set_comm() const { return device_set_comm_; }
  CommCosts comm_costs() const { return comm_costs_; }
  const std::optional<TableFeatureRange>& training_range() const { return training_range_; }
  const std::optional<AccessShapeSummary>& access_shapes() const { return access_shapes_; }

 private:
  NeuralCostModel(std::string name, std::string version, NeuralComputeModel compute,
                  std::map<int, NeuralCommModels> comm, CommCosts comm_costs,
                  std::optional<TableFeatureRange> training_range,
                  std::optional<DeviceSetCommModels> device_set_comm,
                  std::optional<NeuralCollectiveModel> collectives);

  // The fixed-N pair for the device count when there is one, else the device-set model.
  std::vector<double> PredictComm(const CostContext& context, CommDirection direction,
                                  std::span<const int64_t> dim_sums,
                                  std::span<const double> waits) const;

  std::string name_;
  std::string version_;
  NeuralComputeModel compute_;
  std::map<int, NeuralCommModels> comm_;
  CommCosts comm_costs_;
  std::optional<TableFeatureRange> training_range_;
  std::optional<DeviceSetCommModels> device_set_comm_;
  std::optional<NeuralCollectiveModel> collectives_;
  std::optional<AccessShapeSummary> access_shapes_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_COSTMODELS_NEURAL_NEURAL_COST_MODEL_H_
