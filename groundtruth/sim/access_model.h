#ifndef SHARDPLAN_GROUNDTRUTH_SIM_ACCESS_MODEL_H_
#define SHARDPLAN_GROUNDTRUTH_SIM_ACCESS_MODEL_H_

#include <vector>

#include "planner/domain/rank_frequency.h"  // BinAccessCount
#include "planner/domain/table.h"

namespace shardplan {

// Distinct rows of a table that one batch touches `count` times each.
struct AccessClass {
  double rows = 0.0;
  double count = 0.0;  // accesses per row in the batch, >= 1
};

// The table's accessed rows grouped by access count, for `lookups` lookups in one batch.
// From the 17-bin histogram: bin j stands for count 1 (j = 0), 0.75 * 2^j (the middle of
// (2^(j-1), 2^j], j = 1..15) or 1.5 * 32768 (j = 16); distinct rows U = lookups / mean count,
// capped at the table's rows (then every count scales up so that sum(rows * count) = lookups).
// Without a histogram the lookups are uniform over the rows: U = rows * (1 - exp(-lookups/rows)),
// one class. Classes come hottest first; empty when lookups <= 0.
std::vector<AccessClass> AccessClasses(const Table& table, double lookups);

}  // namespace shardplan

#endif  // SHARDPLAN_GROUNDTRUTH_SIM_ACCESS_MODEL_H_
