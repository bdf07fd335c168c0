#ifndef SHARDPLAN_TESTS_UNIT_PLANNER_ALGORITHMS_ALIS_ALIS_TEST_UTIL_H_
#define SHARDPLAN_TESTS_UNIT_PLANNER_ALGORITHMS_ALIS_ALIS_TEST_UTIL_H_

// Windows and maps for the ALIS tests.

#include <cstdint>
#include <vector>

#include "planner/domain/row_shard_map.h"
#include "planner/traffic/cooccurrence.h"

namespace shardplan::alis::test {

// The statistics of `requests` (rows of table 0 unless packed), each repeated `times`, nothing
// sampled away.
inline CooccurrenceStats WindowOf(const std::vector<std::vector<uint64_t>>& requests,
                                  int times = 1) {
  CooccurrenceCollector collector = *CooccurrenceCollector::Create({});
  for (int i = 0; i < times; ++i) {
    for (const std::vector<uint64_t>& request : requests) collector.Add(request);
  }
  return std::move(collector).Finish();
}

// One table "t" of `rows` rows of 64 bytes, every row on `fill`.
inline RowShardMap OneTable(int64_t rows, int shards, ShardId fill = 0) {
  return *RowShardMap::Create({{.name = "t", .rows = rows, .row_bytes = 64}}, shards, fill);
}

inline uint64_t Row(int64_t row) { return PackRowKey(0, row); }

}  // namespace shardplan::alis::test

#endif  // SHARDPLAN_TESTS_UNIT_PLANNER_ALGORITHMS_ALIS_ALIS_TEST_UTIL_H_
