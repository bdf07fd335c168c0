#ifndef SHARDPLAN_PLANNER_DOMAIN_HOT_ROW_IDS_H_
#define SHARDPLAN_PLANNER_DOMAIN_HOT_ROW_IDS_H_

// The ids of a plan's replicated hot rows. A frequency-rank layout speaks of ranks; the client
// owns the rank -> id map. A client that sends the map's top K (TopKAccessProfile::top_ids) gets
// back, per table, the ids a job needs to route its hot rows to their replicas: those of ranks
// [0, n), n the end of the table's last replicated row group (FlexShard: the DP and Flex tiers),
// as far as the K ids reach.

#include <cstdint>
#include <string>
#include <vector>

#include "planner/domain/plan.h"
#include "planner/domain/task.h"

namespace shardplan {

// A table whose replicated ranks reach past the ids its profile gave.
struct HotRowIdsShortfall {
  std::string table;
  int table_index = 0;         // in the task
  int64_t replicated_end = 0;  // n
  int64_t known_ids = 0;       // K
};

// Sets TableSharding::hot_row_ids of every FREQUENCY_RANK table of `plan` that replicates some
// row group and whose task table carries top_ids; clears it on every other table (a plan read
// back from a store or a client carries none it did not earn). Plan tables the task does not
// have are skipped (ValidatePlan reports them). Returns the tables whose ids stop short of n.
std::vector<HotRowIdsShortfall> AttachHotRowIds(const Task& task, Plan& plan);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_HOT_ROW_IDS_H_
