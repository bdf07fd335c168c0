#ifndef SHARDPLAN_TESTS_UNIT_SERVER_SERVER_TEST_UTIL_H_
#define SHARDPLAN_TESTS_UNIT_SERVER_SERVER_TEST_UTIL_H_

// Small tasks shared by the server unit tests.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "planner/domain/task.h"
#include "shardplan/v1/planner.pb.h"

namespace shardplan::server_test {

inline constexpr int64_t kGiB = int64_t{1} << 30;

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

// The proto twin of SmallTask.
inline v1::Task SmallTaskProto(int num_tables = 6, int num_devices = 2) {
  v1::Task task;
  for (int i = 0; i < num_tables; ++i) {
    v1::Table* table = task.add_tables();
    table->set_name(absl::StrCat("t", i));
    table->set_rows(1000 * (i + 1));
    table->set_dim(8 * (1 + i % 4));
    table->set_pooling_factor(1.0 + i);
  }
  task.mutable_topology()->set_num_devices(num_devices);
  task.mutable_topology()->set_device_memory_gib(16);
  return task;
}

}  // namespace shardplan::server_test

#endif  // SHARDPLAN_TESTS_UNIT_SERVER_SERVER_TEST_UTIL_H_
