#ifndef SHARDPLAN_TESTS_UNIT_GOLDEN_GOLDEN_PLANS_H_
#define SHARDPLAN_TESTS_UNIT_GOLDEN_GOLDEN_PLANS_H_

// The tasks and plans the golden test pins: the shipped example tasks, the planners that plan
// them, and hand-written plans of each of today's five sharding types.

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "planner/domain/plan.h"
#include "planner/domain/task.h"
#include "tests/unit/support/test_files.h"
#include "wire/json_io.h"

namespace shardplan::golden {

struct ExampleTask {
  std::string name;
  Task task;
};

// examples/*.json (the 8-device task spans two hosts), in canonical order.
inline std::vector<ExampleTask> ExampleTasks() {
  std::vector<ExampleTask> tasks;
  for (const char* name : {"task_4dev", "task_8dev", "task_huge_table"}) {
    const std::string json = testing_files::ReadFile(
        absl::StrCat(SHARDPLAN_SOURCE_DIR, "/examples/", name, ".json"));
    absl::StatusOr<Task> task = wire::ParseTaskJson(json);
    EXPECT_TRUE(task.ok()) << name << ": " << task.status();
    if (task.ok()) tasks.push_back({name, CanonicalTask(*std::move(task))});
  }
  return tasks;
}

struct PlannerCase {
  std::string label;
  std::string algorithm;
  std::map<std::string, std::string> params;
};

// The shipped algorithms that need no trained policy (exhaustive does not finish on 40 tables).
inline std::vector<PlannerCase> PlannerCases() {
  return {{"torchrec", "torchrec", {}},
          {"neuroshard", "neuroshard", {}},
          {"neuroshard-row-level", "neuroshard", {{"row_level", "true"}}},
          {"size_greedy", "size_greedy", {}},
          {"dim_greedy", "dim_greedy", {}},
          {"lookup_greedy", "lookup_greedy", {}},
          {"size_lookup_greedy", "size_lookup_greedy", {}},
          {"random", "random", {}}};
}

inline Shard Whole(const Table& table, int32_t device) {
  return Shard{.device = device, .row_offset = 0, .row_count = table.rows, .column_offset = 0,
               .column_count = table.dim};
}

// `table`'s rows in `devices.size()` contiguous blocks of ceil(rows / n) (an uneven last one),
// at most one per row.
inline std::vector<Shard> RowBlocks(const Table& table, const std::vector<int32_t>& devices) {
  std::vector<Shard> shards;
  const auto n = static_cast<int64_t>(devices.size());
  const int64_t block = (table.rows + n - 1) / n;
  for (int64_t i = 0; i < n && i * block < table.rows; ++i) {
    shards.push_back(Shard{.device = devices[i], .row_offset = i * block,
                           .row_count = std::min(block, table.rows - i * block),
                           .column_offset = 0, .column_count = table.dim});
  }
  return shards;
}

// Table `i` of `task` sharded as `type`, on devices chosen from `i`.
inline TableSharding ShardAs(const Task& task, size_t i, ShardingType type) {
  const Table& table = task.tables[i];
  const int w = task.topology.num_devices();
  const auto first = static_cast<int32_t>(i % w);
  TableSharding sharding{.table = table.name, .sharding_type = type, .shards = {}};
  std::vector<int32_t> all(w);
  for (int d = 0; d < w; ++d) all[d] = d;
  switch (type) {
    case ShardingType::kTableWise:
      sharding.shards.push_back(Whole(table, first));
      break;
    case ShardingType::kColumnWise: {
      // Two column blocks on neighbouring devices (one when the table is 4 columns wide).
      const int32_t left = std::max(4, table.dim / 8 * 4);
      Shard a = Whole(table, first);
      a.column_count = left;
      sharding.shards.push_back(a);
      if (left < table.dim) {
        Shard b = Whole(table, (first + 1) % w);
        b.column_offset = left;
        b.column_count = table.dim - left;
        sharding.shards.push_back(b);
      }
      break;
    }
    case ShardingType::kRowWise:
      sharding.shards = RowBlocks(table, all);
      break;
    case ShardingType::kTableRowWise: {
      const int host = static_cast<int>(i % task.topology.num_hosts());
      std::vector<int32_t> local;
      for (int d = 0; d < w; ++d) {
        if (task.topology.host_of(d) == host) local.push_back(d);
      }
      sharding.shards = RowBlocks(table, local);
      break;
    }
    case ShardingType::kDataParallel:
      for (int d = 0; d < w; ++d) sharding.shards.push_back(Whole(table, d));
      break;
  }
  return sharding;
}

// Every table as one type, then the five types round-robin over the tables.
inline std::vector<std::pair<std::string, Plan>> HandWrittenPlans(const Task& task) {
  std::vector<std::pair<std::string, Plan>> plans;
  const std::vector<std::pair<std::string, ShardingType>> types = {
      {"table_wise", ShardingType::kTableWise},
      {"column_wise", ShardingType::kColumnWise},
      {"row_wise", ShardingType::kRowWise},
      {"table_row_wise", ShardingType::kTableRowWise},
      {"data_parallel", ShardingType::kDataParallel}};
  for (const auto& [label, type] : types) {
    Plan plan;
    for (size_t i = 0; i < task.tables.size(); ++i) plan.tables.push_back(ShardAs(task, i, type));
    plans.emplace_back(label, std::move(plan));
  }
  Plan mixed;
  for (size_t i = 0; i < task.tables.size(); ++i) {
    mixed.tables.push_back(ShardAs(task, i, types[i % types.size()].second));
  }
  plans.emplace_back("mixed", std::move(mixed));
  return plans;
}

}  // namespace shardplan::golden

#endif  // SHARDPLAN_TESTS_UNIT_GOLDEN_GOLDEN_PLANS_H_
