#ifndef SHARDPLAN_TESTS_UNIT_SUPPORT_TASK_PROTOS_H_
#define SHARDPLAN_TESTS_UNIT_SUPPORT_TASK_PROTOS_H_

// Small API tasks shared by the tests of wire/ and server/.

#include "absl/strings/str_cat.h"
#include "shardplan/v1/planner.pb.h"

namespace shardplan::test_support {

// `num_tables` tables "t0", "t1", ... of varied shapes on `num_devices` devices of 16 GiB.
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

}  // namespace shardplan::test_support

#endif  // SHARDPLAN_TESTS_UNIT_SUPPORT_TASK_PROTOS_H_
