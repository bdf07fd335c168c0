#include "lab/rl/dreamshard/dreamshard_trainer.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "groundtruth/ground_truth.h"
#include "gtest/gtest.h"
#include "lab/rl/dreamshard/dreamshard_model.h"
#include "planner/algorithms/dreamshard/dreamshard_network.h"
#include "planner/algorithms/dreamshard/dreamshard_planner.h"
#include "planner/domain/table.h"
#include "planner/framework/plan_task.h"
#include "planner/framework/stop_signal.h"
#include "tests/unit/planner/planner_test_util.h"
#include "tests/unit/support/sanitized_build.h"

namespace shardplan::rl {
namespace {

using test::kGiB;
using test::MakeTable;
using test::MakeTask;

// A device's compute is the sum of its tables' pooling factors (ms); no communication. So a
// plan's measured cost is the largest load, and the best plan balances the pooling factors.
class LoadBackend : public HardwareBackend {
 public:
  std::string name() const override { return "fake"; }
  std::string hardware_profile() const override { return "fake-load"; }
  absl::StatusOr<double> MeasureCompute(std::span<const Table> tables, int64_t) override {
    double ms = 0.0;
    for (const Table& t : tables) ms += t.pooling_factor;
    return ms;
  }
  absl::StatusOr<CommMeasurement> MeasureComm(const Topology*, std::span<const int64_t> dim_sums,
                                              std::span<const double>, int64_t) override {
    return CommMeasurement{std::vector<double>(dim_sums.size(), 0.0),
                           std::vector<double>(dim_sums.size(), 0.0)};
  }
};

// Six tables of pooling factors 6..1 on two devices: the best plan's largest load is 11.
Task ToyTask() {
  std::vector<Table> tables;
  for (int i = 0; i < 6; ++i) {
    Table table = MakeTable(absl::StrCat("t", i), 1000, 16, 6.0 - i);
    table.access_bins.assign(kNumAccessBins, 0.0);
    table.access_bins[0] = 1.0;
    tables.push_back(table);
  }
  return MakeTask(std::move(tables), 2, kGiB);
}

DreamShardTrainOptions SmallOptions() {
  DreamShardTrainOptions options;
  options.num_iterations = 4;
  options.bench_steps = 4;
  options.bench_training_steps = 20;
  options.batch_size = 16;
  options.rl_num_batches = 3;
  options.rl_batch_size = 4;
  options.seed = 5;
  return options;
}

// The measured cost of the policy's argmax plan.
double PlanCost(const Task& task, const Policy& trained, HardwareBackend& backend) {
  Policy policy = trained;
  policy.name = "toy";
  policy.version = "1";
  DreamShardPlanner planner;
  StopSignal stop;
  PlanningContext context;
  context.policy = &policy;
  context.stop = &stop;
  const Plan plan = planner.Run(CanonicalTask(task), context).value();
  return ScorePlanOnHardware(CanonicalTask(task), plan, backend).value().cost_ms;
}

TEST(DreamShardTrainerTest, TrainingFindsTheBalancedPlanOfAToyTask) {
  SHARDPLAN_SKIP_LONG_TRAINING_WHEN_SANITIZED();
  LoadBackend backend;
  const std::vector<Task> tasks = {ToyTask()};
  DreamShardTrainOptions untrained_options = SmallOptions();
  untrained_options.num_iterations = 1;
  untrained_options.bench_training_steps = 0;
  untrained_options.rl_num_batches = 0;
  DreamShardTrainOptions options;  // the reference's defaults
  options.seed = 5;
  const DreamShardTrainResult untrained =
      TrainDreamShard(tasks, backend, untrained_options).value();
  const DreamShardTrainResult trained = TrainDreamShard(tasks, backend, options).value();
  const double before = PlanCost(tasks[0], untrained.policy, backend);
  const double after = PlanCost(tasks[0], trained.policy, backend);
  EXPECT_GE(before, 13.0) << "the untrained policy is far from balanced";
  EXPECT_EQ(after, 11.0) << "the trained policy balances the loads";
  ASSERT_EQ(trained.curve.size(), 10u);
  EXPECT_EQ(trained.episodes, 10 * (10 + 10 * 10));
  EXPECT_EQ(trained.updates, 10 * (300 + 10));
  EXPECT_EQ(trained.policy.hardware_profile, "fake-load");
}

TEST(DreamShardTrainerTest, TheSameSeedGivesTheSameTensors) {
  LoadBackend backend;
  const std::vector<Task> tasks = {ToyTask()};
  const DreamShardTrainResult a = TrainDreamShard(tasks, backend, SmallOptions()).value();
  const DreamShardTrainResult b = TrainDreamShard(tasks, backend, SmallOptions()).value();
  EXPECT_EQ(a.params, b.params);
  // An evaluation hook sees every iteration's policy and changes nothing.
  DreamShardTrainOptions evaluated = SmallOptions();
  int calls = 0;
  evaluated.evaluate = [&](const Policy& policy) -> absl::StatusOr<double> {
    EXPECT_TRUE(CheckDreamShardPolicy(policy).ok());
    return ++calls;
  };
  const DreamShardTrainResult c = TrainDreamShard(tasks, backend, evaluated).value();
  EXPECT_EQ(c.params, a.params);
  ASSERT_EQ(calls, 4);
  EXPECT_EQ(c.curve.back().evaluation, 4.0);
  DreamShardTrainOptions other = SmallOptions();
  other.seed = 6;
  EXPECT_NE(TrainDreamShard(tasks, backend, other).value().params, a.params);
}

// Sets `stop` once `lines` progress lines were written: a Ctrl-C between iterations.
class StopAfterLines : public std::streambuf {
 public:
  StopAfterLines(std::atomic<bool>* stop, int lines) : stop_(stop), lines_(lines) {}

 protected:
  int overflow(int c) override {
    if (c == '\n' && --lines_ == 0) stop_->store(true);
    return c;
  }

 private:
  std::atomic<bool>* stop_;
  int lines_;
};

TEST(DreamShardTrainerTest, AResumedRunEqualsTheUninterruptedOne) {
  LoadBackend backend;
  const std::vector<Task> tasks = {ToyTask()};
  const std::string checkpoint =
      (std::filesystem::path(::testing::TempDir()) / "dreamshard_resume.checkpoint").string();
  std::filesystem::remove(checkpoint);
  const DreamShardTrainResult whole = TrainDreamShard(tasks, backend, SmallOptions()).value();

  std::atomic<bool> stop = false;
  StopAfterLines buffer(&stop, 2);
  std::ostream progress(&buffer);
  DreamShardTrainOptions first = SmallOptions();
  first.checkpoint = checkpoint;
  first.progress = &progress;
  first.stop = &stop;
  const DreamShardTrainResult interrupted = TrainDreamShard(tasks, backend, first).value();
  EXPECT_TRUE(interrupted.interrupted);
  EXPECT_EQ(interrupted.curve.size(), 2u);

  DreamShardTrainOptions second = SmallOptions();
  second.checkpoint = checkpoint;
  second.resume = true;
  const DreamShardTrainResult resumed = TrainDreamShard(tasks, backend, second).value();
  EXPECT_FALSE(resumed.interrupted);
  EXPECT_EQ(resumed.params, whole.params);
  EXPECT_EQ(resumed.episodes, whole.episodes);
  EXPECT_EQ(resumed.updates, whole.updates);
  ASSERT_EQ(resumed.curve.size(), whole.curve.size());
  for (size_t i = 0; i < whole.curve.size(); ++i) {
    EXPECT_EQ(resumed.curve[i].mean_measured_ms, whole.curve[i].mean_measured_ms);
    EXPECT_EQ(resumed.curve[i].mean_rl_reward, whole.curve[i].mean_rl_reward);
  }

  // A checkpoint of other options is refused, naming it.
  DreamShardTrainOptions other = SmallOptions();
  other.checkpoint = checkpoint;
  other.resume = true;
  other.rl_batch_size = 5;
  const absl::StatusOr<DreamShardTrainResult> refused = TrainDreamShard(tasks, backend, other);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find(checkpoint), std::string::npos);
  std::filesystem::remove(checkpoint);
}

TEST(DreamShardTrainerTest, RefusesNoTasksAndBadOptions) {
  LoadBackend backend;
  EXPECT_EQ(TrainDreamShard({}, backend, SmallOptions()).status().code(),
            absl::StatusCode::kInvalidArgument);
  DreamShardTrainOptions bad = SmallOptions();
  bad.num_iterations = 0;
  const std::vector<Task> tasks = {ToyTask()};
  EXPECT_EQ(TrainDreamShard(tasks, backend, bad).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(DreamShardTrainerTest, MeanAccessBinsAverageTheTablesThatHaveOne) {
  Task task = ToyTask();
  task.tables[0].access_bins.assign(kNumAccessBins, 0.0);
  task.tables[0].access_bins[1] = 1.0;
  task.tables[1].access_bins.clear();  // not counted
  const std::vector<double> mean = MeanAccessBins(std::vector<Task>{task});
  EXPECT_DOUBLE_EQ(mean[0], 4.0 / 5.0);
  EXPECT_DOUBLE_EQ(mean[1], 1.0 / 5.0);
}

}  // namespace
}  // namespace shardplan::rl
