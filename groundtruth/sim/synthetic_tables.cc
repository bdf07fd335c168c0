#include "groundtruth/sim/synthetic_tables.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "base/seeded_rng.h"

namespace shardplan {

Table SyntheticTable(std::mt19937_64& rng, int32_t dim, int index) {
  Table table;
  table.name = absl::StrCat("syn", index);
  table.dim = dim;
  if (Uniform01(rng) < 0.3) {
    table.rows = UniformInt(rng, 5'000'000, 12'500'000);
  } else {
    table.rows = static_cast<int64_t>(
        std::exp(std::log(100.0) + Uniform01(rng) * (std::log(5e6) - std::log(100.0))));
  }
  table.pooling_factor = std::min(193.0, std::exp(std::log(6.0) + 1.2 * StandardNormal(rng)));
  // Geometric decay over the count bins with extra mass on "accessed once", the shape of the
  // published aggregate (0.473, 0.152, 0.139, 0.112, 0.072, ...).
  const double decay = 0.3 + 0.3 * Uniform01(rng);
  const double once = 1.0 + 2.0 * Uniform01(rng);
  table.access_bins.resize(kNumAccessBins);
  double total = 0.0;
  for (int j = 0; j < kNumAccessBins; ++j) {
    table.access_bins[j] = std::pow(decay, j) * (j == 0 ? once : 1.0);
    total += table.access_bins[j];
  }
  for (double& share : table.access_bins) share /= total;
  return table;
}

std::vector<Table> SyntheticTables(std::mt19937_64& rng, int count, int32_t max_dim) {
  std::vector<int32_t> dims;
  for (int32_t dim = 4; dim <= std::max(4, max_dim); dim *= 2) dims.push_back(dim);
  std::vector<Table> tables;
  tables.reserve(count);
  for (int i = 0; i < count; ++i) {
    const int32_t dim = dims[UniformInt(rng, 0, static_cast<int64_t>(dims.size()) - 1)];
    tables.push_back(SyntheticTable(rng, dim, i));
  }
  return tables;
}

}  // namespace shardplan
