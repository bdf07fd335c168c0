#ifndef SHARDPLAN_SERVER_JOB_MANAGER_H_
#define SHARDPLAN_SERVER_JOB_MANAGER_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "planner/framework/algorithm.h"
#include "planner/framework/stop_signal.h"
#include "server/planning_result.h"

namespace shardplan {

class ServerMetrics;

enum class JobState { kQueued, kRunning, kSucceeded, kFailed, kCancelled };

// "QUEUED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED" (the proto enum names).
const char* JobStateName(JobState state);
inline bool IsTerminal(JobState state) {
  return state == JobState::kSucceeded || state == JobState::kFailed ||
         state == JobState::kCancelled;
}

// A consistent copy of a job's state.
struct JobSnapshot {
  std::string id;
  std::string job_key;  // the request's job key; "" for none
  // The client identity that submitted it (ClientIdentity); "" when unknown (a record from
  // before schema version 3). Whom GetPlan, WatchPlan and CancelPlan answer (MaySeeJob).
  std::string submitted_by;
  JobState state = JobState::kQueued;
  std::shared_ptr<const PlanningResult> result;  // set when kSucceeded
  absl::Status error;                            // set when kFailed or kCancelled
  std::string progress;
  double progress_fraction = 0.0;
  int64_t submitted_unix_ms = 0;
  int64_t started_unix_ms = 0;   // 0 until it runs
  int64_t finished_unix_ms = 0;  // 0 until it ends
  uint64_t version = 0;          // grows with every visible change
};

struct JobManagerOptions {
  int workers = 2;               // threads running jobs
  int queue_capacity = 64;       // jobs waiting for a worker
  // Finished jobs kept in memory for Get/WaitForChange, the oldest forgotten first whichever
  // bound is passed: their count, their plans' bytes (ApproximatePlanBytes: a 100,000-table
  // plan is about 13 MB) and their age (0: none). The job that just finished is always kept.
  // The plan store (when there is one) still answers for forgotten jobs.
  int max_retained_jobs = 1000;
  int64_t max_retained_job_bytes = int64_t{256} << 20;
  std::chrono::milliseconds max_retained_job_age{0};
  // Progress reports closer together than this update the job without waking watchers, so a
  // planner reporting in a tight loop cannot flood WatchPlan streams.
  std::chrono::milliseconds progress_interval{50};
};

// A new random job id: 32 lowercase hex characters (128 bits), unique in practice across
// servers and restarts, so a durable store can hand it out before the job is queued.
std::string NewJobId();

// How Submit queues a job; the defaults suit a new job.
struct SubmitOptions {
  std::string id;                 // "": NewJobId(); else this id (ALREADY_EXISTS when taken)
  std::string job_key;            // shown in snapshots
  std::string submitted_by;       // shown in snapshots (JobSnapshot::submitted_by)
  int64_t submitted_unix_ms = 0;  // 0: now; a resumed job keeps its first submission time
  // A job accepted before a restart is resumed even when the queue is at capacity: it was
  // accepted once and is owed its run.
  bool ignore_capacity = false;
};

// A bounded queue of planning jobs run by a fixed pool of worker threads. Thread-safe.
class JobManager {
 public:
  using ProgressFn = std::function<void(const PlanningProgress&)>;
  // The job's work: plans, polls `stop`, and may report progress. A CANCELLED result ends the
  // job CANCELLED, another error FAILED, a value SUCCEEDED.
  using Work = std::function<absl::StatusOr<PlanningResult>(const StopSignal& stop,
                                                            const ProgressFn& on_progress)>;

  // `metrics` may be null (tests).
  explicit JobManager(JobManagerOptions options, ServerMetrics* metrics = nullptr);
  ~JobManager();  // Shutdown()
  JobManager(const JobManager&) = delete;
  JobManager& operator=(const JobManager&) = delete;

  // Queues `work` (under a new random id unless options.id is set). RESOURCE_EXHAUSTED when the
  // queue is full, UNAVAILABLE after StopAccepting, ALREADY_EXISTS when options.id is taken.
  absl::StatusOr<JobSnapshot> Submit(Work work, SubmitOptions options = {});

  // NOT_FOUND for an unknown (or no longer retained) id.
  absl::StatusOr<JobSnapshot> Get(const std::string& id) const;

  // A queued job is cancelled at once; a running one is told to stop (its state changes when its
  // work returns); a finished one is left as it is. Returns the job's state after the call.
  absl::StatusOr<JobSnapshot> Cancel(const std::string& id);

  // Blocks until the job's version differs from `seen_version` or `deadline` passes, then
  // returns its latest snapshot (check `version` to tell which happened).
  absl::StatusOr<JobSnapshot> WaitForChange(const std::string& id, uint64_t seen_version,
                                            std::chrono::steady_clock::time_point deadline) const;

  // Submit answers UNAVAILABLE from now on; queued and running jobs go on.
  void StopAccepting();
  // Waits until no job is queued or running, or `deadline`; true when idle.
  bool WaitUntilIdle(std::chrono::steady_clock::time_point deadline) const;
  // Cancels every queued job and tells every running one to stop.
  void CancelAll();
  // StopAccepting, CancelAll, and joins the workers (after their jobs stop). Idempotent.
  void Shutdown();

  int64_t queued() const;
  int64_t running() const;

  // The NOT_FOUND Get, Cancel and WaitForChange answer for an id they do not hold: also what a
  // caller who may not see a job is told, so that the answer does not say the id exists.
  absl::Status NotFound(const std::string& id) const;

 private:
  struct Job;

  void WorkerLoop();
  void ReportProgress(Job& job, const PlanningProgress& progress);
  JobSnapshot SnapshotLocked(const Job& job) const;
  // `result_bytes`: ApproximatePlanBytes of a successful outcome's plan, measured outside the
  // lock (0 otherwise).
  void FinishLocked(Job& job, absl::StatusOr<PlanningResult> outcome, int64_t result_bytes = 0);
  // Forgets the oldest finished jobs (never the newest) past the count, bytes or age bound.
  void ForgetOldJobsLocked();
  void CancelQueuedLocked(Job& job, const std::string& reason);
  void ChangedLocked(Job& job);
  void UpdateLoadLocked();
  std::string NewIdLocked() const;

  const JobManagerOptions options_;
  ServerMetrics* const metrics_;

  mutable std::mutex mu_;
  std::condition_variable work_cv_;            // a job was queued, or shutting down
  mutable std::condition_variable change_cv_;  // some job changed
  std::unordered_map<std::string, std::shared_ptr<Job>> jobs_;
  std::deque<std::shared_ptr<Job>> queue_;
  std::deque<std::string> finished_;  // ids of retained finished jobs, oldest first
  int64_t retained_bytes_ = 0;        // their retained_bytes, summed
  int64_t running_ = 0;
  bool accepting_ = true;
  bool shutting_down_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_JOB_MANAGER_H_
