#ifndef SHARDPLAN_TESTS_UNIT_SERVER_SERVER_TEST_UTIL_H_
#define SHARDPLAN_TESTS_UNIT_SERVER_SERVER_TEST_UTIL_H_

// Small tasks shared by the server unit tests.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "planner/domain/task.h"
#include "shardplan/v1/planner.pb.h"
#include "tests/unit/support/task_protos.h"

namespace shardplan::server_test {

inline constexpr int64_t kGiB = int64_t{1} << 30;

using test_support::SmallTaskProto;

// `num_tables` fp32 tables "t0", "t1", ... of varied shapes on `num_devices` devices of 16 GiB.
inline Task SmallTask(int num_tables = 6, int num_devices = 2) {
  Task task;
  for (int i = 0; i < num_tables; ++i) {
    Table table;
    table.name = absl::StrCat("t", i);
    table.rows = 1000 * (i + 1);
    table.dim = 8 * (1 + i % 4);
    table.pooling_factor = 1.0 + i;
    task.tables.push_back(table);
  }
  task.topology.memory_bytes.assign(static_cast<size_t>(num_devices), 16 * kGiB);
  return task;
}

}  // namespace shardplan::server_test

#endif  // SHARDPLAN_TESTS_UNIT_SERVER_SERVER_TEST_UTIL_H_
