#include "planner/domain/table_access.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace shardplan {
namespace {

absl::Status Invalid(const std::string& path, absl::string_view field, absl::string_view reason) {
  return absl::InvalidArgumentError(absl::StrCat(path, ".", field, ": ", reason));
}

// top_ids, when given, is the client's rank -> id map for the top K: one distinct id per rank.
absl::Status ValidateTopIds(const TopKAccessProfile& top_k, int64_t rows,
                            const std::string& top_path) {
  if (top_k.top_ids.empty()) return absl::OkStatus();
  if (top_k.top_ids.size() != top_k.top_counts.size()) {
    return Invalid(top_path, "top_ids",
                   absl::StrCat("has ", top_k.top_ids.size(), " ids for ", top_k.top_counts.size(),
                                " top_counts: one id per rank, or none"));
  }
  absl::flat_hash_set<int64_t> seen;
  seen.reserve(top_k.top_ids.size());
  for (size_t r = 0; r < top_k.top_ids.size(); ++r) {
    const int64_t id = top_k.top_ids[r];
    if (id < 0 || id >= rows) {
      return Invalid(top_path, absl::StrCat("top_ids[", r, "]"),
                     absl::StrCat("must be a row id in [0, rows) = [0, ", rows, "), got ", id));
    }
    if (!seen.insert(id).second) {
      return Invalid(
          top_path, absl::StrCat("top_ids[", r, "]"),
          absl::StrCat("id ", id, " names an earlier rank too: ranks are distinct rows"));
    }
  }
  return absl::OkStatus();
}

RankFrequencyCurve HistogramStaircase(const Table& table, int64_t batch_size) {
  double weight = 0.0;
  double weighted_count = 0.0;
  for (int j = 0; j < kNumAccessBins; ++j) {
    weight += std::max(0.0, table.access_bins[j]);
    weighted_count += std::max(0.0, table.access_bins[j]) * BinAccessCount(j);
  }
  const double lookups = std::max(0.0, table.pooling_factor) * static_cast<double>(batch_size);
  if (weight <= 0.0 || lookups <= 0.0) return RankFrequencyCurve::Uniform(table.rows);
  const double rows = static_cast<double>(table.rows);
  const double distinct = std::clamp(lookups * weight / weighted_count, 1.0, rows);
  std::vector<RankFrequencyCurve::Step> steps;
  for (int j = kNumAccessBins - 1; j >= 0; --j) {
    const double share = std::max(0.0, table.access_bins[j]) / weight;
    const int64_t bin_rows = std::llround(distinct * share);
    if (bin_rows > 0) steps.push_back({.rows = bin_rows, .weight = BinAccessCount(j)});
  }
  return RankFrequencyCurve::Staircase(table.rows, std::move(steps));
}

}  // namespace

RankFrequencyCurve CurveOf(const Table& table, int64_t batch_size) {
  const AccessProfile& profile = table.access_profile;
  if (profile.zipf) {
    return RankFrequencyCurve::Zipf(table.rows, profile.zipf->exponent,
                                    profile.zipf->uniform_share, profile.zipf->active_rows);
  }
  if (profile.top_k) {
    const TopKAccessProfile& top_k = *profile.top_k;
    std::vector<RankFrequencyCurve::Step> steps;
    steps.reserve(top_k.top_counts.size() + 1);
    for (double count : top_k.top_counts) steps.push_back({.rows = 1, .weight = count});
    const int64_t k = static_cast<int64_t>(top_k.top_counts.size());
    const int64_t tail_rows = top_k.tail_rows > 0 ? top_k.tail_rows : table.rows - k;
    if (tail_rows > 0) {
      steps.push_back(
          {.rows = tail_rows, .weight = top_k.tail_count / static_cast<double>(tail_rows)});
    }
    return RankFrequencyCurve::Staircase(table.rows, std::move(steps));
  }
  if (table.access_bins.size() == static_cast<size_t>(kNumAccessBins)) {
    return HistogramStaircase(table, batch_size);
  }
  return RankFrequencyCurve::Uniform(table.rows);
}

std::optional<double> RankOrderedShare(const Table& table, int64_t row_offset, int64_t rows) {
  const AccessProfile& profile = table.access_profile;
  if (!profile.rows_in_rank_order || !profile.has_curve()) return std::nullopt;
  // The profile's curves do not depend on the batch (only the histogram's does).
  return CurveOf(table, 1).Share(row_offset, row_offset + rows);
}

absl::Status ValidateAccessProfile(const Table& table, const std::string& path) {
  const AccessProfile& profile = table.access_profile;
  if (profile.top_k && profile.zipf) {
    return Invalid(path, "access_profile",
                   "set top_k or zipf, not both (one profile per table)");
  }
  if (profile.rows_in_rank_order && !profile.has_curve()) {
    return Invalid(path, "access_profile.rows_in_rank_order",
                   "needs a profile (top_k or zipf) whose ranks the row ids follow");
  }
  if (profile.zipf) {
    const ZipfAccessProfile& zipf = *profile.zipf;
    const std::string zipf_path = absl::StrCat(path, ".access_profile.zipf");
    if (!(zipf.exponent >= 0 && zipf.exponent <= kMaxProfileZipfExponent)) {
      return Invalid(zipf_path, "exponent",
                     absl::StrCat("must be in [0, ", kMaxProfileZipfExponent, "], got ",
                                  zipf.exponent));
    }
    if (!(zipf.uniform_share >= 0 && zipf.uniform_share <= 1)) {
      return Invalid(zipf_path, "uniform_share",
                     absl::StrCat("must be a fraction in [0, 1], got ", zipf.uniform_share));
    }
    if (zipf.active_rows < 0 || zipf.active_rows > table.rows) {
      return Invalid(zipf_path, "active_rows",
                     absl::StrCat("must be in [0, rows] (0: every row; rows is ", table.rows,
                                  "), got ", zipf.active_rows));
    }
  }
  if (profile.top_k) {
    const TopKAccessProfile& top_k = *profile.top_k;
    const std::string top_path = absl::StrCat(path, ".access_profile.top_k");
    const int64_t k = static_cast<int64_t>(top_k.top_counts.size());
    if (k > table.rows) {
      return Invalid(top_path, "top_counts",
                     absl::StrCat(k, " counts for a table of ", table.rows, " rows"));
    }
    double total = 0.0;
    for (int64_t r = 0; r < k; ++r) {
      const double count = top_k.top_counts[r];
      if (!(count >= 0 && std::isfinite(count))) {
        return Invalid(top_path, absl::StrCat("top_counts[", r, "]"),
                       absl::StrCat("must be a finite count >= 0, got ", count));
      }
      if (r > 0 && count > top_k.top_counts[r - 1]) {
        return Invalid(top_path, absl::StrCat("top_counts[", r, "]"),
                       absl::StrCat("counts are by rank, hottest first, so they must not "
                                    "increase: ",
                                    count, " after ", top_k.top_counts[r - 1]));
      }
      total += count;
    }
    if (!(top_k.tail_count >= 0 && std::isfinite(top_k.tail_count))) {
      return Invalid(top_path, "tail_count",
                     absl::StrCat("must be a finite count >= 0, got ", top_k.tail_count));
    }
    if (top_k.tail_rows < 0 || top_k.tail_rows > table.rows - k) {
      return Invalid(top_path, "tail_rows",
                     absl::StrCat("must be in [0, rows - K] = [0, ", table.rows - k,
                                  "] (0: every row past the top K), got ", top_k.tail_rows));
    }
    const int64_t tail_rows = top_k.tail_rows > 0 ? top_k.tail_rows : table.rows - k;
    if (top_k.tail_count > 0 && tail_rows == 0) {
      return Invalid(top_path, "tail_count",
                     "the top K are every row of the table, so no tail can hold lookups");
    }
    if (k > 0 && tail_rows > 0 &&
        top_k.tail_count / static_cast<double>(tail_rows) > top_k.top_counts.back()) {
      return Invalid(top_path, "tail_count",
                     absl::StrCat("spread over ", tail_rows, " tail rows it gives ",
                                  top_k.tail_count / static_cast<double>(tail_rows),
                                  " per row, more than the last top count ",
                                  top_k.top_counts.back(), ": the ranks would not be in order"));
    }
    if (total + top_k.tail_count <= 0) {
      return Invalid(top_path, "top_counts", "every count is 0: a profile must count lookups");
    }
    if (absl::Status ids = ValidateTopIds(top_k, table.rows, top_path); !ids.ok()) return ids;
  }
  return absl::OkStatus();
}

std::vector<double> AccessBinsOfRanks(const Table& table, int64_t begin, int64_t end,
                                      int64_t batch_size) {
  if (!table.access_profile.has_curve()) return table.access_bins;
  const double lookups = table.pooling_factor * static_cast<double>(batch_size);
  const std::array<double, kNumAccessBins> rows =
      CurveOf(table, batch_size).AccessClasses(begin, end, lookups);
  const double total = std::accumulate(rows.begin(), rows.end(), 0.0);
  if (!(total > 0.0)) return table.access_bins;
  std::vector<double> bins(rows.begin(), rows.end());
  for (double& bin : bins) bin /= total;
  return bins;
}

}  // namespace shardplan
