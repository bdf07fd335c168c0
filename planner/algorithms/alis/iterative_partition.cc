#include "planner/algorithms/alis/iterative_partition.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "base/seeded_rng.h"

namespace shardplan::alis {
namespace {

// The requests of each local id (the transpose of the window's CSR).
struct Incidence {
  std::vector<int64_t> offsets;
  std::vector<uint32_t> requests;
};

Incidence RequestsOfRows(const CooccurrenceStats& window) {
  const size_t rows = window.rows.size();
  Incidence incidence;
  incidence.offsets.assign(rows + 1, 0);
  for (uint32_t lid : window.request_rows) ++incidence.offsets[lid + 1];
  std::partial_sum(incidence.offsets.begin(), incidence.offsets.end(), incidence.offsets.begin());
  incidence.requests.resize(window.request_rows.size());
  std::vector<int64_t> next(incidence.offsets.begin(), incidence.offsets.end() - 1);
  for (int64_t r = 0; r < window.kept_requests(); ++r) {
    for (uint32_t lid : window.Request(r))
      incidence.requests[next[lid]++] = static_cast<uint32_t>(r);
  }
  return incidence;
}

std::vector<int64_t> LoadsPerShard(std::span<const int64_t> loads,
                                   const std::vector<ShardId>& shard_of, int shards) {
  std::vector<int64_t> per_shard(shards, 0);
  for (size_t lid = 0; lid < shard_of.size(); ++lid) per_shard[shard_of[lid]] += loads[lid];
  return per_shard;
}

}  // namespace

int64_t BalanceCap(std::span<const int64_t> loads, int shards, double imbalance) {
  int64_t total = 0, largest = 0;
  for (int64_t load : loads) {
    total += load;
    largest = std::max(largest, load);
  }
  return static_cast<int64_t>(std::ceil((1.0 + imbalance) * static_cast<double>(total) / shards)) +
         largest;
}

int64_t RepairBalance(const CooccurrenceStats& window, std::span<const int64_t> loads, int shards,
                      int64_t cap, std::vector<ShardId>& shard_of) {
  std::vector<int64_t> per_shard = LoadsPerShard(loads, shard_of, shards);
  int64_t moved = 0;
  for (int s = 0; s < shards; ++s) {
    if (per_shard[s] <= cap) continue;
    std::vector<uint32_t> members;
    for (size_t lid = 0; lid < shard_of.size(); ++lid) {
      if (shard_of[lid] == s) members.push_back(static_cast<uint32_t>(lid));
    }
    std::stable_sort(members.begin(), members.end(), [&](uint32_t a, uint32_t b) {
      return window.row_requests[a] < window.row_requests[b];
    });
    for (uint32_t lid : members) {
      if (per_shard[s] <= cap) break;
      const int target = static_cast<int>(std::min_element(per_shard.begin(), per_shard.end()) -
                                          per_shard.begin());
      if (target == s) break;
      per_shard[s] -= loads[lid];
      per_shard[target] += loads[lid];
      shard_of[lid] = static_cast<ShardId>(target);
      ++moved;
    }
  }
  return moved;
}

PartitionResult IterativePartition(const CooccurrenceStats& window, std::vector<ShardId> initial,
                                   std::span<const int64_t> loads,
                                   const PartitionOptions& options) {
  const int shards = options.shards;
  const int64_t rows = static_cast<int64_t>(window.rows.size());
  PartitionResult result;
  result.shard_of = std::move(initial);
  const Incidence incidence = RequestsOfRows(window);
  // Lookups per (request, shard) under the current assignment.
  std::vector<int32_t> on_shard(static_cast<size_t>(window.kept_requests()) * shards, 0);
  for (int64_t r = 0; r < window.kept_requests(); ++r) {
    for (uint32_t lid : window.Request(r)) ++on_shard[r * shards + result.shard_of[lid]];
  }
  const int64_t cap = BalanceCap(loads, shards, options.imbalance);
  const int64_t pass_cap = BalanceCap(loads, shards, options.imbalance + options.propagation_slack);
  std::vector<int64_t> per_shard = LoadsPerShard(loads, result.shard_of, shards);
  std::vector<uint32_t> order(static_cast<size_t>(rows));
  std::iota(order.begin(), order.end(), 0u);
  std::vector<int64_t> affinity(shards);
  // Rows whose neighbourhood changed since their last visit, or that a full shard kept from a
  // better one; the others would stay put.
  std::vector<uint8_t> active(static_cast<size_t>(rows), 1);
  for (int pass = 0; pass < options.max_iterations; ++pass) {
    std::mt19937_64 rng = SampleRng(options.seed, static_cast<uint64_t>(pass));
    for (int64_t i = rows - 1; i > 0; --i) {
      std::swap(order[i], order[UniformBelow(rng, static_cast<uint64_t>(i) + 1)]);
    }
    int64_t moved = 0;
    for (uint32_t lid : order) {
      if (!active[lid]) continue;
      active[lid] = 0;
      const ShardId current = result.shard_of[lid];
      std::fill(affinity.begin(), affinity.end(), 0);
      for (int64_t k = incidence.offsets[lid]; k < incidence.offsets[lid + 1]; ++k) {
        const int32_t* counts = &on_shard[static_cast<size_t>(incidence.requests[k]) * shards];
        for (int s = 0; s < shards; ++s) affinity[s] += counts[s];
      }
      affinity[current] -= incidence.offsets[lid + 1] - incidence.offsets[lid];  // itself
      int best = current;
      bool blocked = false;  // a better shard is full: look again once rows leave it
      for (int s = 0; s < shards; ++s) {
        if (affinity[s] <= affinity[best]) continue;
        if (per_shard[s] + loads[lid] <= pass_cap) {
          best = s;
        } else {
          blocked = true;
        }
      }
      if (blocked) active[lid] = 1;
      if (best == current) continue;
      for (int64_t k = incidence.offsets[lid]; k < incidence.offsets[lid + 1]; ++k) {
        const uint32_t r = incidence.requests[k];
        int32_t* counts = &on_shard[static_cast<size_t>(r) * shards];
        --counts[current];
        ++counts[best];
        for (uint32_t neighbour : window.Request(r)) active[neighbour] = 1;
      }
      per_shard[current] -= loads[lid];
      per_shard[best] += loads[lid];
      result.shard_of[lid] = static_cast<ShardId>(best);
      ++moved;
    }
    result.iterations = pass + 1;
    result.moves += moved;
    if (static_cast<double>(moved) < options.min_moved_share * static_cast<double>(rows)) break;
  }
  result.repair_moves = RepairBalance(window, loads, shards, cap, result.shard_of);
  return result;
}

}  // namespace shardplan::alis
