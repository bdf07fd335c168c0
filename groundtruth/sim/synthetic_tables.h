#ifndef SHARDPLAN_GROUNDTRUTH_SIM_SYNTHETIC_TABLES_H_
#define SHARDPLAN_GROUNDTRUTH_SIM_SYNTHETIC_TABLES_H_

#include <cstdint>
#include <random>
#include <vector>

#include "planner/domain/table.h"

namespace shardplan {

// A DLRM-like table for the simulator's self-checks (its tests and shardplan-sim-report), so
// they need no data file: rows 30% uniform in [5M, 12.5M] else log-uniform in [100, 5M]
// (mean ~3M; the published mean is 4.1M), pooling factor exp(N(ln 6, 1.2)) capped at 193
// (mean ~12; published 15), and an access histogram decaying geometrically over the 17 bins
// (ratio 0.3..0.6, "accessed once" boosted 1..3x), like the published aggregate histogram. `dim` is
// set by the caller's choice.
Table SyntheticTable(std::mt19937_64& rng, int32_t dim, int index);

// `count` synthetic tables with dims drawn from {4, 8, ..., max_dim}.
std::vector<Table> SyntheticTables(std::mt19937_64& rng, int count, int32_t max_dim);

}  // namespace shardplan

#endif  // SHARDPLAN_GROUNDTRUTH_SIM_SYNTHETIC_TABLES_H_
