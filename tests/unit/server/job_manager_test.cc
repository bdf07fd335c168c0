#include "server/job_manager.h"

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/text_serializer.h"
#include "server/metrics.h"

namespace shardplan {
namespace {

using std::chrono::seconds;
using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

// Generous: only reached when something is broken.
constexpr auto kTimeout = seconds(20);

// Work that runs until released or stopped; counts how often it started.
struct Gate {
  std::atomic<bool> released{false};
  std::atomic<int> started{0};

  JobManager::Work Work() {
    return [this](const StopSignal& stop,
                  const JobManager::ProgressFn& progress) -> absl::StatusOr<PlanningResult> {
      started.fetch_add(1);
      progress(PlanningProgress{"blocked", 0.5});
      while (!released.load()) {
        if (absl::Status status = stop.Check(); !status.ok()) return status;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      PlanningResult result;
      result.plan.algorithm = "gate";
      return result;
    };
  }
};

JobManager::Work Succeeds() {
  return [](const StopSignal&, const JobManager::ProgressFn&) -> absl::StatusOr<PlanningResult> {
    PlanningResult result;
    result.plan.algorithm = "quick";
    return result;
  };
}

// Polls until the job is in `state` (or the timeout passes) and returns its snapshot.
JobSnapshot AwaitState(const JobManager& jobs, const std::string& id, JobState state) {
  const auto deadline = Clock::now() + kTimeout;
  absl::StatusOr<JobSnapshot> job = jobs.Get(id);
  while (job.ok() && job->state != state && Clock::now() < deadline) {
    job = jobs.WaitForChange(id, job->version, Clock::now() + std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->state, state) << JobStateName(job->state);
  return *job;
}

void AwaitStarted(const Gate& gate, int count) {
  const auto deadline = Clock::now() + kTimeout;
  while (gate.started.load() < count && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_GE(gate.started.load(), count);
}

TEST(JobManagerTest, RunsAJobToSuccess) {
  JobManager jobs({.workers = 2});
  absl::StatusOr<JobSnapshot> submitted = jobs.Submit(Succeeds());
  ASSERT_TRUE(submitted.ok()) << submitted.status();
  EXPECT_EQ(submitted->id.size(), 32u);
  EXPECT_EQ(submitted->id.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_GT(submitted->submitted_unix_ms, 0);

  JobSnapshot done = AwaitState(jobs, submitted->id, JobState::kSucceeded);
  ASSERT_NE(done.result, nullptr);
  EXPECT_EQ(done.result->plan.algorithm, "quick");
  EXPECT_TRUE(done.error.ok());
  EXPECT_GE(done.started_unix_ms, done.submitted_unix_ms);
  EXPECT_GE(done.finished_unix_ms, done.started_unix_ms);
  EXPECT_EQ(done.progress_fraction, 1.0);
  EXPECT_GT(done.version, submitted->version);
}

TEST(JobManagerTest, IdsAreUnique) {
  Gate gate;
  JobManager jobs({.workers = 1, .queue_capacity = 100});
  std::set<std::string> ids;
  for (int i = 0; i < 50; ++i) ids.insert(jobs.Submit(gate.Work())->id);
  EXPECT_EQ(ids.size(), 50u);
  gate.released = true;
}

TEST(JobManagerTest, FailedWorkEndsFailedWithItsError) {
  JobManager jobs({.workers = 1});
  auto id = jobs.Submit([](const StopSignal&,
                           const JobManager::ProgressFn&) -> absl::StatusOr<PlanningResult> {
                  return absl::FailedPreconditionError("table t3 fits nowhere");
                })
                ->id;
  JobSnapshot done = AwaitState(jobs, id, JobState::kFailed);
  EXPECT_EQ(done.error.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(done.error.message(), "table t3 fits nowhere");
  EXPECT_EQ(done.result, nullptr);
}

TEST(JobManagerTest, AnExceptionFailsTheJobNotTheServer) {
  JobManager jobs({.workers = 1});
  auto id = jobs.Submit([](const StopSignal&,
                           const JobManager::ProgressFn&) -> absl::StatusOr<PlanningResult> {
                  throw std::runtime_error("boom");
                })
                ->id;
  JobSnapshot done = AwaitState(jobs, id, JobState::kFailed);
  EXPECT_EQ(done.error.code(), absl::StatusCode::kInternal);
  // The worker survived: another job still runs.
  AwaitState(jobs, jobs.Submit(Succeeds())->id, JobState::kSucceeded);
}

TEST(JobManagerTest, SubmitOptionsGiveIdKeyTimeAndResumePastCapacity) {
  Gate gate;
  JobManager jobs({.workers = 1, .queue_capacity = 1});
  const std::string id = NewJobId();
  absl::StatusOr<JobSnapshot> first =
      jobs.Submit(gate.Work(), {.id = id, .job_key = "train/a", .submitted_unix_ms = 1234});
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->id, id);
  EXPECT_EQ(first->job_key, "train/a");
  EXPECT_EQ(first->submitted_unix_ms, 1234);
  EXPECT_EQ(jobs.Submit(gate.Work(), {.id = id}).status().code(), absl::StatusCode::kAlreadyExists);
  AwaitStarted(gate, 1);
  ASSERT_TRUE(jobs.Submit(gate.Work()).ok());  // fills the queue
  EXPECT_EQ(jobs.Submit(gate.Work()).status().code(), absl::StatusCode::kResourceExhausted);
  // A job accepted before a restart is owed its run, queue full or not.
  EXPECT_TRUE(jobs.Submit(gate.Work(), {.ignore_capacity = true}).ok());
  EXPECT_EQ(jobs.queued(), 2);
  gate.released = true;
  EXPECT_TRUE(jobs.WaitUntilIdle(Clock::now() + kTimeout));
}

TEST(JobManagerTest, QueueIsBounded) {
  Gate gate;
  JobManager jobs({.workers = 1, .queue_capacity = 2});
  auto running = jobs.Submit(gate.Work());
  ASSERT_TRUE(running.ok());
  AwaitStarted(gate, 1);
  ASSERT_TRUE(jobs.Submit(gate.Work()).ok());
  ASSERT_TRUE(jobs.Submit(gate.Work()).ok());
  EXPECT_EQ(jobs.queued(), 2);
  EXPECT_EQ(jobs.running(), 1);

  absl::StatusOr<JobSnapshot> refused = jobs.Submit(gate.Work());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.status().message().find("queue is full"), absl::string_view::npos);

  gate.released = true;
  AwaitState(jobs, running->id, JobState::kSucceeded);
  EXPECT_TRUE(jobs.WaitUntilIdle(Clock::now() + kTimeout));
  EXPECT_TRUE(jobs.Submit(Succeeds()).ok());  // room again
}

TEST(JobManagerTest, CancellingAQueuedJobCancelsItAtOnce) {
  Gate blocker;
  Gate queued_gate;
  JobManager jobs({.workers = 1});
  ASSERT_TRUE(jobs.Submit(blocker.Work()).ok());
  AwaitStarted(blocker, 1);
  auto queued = jobs.Submit(queued_gate.Work());
  ASSERT_TRUE(queued.ok());

  absl::StatusOr<JobSnapshot> cancelled = jobs.Cancel(queued->id);
  ASSERT_TRUE(cancelled.ok());
  EXPECT_EQ(cancelled->state, JobState::kCancelled);
  EXPECT_EQ(cancelled->error.code(), absl::StatusCode::kCancelled);
  EXPECT_GT(cancelled->finished_unix_ms, 0);
  EXPECT_EQ(jobs.queued(), 0);

  blocker.released = true;
  queued_gate.released = true;
  EXPECT_TRUE(jobs.WaitUntilIdle(Clock::now() + kTimeout));
  EXPECT_EQ(queued_gate.started.load(), 0);  // it never ran
}

TEST(JobManagerTest, CancellingARunningJobStopsIt) {
  Gate gate;  // never released: only the stop signal ends it
  JobManager jobs({.workers = 1});
  auto job = jobs.Submit(gate.Work());
  AwaitStarted(gate, 1);
  AwaitState(jobs, job->id, JobState::kRunning);

  absl::StatusOr<JobSnapshot> after = jobs.Cancel(job->id);
  ASSERT_TRUE(after.ok());
  JobSnapshot done = AwaitState(jobs, job->id, JobState::kCancelled);
  EXPECT_EQ(done.error.code(), absl::StatusCode::kCancelled);
}

TEST(JobManagerTest, CancellingAnAnytimePlannerEndsCancelledNotWithItsPartialPlan) {
  // Like NeuroShard: on a stop it returns the best plan found so far instead of an error.
  std::atomic<bool> running{false};
  JobManager jobs({.workers = 1});
  auto job = jobs.Submit(
      [&](const StopSignal& stop, const JobManager::ProgressFn&) -> absl::StatusOr<PlanningResult> {
        running = true;
        while (stop.Check().ok()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        PlanningResult partial;
        partial.plan.algorithm = "anytime";
        partial.plan.stats.anytime_result = true;
        return partial;
      });
  while (!running.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(jobs.Cancel(job->id).ok());
  JobSnapshot done = AwaitState(jobs, job->id, JobState::kCancelled);
  EXPECT_EQ(done.error.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(done.result, nullptr);
}

TEST(JobManagerTest, CancellingAFinishedJobChangesNothing) {
  JobManager jobs({.workers = 1});
  auto id = jobs.Submit(Succeeds())->id;
  JobSnapshot done = AwaitState(jobs, id, JobState::kSucceeded);
  absl::StatusOr<JobSnapshot> again = jobs.Cancel(id);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->state, JobState::kSucceeded);
  EXPECT_EQ(again->version, done.version);
  ASSERT_NE(again->result, nullptr);
}

TEST(JobManagerTest, UnknownIdsAreNotFound) {
  JobManager jobs({.workers = 1});
  EXPECT_EQ(jobs.Get("nope").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(jobs.Cancel("nope").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(jobs.WaitForChange("nope", 0, Clock::now()).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_NE(jobs.Get("nope").status().message().find("job_id"), absl::string_view::npos);
}

TEST(JobManagerTest, RetainsOnlyTheNewestFinishedJobs) {
  JobManager jobs({.workers = 1, .max_retained_jobs = 2});
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    ids.push_back(jobs.Submit(Succeeds())->id);
    AwaitState(jobs, ids.back(), JobState::kSucceeded);
  }
  EXPECT_EQ(jobs.Get(ids[0]).status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(jobs.Get(ids[1]).ok());
  EXPECT_TRUE(jobs.Get(ids[2]).ok());
}

// A plan of `tables` tables, each on device 0.
JobManager::Work SucceedsWithTables(int tables) {
  return
      [tables](const StopSignal&, const JobManager::ProgressFn&) -> absl::StatusOr<PlanningResult> {
        PlanningResult result;
        for (int i = 0; i < tables; ++i) {
          result.plan.tables.push_back(TableSharding{.table = absl::StrCat("table_", i),
                                                     .shards = {Shard{.row_count = 10}}});
        }
        return result;
      };
}

TEST(JobManagerTest, RetainedJobsAreBoundedByTheirPlansBytes) {
  ServerMetrics metrics;
  // A 1000-table plan is some 100 KB: 300 KB holds two of them, never three.
  JobManager jobs({.workers = 1, .max_retained_jobs = 100, .max_retained_job_bytes = 300000},
                  &metrics);
  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i) {
    ids.push_back(jobs.Submit(SucceedsWithTables(1000))->id);
    AwaitState(jobs, ids.back(), JobState::kSucceeded);
  }
  EXPECT_EQ(jobs.Get(ids[0]).status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(jobs.Get(ids[0]).status().message()),
              HasSubstr("300000 bytes of their plans in memory"));
  EXPECT_TRUE(jobs.Get(ids[3]).ok());
  const std::string text = prometheus::TextSerializer().Serialize(metrics.registry()->Collect());
  EXPECT_THAT(text, HasSubstr("shardplan_jobs_forgotten_total{reason=\"bytes\"}"));
  EXPECT_THAT(text, ::testing::ContainsRegex("shardplan_retained_job_bytes [1-2][0-9]{5}"));

  // One plan larger than the bound is still kept while it is the newest.
  JobManager tiny({.workers = 1, .max_retained_job_bytes = 1000});
  const std::string big = tiny.Submit(SucceedsWithTables(1000))->id;
  AwaitState(tiny, big, JobState::kSucceeded);
  EXPECT_TRUE(tiny.Get(big).ok());
}

TEST(JobManagerTest, RetainedJobsAreBoundedByAge) {
  ServerMetrics metrics;
  JobManager jobs({.workers = 1, .max_retained_job_age = std::chrono::milliseconds(1)}, &metrics);
  const std::string first = jobs.Submit(Succeeds())->id;
  AwaitState(jobs, first, JobState::kSucceeded);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // older than the bound
  const std::string second = jobs.Submit(Succeeds())->id;
  AwaitState(jobs, second, JobState::kSucceeded);  // the newest finished job is always kept
  EXPECT_EQ(jobs.Get(first).status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(prometheus::TextSerializer().Serialize(metrics.registry()->Collect()),
              HasSubstr("shardplan_jobs_forgotten_total{reason=\"age\"} 1"));
}

TEST(JobManagerTest, RunningAndQueuedJobsAreNotEvicted) {
  Gate gate;
  JobManager jobs({.workers = 1, .queue_capacity = 10, .max_retained_jobs = 1});
  auto running = jobs.Submit(gate.Work());
  AwaitStarted(gate, 1);
  auto queued = jobs.Submit(Succeeds());
  for (int i = 0; i < 3; ++i) {
    auto cancelled = jobs.Submit(Succeeds());
    ASSERT_TRUE(jobs.Cancel(cancelled->id).ok());  // finishes (cancelled) at once
  }
  EXPECT_TRUE(jobs.Get(running->id).ok());
  EXPECT_TRUE(jobs.Get(queued->id).ok());
  gate.released = true;
}

TEST(JobManagerTest, WatchersSeeProgressAndTheEnd) {
  Gate gate;
  JobManager jobs({.workers = 1, .progress_interval = std::chrono::milliseconds(0)});
  auto job = jobs.Submit(gate.Work());
  AwaitStarted(gate, 1);
  JobSnapshot running = AwaitState(jobs, job->id, JobState::kRunning);
  EXPECT_EQ(running.progress, "blocked");
  EXPECT_DOUBLE_EQ(running.progress_fraction, 0.5);

  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    gate.released = true;
  });
  absl::StatusOr<JobSnapshot> next =
      jobs.WaitForChange(job->id, running.version, Clock::now() + kTimeout);
  release.join();
  ASSERT_TRUE(next.ok());
  EXPECT_NE(next->version, running.version);
  AwaitState(jobs, job->id, JobState::kSucceeded);
}

TEST(JobManagerTest, WaitForChangeTimesOutWithoutAChange) {
  Gate gate;
  JobManager jobs({.workers = 1});
  auto job = jobs.Submit(gate.Work());
  AwaitStarted(gate, 1);
  JobSnapshot running = AwaitState(jobs, job->id, JobState::kRunning);
  absl::StatusOr<JobSnapshot> same =
      jobs.WaitForChange(job->id, running.version, Clock::now() + std::chrono::milliseconds(30));
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->version, running.version);
  gate.released = true;
}

TEST(JobManagerTest, StopAcceptingRefusesNewJobsButFinishesOldOnes) {
  Gate gate;
  JobManager jobs({.workers = 1});
  auto job = jobs.Submit(gate.Work());
  jobs.StopAccepting();
  EXPECT_EQ(jobs.Submit(Succeeds()).status().code(), absl::StatusCode::kUnavailable);
  EXPECT_FALSE(jobs.WaitUntilIdle(Clock::now() + std::chrono::milliseconds(20)));
  gate.released = true;
  EXPECT_TRUE(jobs.WaitUntilIdle(Clock::now() + kTimeout));
  EXPECT_EQ(jobs.Get(job->id)->state, JobState::kSucceeded);
}

TEST(JobManagerTest, ShutdownCancelsQueuedAndRunningJobs) {
  Gate gate;  // never released
  JobManager jobs({.workers = 1, .queue_capacity = 4});
  auto running = jobs.Submit(gate.Work());
  AwaitStarted(gate, 1);
  auto queued = jobs.Submit(gate.Work());
  jobs.Shutdown();  // returns only once the running job stopped
  EXPECT_EQ(jobs.Get(running->id)->state, JobState::kCancelled);
  EXPECT_EQ(jobs.Get(queued->id)->state, JobState::kCancelled);
  EXPECT_EQ(gate.started.load(), 1);
  EXPECT_EQ(jobs.Submit(Succeeds()).status().code(), absl::StatusCode::kUnavailable);
  jobs.Shutdown();  // idempotent
}

}  // namespace
}  // namespace shardplan
