#include "costmodels/access/access_histogram.h"

#include <algorithm>
#include <bit>

#include "planner/domain/table.h"

namespace shardplan {

int AccessBinOf(int64_t count) {
  // (2^(j-1), 2^j] is the bin of every count whose ceil(log2) is j.
  if (count <= 1) return 0;
  const int j = static_cast<int>(std::bit_width(static_cast<uint64_t>(count - 1)));
  return std::min(j, kNumAccessBins - 1);
}

std::vector<double> ComputeAccessBins(std::span<const int64_t> indices) {
  std::vector<double> bins(kNumAccessBins, 0.0);
  if (indices.empty()) return bins;
  std::vector<int64_t> sorted(indices.begin(), indices.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> rows_per_bin(kNumAccessBins, 0);
  int64_t distinct = 0;
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
    ++rows_per_bin[AccessBinOf(static_cast<int64_t>(j - i))];
    ++distinct;
    i = j;
  }
  for (int b = 0; b < kNumAccessBins; ++b) {
    bins[b] = static_cast<double>(rows_per_bin[b]) / static_cast<double>(distinct);
  }
  return bins;
}

}  // namespace shardplan
