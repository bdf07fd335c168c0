#include "costmodels/analytic/analytic_cost_model.h"

#include <utility>

#include "planner/domain/topology.h"

namespace shardplan {

AnalyticCostModel::AnalyticCostModel(AnalyticParams params, std::string version)
    : params_(params), version_(std::move(version)) {}

std::string AnalyticCostModel::id() const { return "analytic@" + version_; }

absl::Status AnalyticCostModel::CheckSupports(const Task& task) const {
  // The formulas hold for any device count, topology and table statistics.
  return absl::OkStatus();
}

double AnalyticCostModel::ComputeCost(const CostContext& context,
                                      std::span<const ShardView> shards) const {
  const Topology& topology = *context.topology;
  double total = 0.0;
  for (const ShardView& shard : shards) {
    const ShardPerf perf =
        IsColumnLevel(shard.sharding)
            ? EstimateShardPerf(params_, *shard.table, shard.columns, context.batch_size, topology)
            : EstimateRowLevelCompute(params_, shard, context.batch_size, topology);
    // Inference: the forward kernels only.
    total += perf.fwd_compute +
             (context.objective == Objective::kInference ? 0.0 : perf.bwd_compute);
  }
  return total;
}

CollectiveCosts AnalyticCostModel::CostCollectives(
    const CostContext& context, std::span<const CollectiveDemand> demands) const {
  const Topology& topology = *context.topology;
  const size_t n = static_cast<size_t>(topology.num_devices());
  CollectiveCosts costs{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
  const double intra_bw = CollectiveBytesPerMs(topology, Collective::kAllToAll, false);
  const double inter_bw = CollectiveBytesPerMs(topology, Collective::kAllToAll, true);
  for (const CollectiveDemand& demand : demands) {
    std::vector<double>& pass =
        demand.pass == Pass::kForward ? costs.forward_ms : costs.backward_ms;
    if (!demand.pairs.empty()) {
      // A routed exchange: each sender pays what it sends over the link each peer sits
      // behind, as TorchRec charges a shard its outputs; its local chunk moves nothing.
      for (const PairBytes& pair : demand.pairs) {
        if (pair.from == pair.to) continue;
        const bool same_host = topology.host_of(pair.from) == topology.host_of(pair.to);
        pass[static_cast<size_t>(pair.from)] += pair.bytes / (same_host ? intra_bw : inter_bw);
      }
      continue;
    }
    // TorchRec's comm terms are per shard and additive: each device pays its own share.
    const double ms = CollectiveMs(params_, demand, topology);
    for (int32_t device : demand.devices) pass[static_cast<size_t>(device)] += ms;
  }
  return costs;
}

std::vector<double> AnalyticCostModel::BackwardCommCosts(const CostContext& context,
                                                         std::span<const int64_t> dim_sums) const {
  const Topology& topology = *context.topology;
  const double comms_bw = AllToAllBytesPerMs(topology);
  std::vector<double> costs(dim_sums.size());
  for (size_t d = 0; d < dim_sums.size(); ++d) {
    costs[d] = AllToAllBytes(params_, context.batch_size, dim_sums[d]) / comms_bw;
  }
  return costs;
}

std::vector<double> AnalyticCostModel::ForwardCommCosts(const CostContext& context,
                                                        std::span<const int64_t> dim_sums,
                                                        std::span<const double> waits) const {
  // TorchRec's per-shard comm cost is additive and independent of the other devices: the
  // forward all-to-all moves the same bytes as the backward one and no wait is modelled.
  return BackwardCommCosts(context, dim_sums);
}

}  // namespace shardplan
