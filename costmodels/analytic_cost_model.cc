#include "costmodels/analytic_cost_model.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "planner/topology.h"

namespace shardplan {
namespace {

// TorchRec expresses bandwidths in bytes per ms: GiB/s * 1024^3 / 1000.
double GiBpsToBytesPerMs(double gibps) { return gibps * kBytesPerGiB / 1000.0; }

// BasicCommsBandwidths.get_bw for ALL_TO_ALL: the intra-host links when every device shares a
// host, the inter-host links otherwise.
double AllToAllBytesPerMs(int world_size, int local_world_size, double intra_gibps,
                          double inter_gibps) {
  return GiBpsToBytesPerMs(world_size <= local_world_size ? intra_gibps : inter_gibps);
}

double BlockUsagePenalty(const AnalyticParams& params, int32_t columns) {
  if (columns >= params.full_block_dim) return 1.0;
  if (columns >= params.full_block_dim / 2) return params.half_block_penalty;
  return params.quarter_block_penalty;
}

// Bytes one device sends (or receives) in one all-to-all of the pooled outputs of
// `columns` columns: the per-rank batch times world size is the global batch.
double AllToAllBytes(const AnalyticParams& params, int64_t global_batch_size, int64_t columns) {
  return static_cast<double>(global_batch_size) * static_cast<double>(columns) *
         params.activation_bytes;
}

}  // namespace

ShardPerf EstimateShardPerf(const AnalyticParams& params, double pooling_factor,
                            int table_bytes, int32_t columns, int64_t global_batch_size,
                            int world_size, int local_world_size,
                            double intra_host_bandwidth_gibps, double inter_host_bandwidth_gibps) {
  // TorchRec's formulas multiply the per-rank batch by the world size everywhere for TW/CW
  // shards; that product is the global batch, which is what a task carries.
  const double global_inputs = pooling_factor * static_cast<double>(global_batch_size);
  const double input_read_size = std::ceil(global_inputs * params.input_bytes);
  const double embedding_lookup_size =
      global_inputs * std::max(columns, params.min_lookup_dim) * table_bytes;
  const double output_write_size = AllToAllBytes(params, global_batch_size, columns);
  const double comms_bw = AllToAllBytesPerMs(world_size, local_world_size,
                                             intra_host_bandwidth_gibps,
                                             inter_host_bandwidth_gibps);
  const double device_bw = GiBpsToBytesPerMs(params.hbm_bandwidth_gibps);

  ShardPerf perf;
  perf.fwd_comms = output_write_size / comms_bw;
  perf.fwd_compute = (input_read_size + embedding_lookup_size + output_write_size) *
                     BlockUsagePenalty(params, columns) / device_bw;
  perf.bwd_comms = output_write_size / comms_bw;
  perf.bwd_compute = perf.fwd_compute * params.bwd_compute_multiplier;
  return perf;
}

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
    const ShardPerf perf = EstimateShardPerf(
        params_, shard.table->pooling_factor, ElementBytes(shard.table->element_type),
        shard.columns, context.batch_size, topology.num_devices(), topology.local_world_size(),
        topology.intra_host_bandwidth_gibps, topology.inter_host_bandwidth_gibps);
    total += perf.fwd_compute + perf.bwd_compute;
  }
  return total;
}

std::vector<double> AnalyticCostModel::BackwardCommCosts(const CostContext& context,
                                                         std::span<const int64_t> dim_sums) const {
  const Topology& topology = *context.topology;
  const double comms_bw =
      AllToAllBytesPerMs(topology.num_devices(), topology.local_world_size(),
                         topology.intra_host_bandwidth_gibps, topology.inter_host_bandwidth_gibps);
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
