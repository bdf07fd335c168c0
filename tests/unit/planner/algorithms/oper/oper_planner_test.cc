#include "planner/algorithms/oper/oper_planner.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/domain/access_figures.h"
#include "planner/domain/row_layout.h"
#include "planner/domain/validation.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using oper::PlacementRule;

// Three Criteo-like tables (dim 16, fp32): two Zipf-skewed, one uniform; 2 hosts x 4 devices
// of 64 MiB; 8 x 512 samples a step.
Task SkewedTask() {
  Table ads = test::MakeTable("ads", 200'000, 16, 1);
  ads.access_profile.zipf = ZipfAccessProfile{.exponent = 1.05};
  Table users = test::MakeTable("users", 50'000, 16, 2);
  users.access_profile.zipf = ZipfAccessProfile{.exponent = 1.1};
  Table sites = test::MakeTable("sites", 10'000, 16, 1);
  Task task = test::MakeTask({ads, sites, users}, 8, int64_t{64} << 20);
  task.topology.devices_per_host = 4;
  task.batch_size = 8 * 512;
  return task;
}

absl::StatusOr<Plan> PlanWith(PlacementRule rule, const Task& task,
                              std::map<std::string, std::string> params = {}) {
  const OperPlanner planner(rule);
  return test::RunPlanner(planner, task, params);
}

double Reported(const Plan& plan, const std::string& key) {
  return std::stod(plan.parameters.at(key));
}

TEST(OperPlannerTest, InferenceReplicatesIntoTheBudgetAndCutsCommunication) {
  Task task = SkewedTask();
  task.objective = Objective::kInference;
  task.replication_budget.extra_bytes_per_device = 256 << 10;
  absl::StatusOr<Plan> plan = PlanWith(PlacementRule::kOper, task);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(ValidatePlan(task, *plan).ok()) << ValidatePlan(task, *plan);
  EXPECT_GT(Reported(*plan, "copies.replicas"), 0);
  EXPECT_LE(Reported(*plan, "copies.max_bytes_per_device"), 256 << 10);
  EXPECT_LT(Reported(*plan, "comm_us.with_copies"),
            0.5 * Reported(*plan, "comm_us.model_parallel"));
  EXPECT_EQ(plan->parameters.at("balance.met"), "true");
  ASSERT_EQ(plan->tables.size(), 3u);
  for (size_t t = 0; t < plan->tables.size(); ++t) {
    const TableSharding& sharding = plan->tables[t];
    EXPECT_EQ(sharding.sharding_type, ShardingType::kRowWise);
    // "sites" has no access profile: no ranks, its ids in order.
    EXPECT_EQ(sharding.row_order,
              sharding.table == "sites" ? RowOrder::kNatural : RowOrder::kFrequencyRank);
    // The groups tile the ranks in order.
    const TableLayout layout = LayoutOf(task.tables[t], sharding);
    int64_t next = 0;
    for (const RowGroup& group : layout.groups) {
      EXPECT_EQ(group.row_offset, next);
      next += group.row_count;
    }
    EXPECT_EQ(next, task.tables[t].rows);
  }
  // The hottest ads rows are replicated, the uniform table's are not.
  EXPECT_GT(LayoutOf(task.tables[0], plan->tables[0]).groups[0].replicas(), 1);
}

TEST(OperPlannerTest, TheAccessFiguresOfItsPlansAreTheOnesItReports) {
  // The task's own fetch latencies, which the planner reads when its parameters leave them.
  Task task = SkewedTask();
  task.objective = Objective::kInference;
  task.replication_budget.extra_bytes_per_device = 256 << 10;
  task.topology.intra_host_latency_us = 1;
  task.topology.inter_host_latency_us = 4;
  for (const PlacementRule rule :
       {PlacementRule::kOper, PlacementRule::kMemoryGreedy, PlacementRule::kAccessGreedy}) {
    absl::StatusOr<Plan> plan = PlanWith(rule, task);
    ASSERT_TRUE(plan.ok()) << plan.status();
    absl::StatusOr<AccessFigures> figures = AccessFiguresOf(task, *plan);
    ASSERT_TRUE(figures.ok()) << figures.status();
    const double reported = Reported(*plan, "comm_us.with_copies");
    EXPECT_NEAR(figures->total_communication_us, reported, 1e-5 * reported)
        << plan->algorithm;  // %.6g
    EXPECT_NEAR(figures->communication_balance, Reported(*plan, "balance.comm"), 1e-5);
  }
  // Latencies are most of a 64-byte fetch's cost here: without them communication falls.
  Task no_latency = task;
  no_latency.topology.intra_host_latency_us = no_latency.topology.inter_host_latency_us = 0;
  const double with_latency =
      Reported(*PlanWith(PlacementRule::kOper, task), "comm_us.model_parallel");
  EXPECT_LT(Reported(*PlanWith(PlacementRule::kOper, no_latency), "comm_us.model_parallel"),
            0.1 * with_latency);
  // A parameter overrides the task's latency.
  EXPECT_GT(Reported(*PlanWith(PlacementRule::kOper, task, {{"inter_host_latency_us", "40"}}),
                     "comm_us.model_parallel"),
            2 * with_latency);
}

TEST(OperPlannerTest, RoutesSendEveryRequesterToTheCheapestCopy) {
  // A matrix under which device 0's own host is the expensive one: routes override the
  // default (same-host) replica where Algorithm 1 kept a cheaper path.
  Task task = SkewedTask();
  task.objective = Objective::kInference;
  task.topology.memory_bytes.resize(4);
  task.topology.devices_per_host = 2;
  task.replication_budget.extra_bytes_per_device = 1 << 20;
  absl::StatusOr<Plan> plan =
      PlanWith(PlacementRule::kOper, task, {{"fetch_cost_us", "0,5,4,4;5,0,4,4;4,4,0,1;4,4,1,0"}});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(ValidatePlan(task, *plan).ok()) << ValidatePlan(task, *plan);
  EXPECT_GT(Reported(*plan, "copies.routes"), 0);
  for (size_t t = 0; t < plan->tables.size(); ++t) {
    const TableSharding& sharding = plan->tables[t];
    for (const RowRoute& route : sharding.routes) {
      // Only device 0 and 1 prefer another host's copy (4) to their neighbour's (5).
      EXPECT_LT(route.requester, 2);
      EXPECT_GE(sharding.shards[route.shard].device, 2);
    }
  }
}

TEST(OperPlannerTest, TrainingDuplicatesHotPartitionsOnEveryDevice) {
  Task task = SkewedTask();
  task.replication_budget.extra_bytes_per_device = 256 << 10;
  absl::StatusOr<Plan> plan = PlanWith(PlacementRule::kOper, task);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(ValidatePlan(task, *plan).ok()) << ValidatePlan(task, *plan);
  // Two hosts: P2P over the 12.5 GiB/s inter-host links, the all-reduce at 12.5 x 4 (one NIC
  // per device): f* = 12.5 / (512 x 50).
  EXPECT_NEAR(Reported(*plan, "duplication.frequency"), 12.5 / (512 * 50), 1e-9);
  const TableLayout ads = LayoutOf(task.tables[0], plan->tables[0]);
  EXPECT_EQ(ads.groups[0].replicas(), 8);
  for (const RowGroup& group : ads.groups) {
    EXPECT_TRUE(group.replicas() == 1 || group.replicas() == 8);  // duplicated or not
  }
  for (const TableSharding& sharding : plan->tables) EXPECT_TRUE(sharding.routes.empty());
  EXPECT_LT(Reported(*plan, "comm_us.with_copies"), Reported(*plan, "comm_us.model_parallel"));
}

TEST(OperPlannerTest, WithoutABudgetEveryPartitionHasOneCopy) {
  for (Objective objective : {Objective::kTraining, Objective::kInference}) {
    Task task = SkewedTask();
    task.objective = objective;
    absl::StatusOr<Plan> plan = PlanWith(PlacementRule::kOper, task);
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_EQ(plan->parameters.at("copies.replicas"), "0");
    EXPECT_EQ(plan->parameters.at("comm_us.with_copies"),
              plan->parameters.at("comm_us.model_parallel"));
  }
}

TEST(OperPlannerTest, HalvesTheThresholdUntilLookupsAndMemoryAreBalanced) {
  const Task task = SkewedTask();
  absl::StatusOr<Plan> plan = PlanWith(PlacementRule::kOper, task, {{"threshold", "0.5"}});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_GE(Reported(*plan, "thresholds.tried"), 2);
  EXPECT_NEAR(Reported(*plan, "threshold.used"),
              0.5 / (1 << static_cast<int>(Reported(*plan, "thresholds.tried") - 1)), 1e-8);
  EXPECT_GE(Reported(*plan, "balance.lookups"), 0.95);
  EXPECT_GE(Reported(*plan, "balance.memory"), 0.95);

  // An unreachable target: every threshold down to min_threshold, the best plan kept.
  absl::StatusOr<Plan> unmet =
      PlanWith(PlacementRule::kOper, task,
               {{"threshold", "0.5"}, {"target_balance", "1"}, {"min_threshold", "0.01"}});
  ASSERT_TRUE(unmet.ok()) << unmet.status();
  EXPECT_EQ(unmet->parameters.at("balance.met"), "false");
  EXPECT_EQ(unmet->parameters.at("thresholds.tried"), "6");  // 0.5 .. 0.015625
  EXPECT_TRUE(ValidatePlan(task, *unmet).ok());
}

TEST(OperPlannerTest, TheBaselinesBalanceOneCriterionEach) {
  const Task task = SkewedTask();
  absl::StatusOr<Plan> memory = PlanWith(PlacementRule::kMemoryGreedy, task);
  absl::StatusOr<Plan> access = PlanWith(PlacementRule::kAccessGreedy, task);
  ASSERT_TRUE(memory.ok() && access.ok());
  for (const Plan* plan : {&*memory, &*access}) {
    EXPECT_TRUE(ValidatePlan(task, *plan).ok()) << ValidatePlan(task, *plan);
    EXPECT_EQ(plan->parameters.at("copies.replicas"), "0");
    EXPECT_EQ(plan->parameters.at("thresholds.tried"), "1");
  }
  EXPECT_GT(Reported(*memory, "balance.memory"), Reported(*access, "balance.memory"));
  EXPECT_GT(Reported(*access, "balance.lookups"), Reported(*memory, "balance.lookups"));
}

TEST(OperPlannerTest, PlansAreDeterministic) {
  Task task = SkewedTask();
  task.objective = Objective::kInference;
  task.replication_budget.capacity_fraction = 0.01;
  absl::StatusOr<Plan> first = PlanWith(PlacementRule::kOper, task);
  absl::StatusOr<Plan> second = PlanWith(PlacementRule::kOper, task);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->parameters, second->parameters);
  ASSERT_EQ(first->tables.size(), second->tables.size());
  for (size_t t = 0; t < first->tables.size(); ++t) {
    const TableSharding& a = first->tables[t];
    const TableSharding& b = second->tables[t];
    ASSERT_EQ(a.shards.size(), b.shards.size());
    ASSERT_EQ(a.routes.size(), b.routes.size());
    for (size_t s = 0; s < a.shards.size(); ++s) {
      EXPECT_TRUE(a.shards[s].device == b.shards[s].device &&
                  a.shards[s].row_offset == b.shards[s].row_offset &&
                  a.shards[s].row_count == b.shards[s].row_count);
    }
    for (size_t r = 0; r < a.routes.size(); ++r) {
      EXPECT_TRUE(a.routes[r].requester == b.routes[r].requester &&
                  a.routes[r].shard == b.routes[r].shard);
    }
  }
}

TEST(OperPlannerTest, RefusesWhatItCannotPlanNamingTheField) {
  Task pinned = SkewedTask();
  pinned.tables[1].pinned_device = 3;
  EXPECT_STATUS(PlanWith(PlacementRule::kOper, pinned), absl::StatusCode::kFailedPrecondition,
                "tables[1].pinned_device: task is infeasible for oper: table \"sites\"");
  Task colocated = SkewedTask();
  colocated.colocate = {{"ads", "users"}};
  EXPECT_STATUS(PlanWith(PlacementRule::kAccessGreedy, colocated),
                absl::StatusCode::kFailedPrecondition,
                "colocate[0]: task is infeasible for access_greedy");
  EXPECT_STATUS(PlanWith(PlacementRule::kOper, SkewedTask(), {{"fetch_cost_us", "0,1;1,0"}}),
                absl::StatusCode::kInvalidArgument, "parameters.fetch_cost_us: needs 8 rows");
  Task tiny = SkewedTask();
  tiny.topology.memory_bytes.assign(8, 1024);
  EXPECT_STATUS(PlanWith(PlacementRule::kOper, tiny, {{"min_threshold", "0.0001"}}),
                absl::StatusCode::kFailedPrecondition, "task is infeasible for oper: table \"");
}

TEST(OperPlannerTest, AStopSignalEndsThePlanning) {
  StopSignal stop;
  stop.RequestCancel();
  const OperPlanner planner(PlacementRule::kOper);
  EXPECT_EQ(test::RunPlanner(planner, SkewedTask(), {}, 0, &stop).status().code(),
            absl::StatusCode::kCancelled);
}

}  // namespace
}  // namespace shardplan
