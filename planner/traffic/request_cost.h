#ifndef SHARDPLAN_PLANNER_TRAFFIC_REQUEST_COST_H_
#define SHARDPLAN_PLANNER_TRAFFIC_REQUEST_COST_H_

// What a row -> shard map costs an inference request (docs/alis.md, "Cost"): its fan-out (the
// distinct shards it touches) and a simulated latency on one host of GPUs, one shard each.
//
// The request is served on its home shard, the one holding most of its lookups (ties: the lower
// shard). Each touched shard s looks up its n_s rows in one kernel,
//   t_s = lookup_launch_us + n_s x (row_bytes + random_access_overhead_bytes) / hbm_gbps,
// and a remote shard also sends them home,
//   t_s += fetch_latency_us + n_s x row_bytes / link_gbps;
// the shards work in parallel, but the home device issues one fetch per remote shard in turn, so
//   latency = max_s t_s + remote_issue_us x (remote shards).
// No queueing or contention between requests: a request alone on the host.

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/domain/row_shard_map.h"
#include "planner/traffic/request_batch.h"

namespace shardplan {

struct RequestLatencyModel {
  double lookup_launch_us = 4.0;
  double hbm_gbps = 1555.0;
  double random_access_overhead_bytes = 64.0;
  double fetch_latency_us = 10.0;
  double link_gbps = 225.0;
  double remote_issue_us = 2.0;
};

// One host of 8 A100 SXM4 40 GB on NVLink 3 (ALIS's testbed, papers/notes/alis.md section 5):
// the launch, HBM bandwidth and random-access overhead of groundtruth/sim's a100-sxm4 profile
// (docs/simulator.md); NVLink 3 at 300 GB/s a direction and 75% link efficiency (the same
// profile); the fetch latency (a peer-to-peer copy: launch, NVLink round trip, completion
// event) and the per-fetch issue time are ours.
RequestLatencyModel A100NvlinkHostLatencyModel();

struct RequestCost {
  int fan_out = 0;
  double latency_us = 0.0;
};

// Reusable scratch of CostOfRequest (per-shard counts), so a window allocates once.
struct RequestCostScratch {
  std::vector<int32_t> lookups;  // per shard
  std::vector<ShardId> touched;  // shards with lookups
};

// The shard that serves `key` under `map`: its assigned shard, or for a row placed nowhere yet,
// SplitMix64(key) mod shards (what a serving system does with an id it has no place for).
ShardId ServingShard(const RowShardMap& map, uint64_t key);

// The cost of one request (its keys; repeats are separate lookups). Every key must be a row of
// the map (map.Contains).
RequestCost CostOfRequest(const RowShardMap& map, std::span<const uint64_t> keys,
                          const RequestLatencyModel& model, RequestCostScratch& scratch);

// Mean and 99th percentile (base/statistics.h) over a window's requests.
struct WindowCost {
  int64_t requests = 0;
  double mean_fan_out = 0.0;
  double p99_fan_out = 0.0;
  double mean_latency_us = 0.0;
  double p99_latency_us = 0.0;
};

// Every request of `window` under `map`; INVALID_ARGUMENT naming the request and the key when a
// key is not a row of the map.
absl::StatusOr<WindowCost> CostOfWindow(const RowShardMap& map, const RequestBatch& window,
                                        const RequestLatencyModel& model);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_TRAFFIC_REQUEST_COST_H_
