#ifndef SHARDPLAN_TESTS_UNIT_PLANNER_ALGORITHMS_NEUROSHARD_NEUROSHARD_TEST_UTIL_H_
#define SHARDPLAN_TESTS_UNIT_PLANNER_ALGORITHMS_NEUROSHARD_NEUROSHARD_TEST_UTIL_H_

// Tasks shared by the NeuroShard tests.

#include "tests/unit/planner/planner_test_util.h"

namespace shardplan::test {

inline Task SixTables(int num_devices) {
  return MakeTask({MakeTable("a", 400000, 64, 4.0), MakeTable("b", 100000, 32, 20.0),
                   MakeTable("c", 2000000, 16, 1.0), MakeTable("d", 50000, 128, 2.0),
                   MakeTable("e", 800000, 8, 12.0), MakeTable("f", 10000, 64, 30.0)},
                  num_devices, kGiB / 4);
}

}  // namespace shardplan::test

#endif  // SHARDPLAN_TESTS_UNIT_PLANNER_ALGORITHMS_NEUROSHARD_NEUROSHARD_TEST_UTIL_H_
