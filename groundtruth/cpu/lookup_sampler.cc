#include "groundtruth/cpu/lookup_sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/seeded_rng.h"

namespace shardplan {
namespace {

// Rows per bin for U distinct rows: n_j = round(p_j * U), at least one row overall.
std::vector<int64_t> RowsPerBin(const std::vector<double>& p, int64_t distinct) {
  std::vector<int64_t> n(p.size());
  int64_t total = 0;
  for (size_t j = 0; j < p.size(); ++j) {
    n[j] = std::llround(p[j] * static_cast<double>(distinct));
    total += n[j];
  }
  if (total == 0) n[std::max_element(p.begin(), p.end()) - p.begin()] = 1;
  return n;
}

double ExpectedLookups(const std::vector<double>& p, int64_t distinct) {
  const std::vector<int64_t> n = RowsPerBin(p, distinct);
  double total = 0.0;
  for (size_t j = 0; j < n.size(); ++j) {
    const AccessBinRange r = AccessBinRangeOf(static_cast<int>(j));
    total += static_cast<double>(n[j]) * 0.5 * static_cast<double>(r.lo + 1 + r.hi);
  }
  return total;
}

// `count` distinct values of [0, n), in a seeded order (Floyd's algorithm, or a partial
// Fisher-Yates shuffle when the sample is a large part of the range).
std::vector<int64_t> DistinctRows(int64_t n, int64_t count, std::mt19937_64& rng) {
  std::vector<int64_t> out;
  out.reserve(count);
  if (count * 2 >= n) {
    std::vector<int64_t> all(n);
    std::iota(all.begin(), all.end(), 0);
    for (int64_t i = 0; i < count; ++i) {
      std::swap(all[i], all[i + static_cast<int64_t>(UniformBelow(rng, n - i))]);
      out.push_back(all[i]);
    }
    return out;
  }
  std::unordered_set<int64_t> seen;
  seen.reserve(count * 2);
  for (int64_t j = n - count; j < n; ++j) {
    const int64_t t = static_cast<int64_t>(UniformBelow(rng, j + 1));
    const int64_t pick = seen.insert(t).second ? t : j;
    if (pick == j) seen.insert(j);
    out.push_back(pick);
  }
  return out;
}

}  // namespace

AccessBinRange AccessBinRangeOf(int bin) {
  if (bin == 0) return {0, 1};
  if (bin >= kNumAccessBins - 1) return {int64_t{1} << 15, int64_t{1} << 16};
  return {int64_t{1} << (bin - 1), int64_t{1} << bin};
}

absl::StatusOr<SampledLookups> SampleTableLookups(const Table& table, int64_t rows,
                                                int64_t batch_size, std::mt19937_64& rng) {
  if (rows < 1 || batch_size < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("rows and batch_size must be >= 1, got ", rows, " and ", batch_size));
  }
  if (!std::isfinite(table.pooling_factor) || table.pooling_factor < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("table ", table.name, ": pooling_factor must be finite and >= 0"));
  }
  if (!table.access_bins.empty() && table.access_bins.size() != kNumAccessBins) {
    return absl::InvalidArgumentError(absl::StrCat("table ", table.name, ": expected ",
                                                   kNumAccessBins, " access bins, got ",
                                                   table.access_bins.size()));
  }
  const int64_t target = std::llround(table.pooling_factor * static_cast<double>(batch_size));
  std::vector<double> p = table.access_bins;
  double mass = 0.0;
  for (double x : p) {
    if (!std::isfinite(x) || x < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("table ", table.name, ": access bins must be finite and >= 0"));
    }
    mass += x;
  }

  // The multiset of accessed rows, as (row, access count).
  std::vector<int64_t> pool_rows;
  std::vector<int64_t> counts;
  if (target > 0 && mass <= 0.0) {
    pool_rows.reserve(target);
    for (int64_t i = 0; i < target; ++i) {
      pool_rows.push_back(static_cast<int64_t>(UniformBelow(rng, rows)));
    }
    counts.assign(target, 1);
  } else if (target > 0) {
    for (double& x : p) x /= mass;
    // Smallest U in [1, rows] whose expected total reaches the target (monotone in U).
    int64_t lo = 1;
    int64_t hi = rows;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (ExpectedLookups(p, mid) >= static_cast<double>(target)) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    const std::vector<int64_t> per_bin = RowsPerBin(p, lo);
    const int64_t distinct = std::min<int64_t>(
        rows, std::accumulate(per_bin.begin(), per_bin.end(), int64_t{0}));
    pool_rows = DistinctRows(rows, distinct, rng);
    counts.reserve(distinct);
    for (int j = 0; j < kNumAccessBins && static_cast<int64_t>(counts.size()) < distinct; ++j) {
      const AccessBinRange r = AccessBinRangeOf(j);
      for (int64_t k = 0; k < per_bin[j] && static_cast<int64_t>(counts.size()) < distinct;
           ++k) {
        counts.push_back(r.lo + 1 + static_cast<int64_t>(UniformBelow(rng, r.hi - r.lo)));
      }
    }
    const int64_t drawn = std::accumulate(counts.begin(), counts.end(), int64_t{0});
    if (std::abs(static_cast<double>(drawn - target)) > 0.02 * static_cast<double>(target)) {
      const double scale = static_cast<double>(target) / static_cast<double>(drawn);
      for (int64_t& c : counts) {
        c = std::max<int64_t>(1, std::llround(static_cast<double>(c) * scale));
      }
    }
  }

  SampledLookups out;
  for (size_t i = 0; i < counts.size(); ++i) {
    out.indices.insert(out.indices.end(), counts[i], pool_rows[i]);
  }
  const int64_t total = static_cast<int64_t>(out.indices.size());
  for (int64_t i = total - 1; i > 0; --i) {
    std::swap(out.indices[i], out.indices[static_cast<int64_t>(UniformBelow(rng, i + 1))]);
  }
  // Multinomial bag lengths: each lookup goes to a uniformly random sample.
  out.offsets.assign(batch_size + 1, 0);
  for (int64_t i = 0; i < total; ++i) {
    ++out.offsets[1 + static_cast<int64_t>(UniformBelow(rng, batch_size))];
  }
  std::partial_sum(out.offsets.begin(), out.offsets.end(), out.offsets.begin());
  return out;
}

}  // namespace shardplan
