#ifndef SHARDPLAN_TESTS_INTEGRATION_CLIENT_TEST_TASKS_H_
#define SHARDPLAN_TESTS_INTEGRATION_CLIENT_TEST_TASKS_H_

#include <string>

#include "shardplan/v1/planner.pb.h"

namespace shardplan::testing {

// examples/<name> parsed as a Task; fails the test (and returns an empty task) if it cannot.
shardplan::v1::Task ExampleTask(const std::string& name);

// `num_tables` small tables on `num_devices` devices of 16 GiB: trivially feasible, and with
// `exhaustive` and a high max_placements a search of num_devices^num_tables placements that
// runs for many seconds (for cancel and deadline tests).
shardplan::v1::Task SmallTask(int num_tables, int num_devices);

// A PlanRequest for exhaustive search over SmallTask(14, 4): 4^14 = 2.7e8 placements.
shardplan::v1::PlanRequest SlowRequest();

}  // namespace shardplan::testing

#endif  // SHARDPLAN_TESTS_INTEGRATION_CLIENT_TEST_TASKS_H_
