#include "planner/traffic/cooccurrence.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/seeded_rng.h"

namespace shardplan {
namespace {

// The local ids of `keys` (sorted) in `rows` (sorted, holding every key).
void AppendLocalIds(const std::vector<uint64_t>& rows, std::span<const uint64_t> keys,
                    std::vector<uint32_t>& out) {
  auto from = rows.begin();
  for (uint64_t key : keys) {
    from = std::lower_bound(from, rows.end(), key);
    out.push_back(static_cast<uint32_t>(from - rows.begin()));
  }
}

}  // namespace

int64_t CooccurrenceStats::MemoryBytes() const {
  return static_cast<int64_t>(
      rows.size() * sizeof(uint64_t) + row_requests.size() * sizeof(int64_t) +
      request_offsets.size() * sizeof(int64_t) + request_rows.size() * sizeof(uint32_t) +
      request_positions.size() * sizeof(int64_t));
}

CooccurrenceCollector::CooccurrenceCollector(const CooccurrenceLimits& limits)
    : limits_(limits), rng_(limits.seed) {}

absl::StatusOr<CooccurrenceCollector> CooccurrenceCollector::Create(
    const CooccurrenceLimits& limits) {
  if (limits.max_requests < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_requests: ", limits.max_requests, " must be >= 1"));
  }
  if (limits.max_lookups_per_request < 1 ||
      limits.max_lookups_per_request > std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_lookups_per_request: ", limits.max_lookups_per_request, " is outside [1, 2^32)"));
  }
  return CooccurrenceCollector(limits);
}

void CooccurrenceCollector::Add(std::span<const uint64_t> request) {
  const int64_t position = requests_seen_++;
  lookups_seen_ += static_cast<int64_t>(request.size());
  int64_t slot = static_cast<int64_t>(reservoir_.size());
  if (slot >= limits_.max_requests) {
    slot = static_cast<int64_t>(UniformBelow(rng_, static_cast<uint64_t>(position) + 1));
    if (slot >= limits_.max_requests) return;
  }
  Kept kept{.position = position, .keys = {request.begin(), request.end()}};
  std::sort(kept.keys.begin(), kept.keys.end());
  kept.keys.erase(std::unique(kept.keys.begin(), kept.keys.end()), kept.keys.end());
  if (static_cast<int64_t>(kept.keys.size()) > limits_.max_lookups_per_request) {
    // A seeded uniform subset (partial Fisher-Yates), its own stream so the reservoir's draws
    // do not depend on which requests were long.
    std::mt19937_64 rng = SampleRng(limits_.seed, static_cast<uint64_t>(position));
    for (int64_t i = 0; i < limits_.max_lookups_per_request; ++i) {
      const uint64_t j = i + UniformBelow(rng, kept.keys.size() - i);
      std::swap(kept.keys[i], kept.keys[j]);
    }
    kept.keys.resize(limits_.max_lookups_per_request);
    kept.truncated = true;
    std::sort(kept.keys.begin(), kept.keys.end());
  }
  kept_keys_ += static_cast<int64_t>(kept.keys.size());
  if (slot == static_cast<int64_t>(reservoir_.size())) {
    reservoir_.push_back(std::move(kept));
  } else {
    kept_keys_ -= static_cast<int64_t>(reservoir_[slot].keys.size());
    reservoir_[slot] = std::move(kept);
  }
}

int64_t CooccurrenceCollector::MemoryBytes() const {
  return kept_keys_ * static_cast<int64_t>(sizeof(uint64_t)) +
         static_cast<int64_t>(reservoir_.size() * sizeof(Kept));
}

CooccurrenceStats CooccurrenceCollector::Finish() && {
  std::sort(reservoir_.begin(), reservoir_.end(),
            [](const Kept& a, const Kept& b) { return a.position < b.position; });
  CooccurrenceStats stats;
  stats.requests_seen = requests_seen_;
  stats.lookups_seen = lookups_seen_;
  stats.rows.reserve(static_cast<size_t>(kept_keys_));
  for (const Kept& kept : reservoir_) {
    stats.rows.insert(stats.rows.end(), kept.keys.begin(), kept.keys.end());
    if (kept.truncated) ++stats.truncated_requests;
  }
  std::sort(stats.rows.begin(), stats.rows.end());
  stats.rows.erase(std::unique(stats.rows.begin(), stats.rows.end()), stats.rows.end());
  stats.rows.shrink_to_fit();
  stats.row_requests.assign(stats.rows.size(), 0);
  stats.request_rows.reserve(static_cast<size_t>(kept_keys_));
  stats.request_offsets.reserve(reservoir_.size() + 1);
  stats.request_positions.reserve(reservoir_.size());
  for (Kept& kept : reservoir_) {
    AppendLocalIds(stats.rows, kept.keys, stats.request_rows);
    stats.request_offsets.push_back(static_cast<int64_t>(stats.request_rows.size()));
    stats.request_positions.push_back(kept.position);
    std::vector<uint64_t>().swap(kept.keys);
  }
  for (uint32_t lid : stats.request_rows) ++stats.row_requests[lid];
  reservoir_.clear();
  return stats;
}

absl::Status ValidateCooccurrenceStats(const CooccurrenceStats& stats) {
  for (size_t i = 1; i < stats.rows.size(); ++i) {
    if (stats.rows[i] <= stats.rows[i - 1]) {
      return absl::InvalidArgumentError(
          absl::StrCat("rows[", i, "]: not above rows[", i - 1, "] (rows must ascend strictly)"));
    }
  }
  if (stats.row_requests.size() != stats.rows.size()) {
    return absl::InvalidArgumentError(absl::StrCat("row_requests: ", stats.row_requests.size(),
                                                   " counts for ", stats.rows.size(), " rows"));
  }
  if (stats.request_offsets.empty() || stats.request_offsets.front() != 0) {
    return absl::InvalidArgumentError("request_offsets: must start at 0");
  }
  for (size_t i = 1; i < stats.request_offsets.size(); ++i) {
    if (stats.request_offsets[i] < stats.request_offsets[i - 1]) {
      return absl::InvalidArgumentError(absl::StrCat("request_offsets[", i, "]: decreases"));
    }
  }
  if (stats.request_offsets.back() != static_cast<int64_t>(stats.request_rows.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("request_offsets: ends at ", stats.request_offsets.back(),
                     ", request_rows has ", stats.request_rows.size()));
  }
  if (static_cast<int64_t>(stats.request_positions.size()) != stats.kept_requests()) {
    return absl::InvalidArgumentError(
        absl::StrCat("request_positions: ", stats.request_positions.size(), " for ",
                     stats.kept_requests(), " requests"));
  }
  for (size_t i = 0; i < stats.request_rows.size(); ++i) {
    if (stats.request_rows[i] >= stats.rows.size()) {
      return absl::InvalidArgumentError(absl::StrCat("request_rows[", i, "]: local id ",
                                                     stats.request_rows[i], " of ",
                                                     stats.rows.size(), " rows"));
    }
  }
  return absl::OkStatus();
}

CooccurrenceStats RecentShare(const CooccurrenceStats& stats, double share) {
  const int64_t kept = stats.kept_requests();
  const int64_t take = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(share * kept)), 0, kept);
  const int64_t first = kept - take;
  CooccurrenceStats recent;
  recent.requests_seen = static_cast<int64_t>(std::llround(share * stats.requests_seen));
  recent.lookups_seen = static_cast<int64_t>(std::llround(share * stats.lookups_seen));
  // The rows the share looks up, in the parent's (ascending) order.
  std::vector<uint32_t> new_id(stats.rows.size(), std::numeric_limits<uint32_t>::max());
  for (int64_t r = first; r < kept; ++r) {
    for (uint32_t lid : stats.Request(r)) new_id[lid] = 0;
  }
  for (size_t lid = 0; lid < stats.rows.size(); ++lid) {
    if (new_id[lid] == 0) {
      new_id[lid] = static_cast<uint32_t>(recent.rows.size());
      recent.rows.push_back(stats.rows[lid]);
    }
  }
  recent.row_requests.assign(recent.rows.size(), 0);
  for (int64_t r = first; r < kept; ++r) {
    for (uint32_t lid : stats.Request(r)) {
      recent.request_rows.push_back(new_id[lid]);
      ++recent.row_requests[new_id[lid]];
    }
    recent.request_offsets.push_back(static_cast<int64_t>(recent.request_rows.size()));
    recent.request_positions.push_back(stats.request_positions[r]);
  }
  return recent;
}

}  // namespace shardplan
