#include "lab/data/table_profiler.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace shardplan {

absl::StatusOr<Table> ProfileTable(const std::string& name, std::span<const int64_t> offsets,
                                   std::span<const int64_t> indices) {
  auto invalid = [&name](const std::string& field, const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("table \"", name, "\": ", field, ": ", why));
  };
  if (offsets.size() < 2) return invalid("offsets", "needs at least 2 entries (one sample)");
  if (offsets.front() != 0) return invalid("offsets[0]", "must be 0");
  for (size_t b = 1; b < offsets.size(); ++b) {
    if (offsets[b] < offsets[b - 1]) {
      return invalid(
          absl::StrCat("offsets[", b, "]"),
          absl::StrCat(offsets[b], " is less than the previous offset ", offsets[b - 1]));
    }
  }
  if (offsets.back() != static_cast<int64_t>(indices.size())) {
    return invalid("offsets", absl::StrCat("last offset ", offsets.back(), " != number of indices ",
                                           indices.size()));
  }
  int64_t max_index = -1;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] < 0) {
      return invalid(absl::StrCat("indices[", i, "]"), absl::StrCat(indices[i], " is negative"));
    }
    max_index = std::max(max_index, indices[i]);
  }
  Table table;
  table.name = name;
  table.rows = std::max(kMinProfiledRows, indices.empty() ? int64_t{1} : max_index + 1);
  const int64_t batch = static_cast<int64_t>(offsets.size()) - 1;
  table.pooling_factor = static_cast<double>(indices.size()) / static_cast<double>(batch);
  table.access_bins = ComputeAccessBins(indices);
  return table;
}

}  // namespace shardplan
