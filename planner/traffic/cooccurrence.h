#ifndef SHARDPLAN_PLANNER_TRAFFIC_COOCCURRENCE_H_
#define SHARDPLAN_PLANNER_TRAFFIC_COOCCURRENCE_H_

// What a window of requests tells a co-occurrence planner (ALIS, docs/alis.md "Co-occurrence
// statistics"): the requests themselves as hyperedges over the rows they look up, in a local id
// space (the paper's LID mapping), sampled so that memory stays bounded whatever the window's
// length. Pair counts are the clique expansion of these hyperedges; keeping the hyperedges costs
// a request's size, not its square (325 pairs for 26 fields), and loses nothing.

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "absl/status/statusor.h"

namespace shardplan {

// The bound on what a collector keeps: at most `max_requests` requests (a uniform sample of the
// window: reservoir sampling, Algorithm R, seeded), each with at most
// `max_lookups_per_request` distinct rows (a seeded uniform subset of a longer one). So the kept
// lookups, and the distinct rows, are at most max_requests x max_lookups_per_request.
struct CooccurrenceLimits {
  int64_t max_requests = int64_t{1} << 20;
  int64_t max_lookups_per_request = 1024;
  uint64_t seed = 0;
};

struct CooccurrenceStats {
  int64_t requests_seen = 0;       // in the window
  int64_t lookups_seen = 0;        // in the window, repeats within a request counted
  int64_t truncated_requests = 0;  // kept requests cut to max_lookups_per_request
  // The distinct rows of the kept requests, ascending: a row's local id is its index here.
  std::vector<uint64_t> rows;
  std::vector<int64_t> row_requests;  // per local id: kept requests that look it up
  // The kept requests in window order (CSR over local ids, distinct within a request), and each
  // one's position in the window.
  std::vector<int64_t> request_offsets{0};
  std::vector<uint32_t> request_rows;
  std::vector<int64_t> request_positions;

  int64_t kept_requests() const { return static_cast<int64_t>(request_offsets.size()) - 1; }
  std::span<const uint32_t> Request(int64_t i) const {
    return {request_rows.data() + request_offsets[i],
            static_cast<size_t>(request_offsets[i + 1] - request_offsets[i])};
  }
  // Bytes held by the vectors above (their sizes, not capacities).
  int64_t MemoryBytes() const;
};

class CooccurrenceCollector {
 public:
  // INVALID_ARGUMENT naming the field: max_requests or max_lookups_per_request < 1, or
  // max_lookups_per_request above 2^32 (local ids are 32-bit).
  static absl::StatusOr<CooccurrenceCollector> Create(const CooccurrenceLimits& limits);

  // The next request of the window (its row keys, in any order, repeats allowed).
  void Add(std::span<const uint64_t> request);
  // The statistics of everything added; the collector is spent.
  CooccurrenceStats Finish() &&;
  // Bytes the kept requests hold now: at most max_requests x max_lookups_per_request x 8 plus
  // 32 bytes a kept request.
  int64_t MemoryBytes() const;

 private:
  explicit CooccurrenceCollector(const CooccurrenceLimits& limits);

  struct Kept {
    int64_t position = 0;
    std::vector<uint64_t> keys;  // sorted, distinct
    bool truncated = false;
  };
  CooccurrenceLimits limits_;
  std::vector<Kept> reservoir_;
  int64_t requests_seen_ = 0;
  int64_t lookups_seen_ = 0;
  int64_t kept_keys_ = 0;
  std::mt19937_64 rng_;  // the reservoir's draws, seeded by limits.seed
};

// Checks that `stats` is well formed, as a collector makes it (statistics that arrive from
// elsewhere, a request or a file, are checked before use): rows strictly ascending, one
// row_requests count per row, request offsets starting at 0 and non-decreasing up to
// request_rows' size, one position per request, every local id a row. INVALID_ARGUMENT naming
// the field and the index otherwise.
absl::Status ValidateCooccurrenceStats(const CooccurrenceStats& stats);

// The last `share` (0, 1] of the kept requests (the most recent part of the window, ALIS's alpha),
// re-indexed: rows are those the share looks up. share 1 returns a copy. The share's
// requests_seen and lookups_seen are the window's scaled by the share.
CooccurrenceStats RecentShare(const CooccurrenceStats& stats, double share);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_TRAFFIC_COOCCURRENCE_H_
