#ifndef SHARDPLAN_COSTMODELS_ANALYTIC_COST_MODEL_H_
#define SHARDPLAN_COSTMODELS_ANALYTIC_COST_MODEL_H_

#include <span>
#include <string>
#include <vector>

#include "planner/cost_model.h"

namespace shardplan {

// Hardware constants of TorchRec's perf estimator (torchrec/distributed/planner/constants.py).
// Bandwidths between devices come from the task's topology.
struct AnalyticParams {
  double hbm_bandwidth_gibps = 897.0;     // HBM_MEM_BW, the "fused" kernel's device bandwidth
  double bwd_compute_multiplier = 2.0;    // BWD_COMPUTE_MULTIPLIER
  double half_block_penalty = 1.15;       // 64 <= emb_dim < 128
  double quarter_block_penalty = 1.75;    // emb_dim < 64
  int32_t full_block_dim = 128;           // FULL_BLOCK_EMB_DIM
  int32_t min_lookup_dim = 32;            // lookups read at least 32 columns
  int input_bytes = 8;                    // BIGINT_DTYPE: indices are int64
  int activation_bytes = 4;               // fp32 pooled outputs in the all-to-all
};

// TorchRec's perf terms for one table-wise or column-wise shard (shard_estimators.py), in ms.
struct ShardPerf {
  double fwd_compute = 0.0;
  double fwd_comms = 0.0;
  double bwd_compute = 0.0;
  double bwd_comms = 0.0;
  double total() const { return fwd_compute + fwd_comms + bwd_compute + bwd_comms; }
};

// The perf of a shard of `columns` columns of a table with `pooling_factor` and element size
// `table_bytes`, for a global batch over `world_size` devices with `local_world_size` per host.
ShardPerf EstimateShardPerf(const AnalyticParams& params, double pooling_factor,
                            int table_bytes, int32_t columns, int64_t global_batch_size,
                            int world_size, int local_world_size,
                            double intra_host_bandwidth_gibps, double inter_host_bandwidth_gibps);

// The embedded default cost model: TorchRec's analytic estimator behind the CostModel interface.
//   compute[d] = sum over d's shards of fwd_compute + bwd_compute
//   bw[d]      = backward all-to-all of d's pooled outputs (dim_sum[d] columns)
//   fw[d]      = forward all-to-all of the same; TorchRec has no wait term, so waits are ignored
// It sees no access histogram and no kernel fusion: a first-order model that needs no data.
class AnalyticCostModel : public CostModel {
 public:
  explicit AnalyticCostModel(AnalyticParams params = {}, std::string version = "1");

  std::string id() const override;
  absl::Status CheckSupports(const Task& task) const override;
  double ComputeCost(const CostContext& context,
                     std::span<const ShardView> shards) const override;
  std::vector<double> BackwardCommCosts(const CostContext& context,
                                        std::span<const int64_t> dim_sums) const override;
  std::vector<double> ForwardCommCosts(const CostContext& context,
                                       std::span<const int64_t> dim_sums,
                                       std::span<const double> waits) const override;

  const AnalyticParams& params() const { return params_; }

 private:
  AnalyticParams params_;
  std::string version_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_COSTMODELS_ANALYTIC_COST_MODEL_H_
