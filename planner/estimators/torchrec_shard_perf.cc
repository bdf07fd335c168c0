#include "planner/estimators/torchrec_shard_perf.h"

#include <algorithm>
#include <cmath>

namespace shardplan {
namespace {

// TorchRec expresses bandwidths in bytes per ms: GiB/s * 1024^3 / 1000.
double GiBpsToBytesPerMs(double gibps) { return gibps * kBytesPerGiB / 1000.0; }

double AllToAllBytesPerMs(int world_size, int local_world_size, double intra_gibps,
                          double inter_gibps) {
  return GiBpsToBytesPerMs(world_size <= local_world_size ? intra_gibps : inter_gibps);
}

double BlockUsagePenalty(const AnalyticParams& params, int32_t columns) {
  if (columns >= params.full_block_dim) return 1.0;
  if (columns >= params.full_block_dim / 2) return params.half_block_penalty;
  return params.quarter_block_penalty;
}

}  // namespace

double AllToAllBytesPerMs(const Topology& topology) {
  return AllToAllBytesPerMs(topology.num_devices(), topology.local_world_size(),
                            topology.intra_host_bandwidth_gibps,
                            topology.inter_host_bandwidth_gibps);
}

double AllToAllBytes(const AnalyticParams& params, int64_t global_batch_size, int64_t columns) {
  return static_cast<double>(global_batch_size) * static_cast<double>(columns) *
         params.activation_bytes;
}

ShardPerf EstimateShardPerf(const AnalyticParams& params, double pooling_factor, int table_bytes,
                            int32_t columns, int64_t global_batch_size, int world_size,
                            int local_world_size, double intra_host_bandwidth_gibps,
                            double inter_host_bandwidth_gibps, double outputs_per_sample) {
  // TorchRec's formulas multiply the per-rank batch by the world size everywhere for TW/CW
  // shards; that product is the global batch, which is what a task carries.
  const double global_inputs = pooling_factor * static_cast<double>(global_batch_size);
  const double input_read_size = std::ceil(global_inputs * params.input_bytes);
  const double embedding_lookup_size =
      global_inputs * std::max(columns, params.min_lookup_dim) * table_bytes;
  const double output_write_size =
      AllToAllBytes(params, global_batch_size, columns) * outputs_per_sample;
  const double comms_bw = AllToAllBytesPerMs(
      world_size, local_world_size, intra_host_bandwidth_gibps, inter_host_bandwidth_gibps);
  const double device_bw = GiBpsToBytesPerMs(params.hbm_bandwidth_gibps);

  ShardPerf perf;
  perf.fwd_comms = output_write_size / comms_bw;
  perf.fwd_compute = (input_read_size + embedding_lookup_size + output_write_size) *
                     BlockUsagePenalty(params, columns) / device_bw;
  perf.bwd_comms = output_write_size / comms_bw;
  perf.bwd_compute = perf.fwd_compute * params.bwd_compute_multiplier;
  return perf;
}

ShardPerf EstimateShardPerf(const AnalyticParams& params, const Table& table, int32_t columns,
                            int64_t global_batch_size, const Topology& topology) {
  return EstimateShardPerf(params, table.pooling_factor, ElementBytes(table.element_type), columns,
                           global_batch_size, topology.num_devices(), topology.local_world_size(),
                           topology.intra_host_bandwidth_gibps,
                           topology.inter_host_bandwidth_gibps, OutputsPerSample(table));
}

ShardPerf EstimateRowLevelCompute(const AnalyticParams& params, const ShardView& shard,
                                  int64_t global_batch_size, const Topology& topology) {
  const Table& table = *shard.table;
  const double batch = static_cast<double>(global_batch_size);
  const int table_bytes = ElementBytes(table.element_type);
  // RW / TWRW: the shard's share of every lookup, partial sums for the whole batch.
  // DP: the device's own batch, all of it looked up locally.
  const double inputs = table.pooling_factor * batch * LookupShare(shard);
  // A sequence table's shard writes every row it looked up (B x L x D), not pooled sums.
  const double outputs = table.pooling == Pooling::kSequence
                             ? inputs
                             : batch * BatchShare(shard, topology.num_devices());
  const double input_read_size = std::ceil(inputs * params.input_bytes);
  const double embedding_lookup_size = inputs * shard.columns * table_bytes;
  // DP writes its outputs locally in the table's type; the others feed a reduce-scatter.
  const int output_bytes =
      shard.sharding == ShardingType::kDataParallel ? table_bytes : params.activation_bytes;
  const double output_write_size = outputs * shard.columns * output_bytes;
  ShardPerf perf;
  perf.fwd_compute = (input_read_size + embedding_lookup_size + output_write_size) /
                     GiBpsToBytesPerMs(params.hbm_bandwidth_gibps);
  perf.bwd_compute = perf.fwd_compute * params.bwd_compute_multiplier;
  return perf;
}

double CollectiveBytesPerMs(const Topology& topology, Collective collective, bool crosses_hosts) {
  if (collective == Collective::kAllReduce) {
    return GiBpsToBytesPerMs(topology.all_reduce_bandwidth());
  }
  return GiBpsToBytesPerMs(crosses_hosts ? topology.inter_host_bandwidth_gibps
                                         : topology.intra_host_bandwidth_gibps);
}

double CollectiveMs(const AnalyticParams& params, const CollectiveDemand& demand,
                    const Topology& topology) {
  const double device_bw = GiBpsToBytesPerMs(params.hbm_bandwidth_gibps);
  const double link_bw = CollectiveBytesPerMs(topology, demand.collective, demand.crosses_hosts);
  switch (demand.collective) {
    case Collective::kAllToAll:
    case Collective::kReduceScatter:
      return demand.bytes / link_bw;
    case Collective::kAllGather:
      return demand.bytes / link_bw + demand.bytes * params.batched_copy_perf_factor / device_bw;
    case Collective::kAllReduce: {
      const double world = topology.num_devices();
      const double local = topology.local_world_size();
      const double nodes = std::min(world / local, 2.0);
      double all_reduce = demand.bytes * (2 * nodes - 1) / nodes / link_bw;
      if (world > 2 * local) all_reduce *= 2;  // the inter-host constraint
      return all_reduce + demand.bytes * params.dp_elementwise_perf_factor / device_bw;
    }
  }
  return 0.0;
}

}  // namespace shardplan
