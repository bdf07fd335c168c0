#ifndef SHARDPLAN_COSTMODELS_ANALYTIC_ANALYTIC_COST_MODEL_H_
#define SHARDPLAN_COSTMODELS_ANALYTIC_ANALYTIC_COST_MODEL_H_

#include <span>
#include <string>
#include <vector>

#include "planner/domain/cost_model.h"
#include "planner/estimators/torchrec_shard_perf.h"  // AnalyticParams, the formulas it wraps

namespace shardplan {

// The embedded default cost model: TorchRec's analytic estimator behind the CostModel interface,
// for every sharding type (TW, CW, RW, TWRW, DP).
//   compute[d] = sum over d's shards of fwd_compute + bwd_compute
//   bw[d]      = backward all-to-all of d's pooled outputs (dim_sum[d] columns), plus the
//                backward collectives of d's row-level and data-parallel shards
//   fw[d]      = forward all-to-all of the same, plus their forward collectives; TorchRec has
//                no wait term, so waits are ignored
// It sees no access histogram and no kernel fusion: a first-order model that needs no data.
class AnalyticCostModel : public CostModel {
 public:
  explicit AnalyticCostModel(AnalyticParams params = {}, std::string version = "1");

  std::string id() const override;
  absl::Status CheckSupports(const Task& task) const override;
  bool CostsShardingType(ShardingType) const override { return true; }
  // Routed shards serve their requesters' lookups; a routed exchange is paid by each sender.
  bool CostsRowLayouts() const override { return true; }
  double ComputeCost(const CostContext& context,
                     std::span<const ShardView> shards) const override;
  std::vector<double> BackwardCommCosts(const CostContext& context,
                                        std::span<const int64_t> dim_sums) const override;
  std::vector<double> ForwardCommCosts(const CostContext& context,
                                       std::span<const int64_t> dim_sums,
                                       std::span<const double> waits) const override;
  CollectiveCosts CostCollectives(const CostContext& context,
                                  std::span<const CollectiveDemand> demands) const override;

  const AnalyticParams& params() const { return params_; }

 private:
  AnalyticParams params_;
  std::string version_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_COSTMODELS_ANALYTIC_ANALYTIC_COST_MODEL_H_
