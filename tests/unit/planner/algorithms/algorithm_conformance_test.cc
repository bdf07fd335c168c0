// What every registered algorithm owes its callers, checked on each one alike (in the manner of
// the plan-store contract test): valid plans on pinned, co-located and heterogeneous-memory
// tasks; the same plan for the same seed; the same plan whatever the table order of the request;
// a stop signal honoured; the table that fits nowhere named; only the sharding types the
// algorithm declares, and a table's own allowed types respected. Per-algorithm tests keep what
// is specific to one algorithm.

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gtest/gtest.h"
#include "planner/algorithms/builtin_algorithms.h"
#include "planner/domain/task.h"
#include "planner/domain/validation.h"
#include "planner/framework/algorithm_registry.h"
#include "planner/framework/plan_task.h"
#include "planner/framework/stop_signal.h"
#include "tests/support/test_policies.h"
#include "tests/unit/planner/planner_test_util.h"
#include "wire/plan_proto.h"

namespace shardplan {
namespace {

using test::kGiB;
using test::MakeTable;
using test::MakeTask;
using ::testing::AnyOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

// Every algorithm but those that cut every table into row groups over the devices (flexshard,
// OPER's three: so they refuse pinned and co-located tables by design) and whose routed
// replicas only the models that cost row layouts cost: their own tests
// (flexshard/flexshard_planner_test.cc, oper/oper_planner_test.cc) check their determinism,
// their refusals and their plans' validity.
std::vector<std::string> AlgorithmNames() {
  const AlgorithmRegistry registry = BuiltinAlgorithms();  // outlives the loop over its planners
  std::vector<std::string> names;
  for (const Algorithm* planner : registry.List()) {
    if (!planner->info().plans_row_layouts) names.push_back(planner->info().name);
  }
  return names;
}

// Pinned and co-located tables on three equal devices.
Task ConstrainedTask() {
  Task task = MakeTask({MakeTable("a", 1000, 16, 2), MakeTable("b", 500, 8, 1),
                        MakeTable("c", 100, 32, 4), MakeTable("d", 10, 4, 1),
                        MakeTable("e", 2000, 64, 3)},
                       3, kGiB);
  task.tables[3].pinned_device = 2;
  task.colocate = {{"a", "b"}};
  return task;
}

// Devices of 64, 8 and 16 MiB: table "big" (48 MiB) fits whole on device 0 alone.
Task HeterogeneousTask() {
  constexpr int64_t kMiB = int64_t{1} << 20;
  return MakeTask({test::TableOfBytes("big", 48 * kMiB, 16), test::TableOfBytes("s1", 4 * kMiB),
                   test::TableOfBytes("s2", 6 * kMiB), test::TableOfBytes("s3", 2 * kMiB, 8)},
                  std::vector<int64_t>{64 * kMiB, 8 * kMiB, 16 * kMiB});
}

class AlgorithmConformanceTest : public ::testing::TestWithParam<std::string> {
 protected:
  const Algorithm& planner() const {
    const Algorithm* found = registry_.Find(GetParam()).value();
    return *found;
  }
  absl::StatusOr<shardplan::Plan> PlanOf(const Task& task, uint64_t seed = 0,
                                         const StopSignal* stop = nullptr,
                                         std::map<std::string, std::string> params = {}) const {
    if (absl::Status valid = ValidateTask(task); !valid.ok()) return valid;
    PlanTaskOptions options;
    options.params = std::move(params);
    options.seed = seed;
    options.stop = stop;
    const std::shared_ptr<const Policy> policy = test::TestPolicyFor(planner());
    options.policy = policy.get();
    return PlanTask(planner(), task, model_, options);
  }
  // A plan, reduced to what the caller receives: placements and cost (not timings).
  static std::string Placement(const shardplan::Plan& plan) {
    v1::Plan proto = wire::PlanToProto(plan);
    proto.clear_stats();
    std::string bytes;
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);  // the parameters map in key order
    proto.SerializeToCodedStream(&coded);
    coded.Trim();
    return bytes;
  }

  AlgorithmRegistry registry_ = BuiltinAlgorithms();
  test::FakeCostModel model_;
};

TEST_P(AlgorithmConformanceTest, PlansConstrainedAndHeterogeneousTasksValidly) {
  for (const Task& task : {ConstrainedTask(), HeterogeneousTask()}) {
    absl::StatusOr<shardplan::Plan> plan = PlanOf(task);
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_TRUE(ValidatePlan(task, *plan).ok()) << ValidatePlan(task, *plan);
    EXPECT_EQ(plan->algorithm, GetParam());
  }
}

TEST_P(AlgorithmConformanceTest, TheSameSeedGivesTheSamePlan) {
  for (uint64_t seed : {0u, 7u}) {
    absl::StatusOr<shardplan::Plan> first = PlanOf(ConstrainedTask(), seed);
    absl::StatusOr<shardplan::Plan> second = PlanOf(ConstrainedTask(), seed);
    ASSERT_TRUE(first.ok() && second.ok());
    EXPECT_EQ(Placement(*first), Placement(*second)) << "seed " << seed;
  }
}

TEST_P(AlgorithmConformanceTest, TableOrderOfTheRequestDoesNotMatter) {
  // The service plans the canonical task (docs/server.md), whatever order the request has.
  Task reversed = ConstrainedTask();
  std::reverse(reversed.tables.begin(), reversed.tables.end());
  absl::StatusOr<shardplan::Plan> plan = PlanOf(CanonicalTask(ConstrainedTask()), 3);
  absl::StatusOr<shardplan::Plan> from_reversed = PlanOf(CanonicalTask(reversed), 3);
  ASSERT_TRUE(plan.ok() && from_reversed.ok());
  EXPECT_EQ(Placement(*plan), Placement(*from_reversed));
}

TEST_P(AlgorithmConformanceTest, AStoppedSearchEndsWithAValidPlanOrTheStopsCode) {
  // 14 tables on 4 devices: 4^14 placements, far more than any search here makes unstopped
  // in a test's time, so a search that ignored the signal would time the test out.
  std::vector<Table> tables;
  for (int i = 0; i < 14; ++i) tables.push_back(MakeTable(absl::StrCat("t", i), 1000 + i, 8, 1));
  const Task task = MakeTask(std::move(tables), 4, kGiB);
  std::map<std::string, std::string> params;
  for (const ParamSpec& spec : planner().info().params) {
    // A placement cap would end the search before the signal does: lift it.
    if (spec.name == "max_placements") params[spec.name] = "1000000000";
  }
  StopSignal stop;
  stop.RequestCancel();
  absl::StatusOr<shardplan::Plan> plan = PlanOf(task, 0, &stop, params);
  if (plan.ok()) {
    EXPECT_TRUE(ValidatePlan(task, *plan).ok());
  } else {
    EXPECT_THAT(plan.status().code(),
                AnyOf(absl::StatusCode::kCancelled, absl::StatusCode::kDeadlineExceeded))
        << plan.status();
  }
}

TEST_P(AlgorithmConformanceTest, ATableThatFitsNowhereIsNamed) {
  // 8 GiB of weights on three 1 GiB devices: no split or placement can hold it.
  const Task task = MakeTask({MakeTable("small", 100, 8, 1),
                              test::TableOfBytes("too_big", 8 * kGiB, 4)},
                             3, kGiB);
  absl::StatusOr<shardplan::Plan> plan = PlanOf(task);
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kFailedPrecondition) << plan.status();
  EXPECT_THAT(std::string(plan.status().message()), HasSubstr("too_big"));
}

TEST_P(AlgorithmConformanceTest, ShardingTypesAreTheDeclaredOnesAndATablesOwn) {
  const std::vector<ShardingType>& declared = planner().info().sharding_types;
  // Tight memory (a 40 MiB table on 32 MiB devices), so that an algorithm that can split does.
  constexpr int64_t kMiB = int64_t{1} << 20;
  Task task = MakeTask({test::TableOfBytes("wide", 40 * kMiB, 64),
                        test::TableOfBytes("x", 8 * kMiB, 16), test::TableOfBytes("y", 4 * kMiB)},
                       2, 32 * kMiB);
  absl::StatusOr<shardplan::Plan> plan = PlanOf(task);
  if (plan.ok()) {
    for (const TableSharding& sharding : plan->tables) {
      EXPECT_THAT(declared, Contains(sharding.sharding_type)) << sharding.table;
    }
  } else {  // only an algorithm that cannot split may fail here, naming the table
    EXPECT_THAT(declared, Not(Contains(ShardingType::kColumnWise)));
    EXPECT_THAT(plan.status().message(), HasSubstr("wide"));
  }
  // A table that allows table-wise only is never split, by any algorithm.
  Task restricted = ConstrainedTask();
  for (Table& table : restricted.tables) table.allowed_sharding_types = {ShardingType::kTableWise};
  absl::StatusOr<shardplan::Plan> whole = PlanOf(restricted);
  ASSERT_TRUE(whole.ok()) << whole.status();
  for (const TableSharding& sharding : whole->tables) {
    EXPECT_EQ(sharding.sharding_type, ShardingType::kTableWise) << sharding.table;
    EXPECT_EQ(sharding.shards.size(), 1u) << sharding.table;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryAlgorithm, AlgorithmConformanceTest,
                         ::testing::ValuesIn(AlgorithmNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace shardplan
