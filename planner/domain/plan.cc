#include "planner/domain/plan.h"

#include "planner/domain/task.h"

namespace shardplan {

const char* RowOrderName(RowOrder order) {
  switch (order) {
    case RowOrder::kNatural:
      return "NATURAL";
    case RowOrder::kFrequencyRank:
      return "FREQUENCY_RANK";
  }
  return "UNKNOWN";
}

Plan TableWisePlan(const Task& task, const std::vector<int32_t>& device_of_table) {
  Plan plan;
  plan.tables.reserve(task.tables.size());
  for (size_t i = 0; i < task.tables.size() && i < device_of_table.size(); ++i) {
    const Table& table = task.tables[i];
    TableSharding sharding;
    sharding.table = table.name;
    sharding.sharding_type = ShardingType::kTableWise;
    sharding.shards.push_back(Shard{.device = device_of_table[i],
                                    .row_offset = 0,
                                    .row_count = table.rows,
                                    .column_offset = 0,
                                    .column_count = table.dim});
    plan.tables.push_back(std::move(sharding));
  }
  return plan;
}

}  // namespace shardplan
