// The AutoShard trainer on a tiny deterministic backend: it learns a placement problem with a
// known optimum, is deterministic for a seed, and resumes from a checkpoint bit for bit.

#include "lab/rl/autoshard/autoshard_trainer.h"

#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lab/rl/autoshard/autoshard_params.h"
#include "planner/algorithms/autoshard/autoshard_planner.h"
#include "planner/domain/validation.h"
#include "planner/framework/plan_task.h"
#include "tests/unit/planner/planner_test_util.h"
#include "tests/unit/support/sanitized_build.h"

namespace shardplan::autoshard {
namespace {

using test::kGiB;
using test::MakeTable;
using test::MakeTask;

// Additive costs: a device's compute is the sum of its tables' pooling factors.
class AdditiveBackend : public HardwareBackend {
 public:
  std::string name() const override { return "fake"; }
  std::string hardware_profile() const override { return "fake-additive"; }
  absl::StatusOr<double> MeasureCompute(std::span<const Table> tables, int64_t) override {
    double sum = 0.0;
    for (const Table& table : tables) sum += table.pooling_factor;
    ++calls;
    return sum;
  }
  absl::StatusOr<CommMeasurement> MeasureComm(const Topology*, std::span<const int64_t>,
                                              std::span<const double>, int64_t) override {
    return absl::UnimplementedError("no interconnect");
  }
  int64_t calls = 0;
};

// Six tables of costs 1..6 on three devices: the best plan pairs them (6+1, 5+2, 4+3), 7 each,
// degree of balance 1.
Task ToyTask() {
  std::vector<Table> tables;
  for (int i = 1; i <= 6; ++i) tables.push_back(MakeTable(absl::StrCat("t", i), 1000, 16, i));
  return MakeTask(std::move(tables), 3, kGiB);
}

TrainOptions SmallOptions(uint64_t seed) {
  TrainOptions options;
  options.seed = seed;
  options.batch_size = 4;
  options.unroll_length = 25;  // 100 steps per update
  options.total_steps = 600;
  options.cost_updates = 3;
  options.cost_batch_size = 32;
  return options;
}

double MeanReward(const std::vector<CurvePoint>& curve, size_t begin, size_t end) {
  double sum = 0.0;
  for (size_t k = begin; k < end; ++k) sum += curve[k].mean_reward;
  return sum / static_cast<double>(end - begin);
}

TEST(AutoShardTrainerTest, LearnsTheToyProblemsBalance) {
  SHARDPLAN_SKIP_LONG_TRAINING_WHEN_SANITIZED();
  AdditiveBackend backend;
  const std::vector<Task> tasks = {ToyTask()};
  TrainOptions options;  // the reference's constants: 8 x 100 steps per update
  options.seed = 7;
  options.total_steps = 40000;
  const absl::StatusOr<TrainResult> result = TrainAutoShard(backend, tasks, options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->curve.size(), 50u);
  const double first = result->curve.front().mean_reward;
  const double last = MeanReward(result->curve, 45, 50);
  EXPECT_GT(last, first + 0.25) << "first update " << first << ", last five " << last;

  // The argmax plan of the trained policy reaches the optimum's balance within 15%.
  Policy policy = result->policy;
  policy.name = "toy";
  policy.version = "1";
  const AutoShardPlanner planner;
  ASSERT_TRUE(planner.CheckPolicy(policy).ok());
  test::FakeCostModel model;
  PlanTaskOptions plan_options;
  plan_options.policy = &policy;
  const absl::StatusOr<Plan> plan = PlanTask(planner, tasks[0], model, plan_options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  std::vector<int32_t> device_of_table(tasks[0].tables.size());
  for (const TableSharding& sharding : plan->tables) {
    const int t = std::stoi(sharding.table.substr(1)) - 1;
    device_of_table[t] = sharding.shards[0].device;
  }
  std::vector<size_t> order(tasks[0].tables.size());
  std::iota(order.begin(), order.end(), 0);
  const absl::StatusOr<double> reward =
      PlacementReward(backend, tasks[0], device_of_table, order, nullptr);
  ASSERT_TRUE(reward.ok());
  EXPECT_GE(*reward, 0.85) << "the optimum is 1 (7/7/7)";
}

TEST(AutoShardTrainerTest, TheSameSeedGivesTheSamePolicy) {
  AdditiveBackend first_backend, second_backend;
  const std::vector<Task> tasks = {ToyTask()};
  const absl::StatusOr<TrainResult> first = TrainAutoShard(first_backend, tasks, SmallOptions(3));
  const absl::StatusOr<TrainResult> second = TrainAutoShard(second_backend, tasks, SmallOptions(3));
  const absl::StatusOr<TrainResult> other = TrainAutoShard(first_backend, tasks, SmallOptions(4));
  ASSERT_TRUE(first.ok() && second.ok() && other.ok());
  EXPECT_EQ(first->params, second->params);
  EXPECT_NE(first->params, other->params);
  EXPECT_EQ(first->updates, 6);
}

TEST(AutoShardTrainerTest, AResumedRunEqualsAnUninterruptedOne) {
  const std::vector<Task> tasks = {ToyTask()};
  AdditiveBackend backend;
  const absl::StatusOr<TrainResult> whole = TrainAutoShard(backend, tasks, SmallOptions(9));
  ASSERT_TRUE(whole.ok()) << whole.status();

  TrainOptions options = SmallOptions(9);
  options.checkpoint_path = ::testing::TempDir() + "/autoshard_resume.checkpoint";
  options.checkpoint_every = 1;
  options.stop_after_updates = 2;
  std::remove(options.checkpoint_path.c_str());
  const absl::StatusOr<TrainResult> part = TrainAutoShard(backend, tasks, options);
  ASSERT_TRUE(part.ok()) << part.status();
  EXPECT_EQ(part->updates, 2);
  options.stop_after_updates = -1;
  options.resume = true;
  const absl::StatusOr<TrainResult> resumed = TrainAutoShard(backend, tasks, options);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_EQ(resumed->updates, 6);
  EXPECT_EQ(resumed->params, whole->params);
  ASSERT_EQ(resumed->curve.size(), whole->curve.size());
  for (size_t k = 0; k < whole->curve.size(); ++k) {
    EXPECT_EQ(resumed->curve[k].mean_reward, whole->curve[k].mean_reward) << k;
    EXPECT_EQ(resumed->curve[k].cost_loss, whole->curve[k].cost_loss) << k;
  }

  // Another seed is another run: its checkpoint is refused.
  options.seed = 10;
  EXPECT_EQ(TrainAutoShard(backend, tasks, options).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(AutoShardTrainerTest, RewardIsBalanceWhenItFitsAndHeadroomWhenNot) {
  AdditiveBackend backend;
  const Task task = ToyTask();
  const std::vector<size_t> order = {0, 1, 2, 3, 4, 5};
  // Costs 1..6: devices {1,6}, {2,5}, {3,4} -> 7/7/7.
  const std::vector<int32_t> balanced = {0, 1, 2, 2, 1, 0};
  EXPECT_DOUBLE_EQ(PlacementReward(backend, task, balanced, order, nullptr).value(), 1.0);
  // Device 2 empty: min 0.
  const std::vector<int32_t> two = {0, 1, 0, 1, 0, 1};
  std::vector<std::pair<int32_t, double>> measured;
  EXPECT_DOUBLE_EQ(PlacementReward(backend, task, two, order, &measured).value(), 0.0);
  EXPECT_EQ(measured.size(), 2u);
  // Over the memory: (capacity - bytes) / capacity of the fullest device, and nothing measured.
  Task tight = task;
  tight.topology.memory_bytes = {100000, 100000, 100000};  // a table is 64000 bytes
  measured.clear();
  const int64_t before = backend.calls;
  EXPECT_NEAR(PlacementReward(backend, tight, balanced, order, &measured).value(),
              (100000.0 - 128000.0) / 100000.0, 1e-12);
  EXPECT_TRUE(measured.empty());
  EXPECT_EQ(backend.calls, before);
}

TEST(AutoShardTrainerTest, RefusesPinnedTablesAndEmptyTaskLists) {
  AdditiveBackend backend;
  Task pinned = ToyTask();
  pinned.tables[2].pinned_device = 1;
  const std::vector<Task> tasks = {pinned};
  EXPECT_EQ(TrainAutoShard(backend, tasks, SmallOptions(1)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(TrainAutoShard(backend, {}, SmallOptions(1)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace shardplan::autoshard
