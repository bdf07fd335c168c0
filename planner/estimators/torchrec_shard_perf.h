#ifndef SHARDPLAN_PLANNER_ESTIMATORS_TORCHREC_SHARD_PERF_H_
#define SHARDPLAN_PLANNER_ESTIMATORS_TORCHREC_SHARD_PERF_H_

// TorchRec's per-shard perf estimator (torchrec/distributed/planner/shard_estimators.py) for
// every sharding type it shares with shardplan: table-wise and column-wise shards, and the
// compute of row-wise, table-row-wise and data-parallel shards with the time of the collectives
// they cause (planner/domain/sharding_semantics.h). The torchrec planner plans with it and
// costmodels' AnalyticCostModel wraps the same formulas as a CostModel, so it sits below both.

#include <cstdint>

#include "planner/domain/sharding_semantics.h"
#include "planner/domain/table.h"
#include "planner/domain/topology.h"

namespace shardplan {

// Hardware constants of TorchRec's perf estimator (torchrec/distributed/planner/constants.py).
// Bandwidths between devices come from the task's topology.
struct AnalyticParams {
  double hbm_bandwidth_gibps = 897.0;   // HBM_MEM_BW, the "fused" kernel's device bandwidth
  double bwd_compute_multiplier = 2.0;  // BWD_COMPUTE_MULTIPLIER
  double half_block_penalty = 1.15;     // 64 <= emb_dim < 128
  double quarter_block_penalty = 1.75;  // emb_dim < 64
  int32_t full_block_dim = 128;         // FULL_BLOCK_EMB_DIM
  int32_t min_lookup_dim = 32;          // lookups read at least 32 columns
  int input_bytes = 8;                  // BIGINT_DTYPE: indices are int64
  // Pooled outputs in every collective are fp32 (TorchRec: the table's element size unless a
  // comms codec says otherwise; the reference's all-to-all and shardplan's are fp32).
  int activation_bytes = kActivationBytes;
  double batched_copy_perf_factor = 2.455;     // BATCHED_COPY_PERF_FACTOR (RW, TWRW backward)
  double dp_elementwise_perf_factor = 9.22;    // DP_ELEMENTWISE_KERNELS_PERF_FACTOR (optimizer)
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
// `outputs_per_sample`: 1 for a pooled table, L for a sequence table (B x L x D outputs).
ShardPerf EstimateShardPerf(const AnalyticParams& params, double pooling_factor, int table_bytes,
                            int32_t columns, int64_t global_batch_size, int world_size,
                            int local_world_size, double intra_host_bandwidth_gibps,
                            double inter_host_bandwidth_gibps, double outputs_per_sample = 1.0);

// The same for a shard of `table` in a task with `global_batch_size` on `topology`: the one
// place that reads the estimator's inputs off a task, for the cost model and the planner alike.
ShardPerf EstimateShardPerf(const AnalyticParams& params, const Table& table, int32_t columns,
                            int64_t global_batch_size, const Topology& topology);

// The compute terms (fwd_compute, bwd_compute; comms 0) of a ROW_WISE, TABLE_ROW_WISE or
// DATA_PARALLEL shard for a global batch of `global_batch_size` on `topology`
// (_get_{rw,twrw,dp}_sharding_perf); its comms are its table's collectives' (CollectiveMs).
ShardPerf EstimateRowLevelCompute(const AnalyticParams& params, const ShardView& shard,
                                  int64_t global_batch_size, const Topology& topology);

// BasicCommsBandwidths.get_bw in bytes per ms: ALL_REDUCE runs at the topology's all-reduce
// bandwidth; the others over the intra-host links when their group sits on one host, the
// inter-host links when it crosses hosts.
double CollectiveBytesPerMs(const Topology& topology, Collective collective, bool crosses_hosts);

// The time (ms) `demand` charges each of its devices: its bytes over the collective's
// bandwidth, plus what TorchRec books with it (the batched copy after a backward all-gather;
// for the all-reduce, NCCL's (2n-1)/n ring factor over min(hosts, 2) nodes, doubled past two
// hosts, and the optimizer's element-wise kernels).
double CollectiveMs(const AnalyticParams& params, const CollectiveDemand& demand,
                    const Topology& topology);

// BasicCommsBandwidths.get_bw for ALL_TO_ALL, in bytes per ms: the intra-host links when every
// device shares a host, the inter-host links otherwise.
double AllToAllBytesPerMs(const Topology& topology);

// Bytes one device sends (or receives) in one all-to-all of the pooled outputs of `columns`
// columns: the per-rank batch times world size is the global batch.
double AllToAllBytes(const AnalyticParams& params, int64_t global_batch_size, int64_t columns);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_ESTIMATORS_TORCHREC_SHARD_PERF_H_
