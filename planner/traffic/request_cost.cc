#include "planner/traffic/request_cost.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/seeded_rng.h"
#include "base/statistics.h"

namespace shardplan {

RequestLatencyModel A100NvlinkHostLatencyModel() { return RequestLatencyModel{}; }

ShardId ServingShard(const RowShardMap& map, uint64_t key) {
  const ShardId shard = map.ShardOf(key);
  if (shard != kUnassignedShard) return shard;
  return static_cast<ShardId>(SplitMix64(key) % static_cast<uint64_t>(map.shards()));
}

RequestCost CostOfRequest(const RowShardMap& map, std::span<const uint64_t> keys,
                          const RequestLatencyModel& model, RequestCostScratch& scratch) {
  scratch.lookups.resize(map.shards(), 0);
  scratch.touched.clear();
  for (uint64_t key : keys) {
    const ShardId shard = ServingShard(map, key);
    if (scratch.lookups[shard]++ == 0) scratch.touched.push_back(shard);
  }
  ShardId home = scratch.touched.empty() ? 0 : scratch.touched.front();
  for (ShardId shard : scratch.touched) {
    if (scratch.lookups[shard] > scratch.lookups[home] ||
        (scratch.lookups[shard] == scratch.lookups[home] && shard < home)) {
      home = shard;
    }
  }
  // Row bytes per lookup: the request's mean (exact for requests over tables of one dim).
  double row_bytes = 0.0;
  for (uint64_t key : keys) row_bytes += static_cast<double>(map.RowBytesOf(key));
  if (!keys.empty()) row_bytes /= static_cast<double>(keys.size());
  const double us_per_byte_hbm = 1e-3 / model.hbm_gbps;  // GB/s -> us per byte
  const double us_per_byte_link = 1e-3 / model.link_gbps;
  RequestCost cost;
  cost.fan_out = static_cast<int>(scratch.touched.size());
  double slowest = 0.0;
  for (ShardId shard : scratch.touched) {
    const double n = scratch.lookups[shard];
    double t = model.lookup_launch_us +
               n * (row_bytes + model.random_access_overhead_bytes) * us_per_byte_hbm;
    if (shard != home) t += model.fetch_latency_us + n * row_bytes * us_per_byte_link;
    slowest = std::max(slowest, t);
    scratch.lookups[shard] = 0;
  }
  cost.latency_us = slowest + model.remote_issue_us * std::max(0, cost.fan_out - 1);
  return cost;
}

absl::StatusOr<WindowCost> CostOfWindow(const RowShardMap& map, const RequestBatch& window,
                                        const RequestLatencyModel& model) {
  RequestCostScratch scratch;
  std::vector<double> fan_outs, latencies;
  fan_outs.reserve(static_cast<size_t>(window.size()));
  latencies.reserve(static_cast<size_t>(window.size()));
  for (int64_t i = 0; i < window.size(); ++i) {
    for (uint64_t key : window[i]) {
      if (!map.Contains(key)) {
        return absl::InvalidArgumentError(absl::StrCat("requests[", i, "]: key (table ",
                                                       TableOfKey(key), ", row ", RowOfKey(key),
                                                       ") is not a row of the map"));
      }
    }
    const RequestCost cost = CostOfRequest(map, window[i], model, scratch);
    fan_outs.push_back(cost.fan_out);
    latencies.push_back(cost.latency_us);
  }
  WindowCost out;
  out.requests = window.size();
  out.mean_fan_out = Mean(fan_outs);
  out.p99_fan_out = Percentile(fan_outs, 99.0);
  out.mean_latency_us = Mean(latencies);
  out.p99_latency_us = Percentile(std::move(latencies), 99.0);
  return out;
}

}  // namespace shardplan
