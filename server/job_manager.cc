#include "server/job_manager.h"

#include <openssl/rand.h>

#include <algorithm>
#include <exception>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "server/metrics.h"
#include "server/plan_cache.h"
#include "server/retry_after.h"

namespace shardplan {
namespace {

std::string RandomHexId() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) {
    // OpenSSL's generator failed (no entropy source): ids need only be unique and unguessable
    // enough for a trusted network, which std::random_device still gives.
    std::random_device device;
    for (unsigned char& b : bytes) b = static_cast<unsigned char>(device());
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  for (unsigned char b : bytes) {
    id.push_back(kHex[b >> 4]);
    id.push_back(kHex[b & 0xf]);
  }
  return id;
}

// At least one worker, and the job that just finished is always retained (callers still
// reference it).
JobManagerOptions Sanitized(JobManagerOptions options) {
  options.workers = std::max(options.workers, 1);
  options.queue_capacity = std::max(options.queue_capacity, 0);
  options.max_retained_jobs = std::max(options.max_retained_jobs, 1);
  return options;
}

}  // namespace

std::string NewJobId() { return RandomHexId(); }

struct JobManager::Job {
  std::string id;
  std::string job_key;
  std::string submitted_by;
  Work work;  // cleared once started
  JobState state = JobState::kQueued;
  std::shared_ptr<const PlanningResult> result;
  absl::Status error;
  std::string progress = "queued";
  double progress_fraction = 0.0;
  int64_t submitted_unix_ms = 0;
  int64_t started_unix_ms = 0;
  int64_t finished_unix_ms = 0;
  uint64_t version = 0;
  int64_t retained_bytes = 0;  // once finished: what keeping it costs (ForgetOldJobsLocked)
  std::chrono::steady_clock::time_point last_progress_notice;
  StopSignal stop;
};

const char* JobStateName(JobState state) {
  switch (state) {
    case JobState::kQueued:
      return "QUEUED";
    case JobState::kRunning:
      return "RUNNING";
    case JobState::kSucceeded:
      return "SUCCEEDED";
    case JobState::kFailed:
      return "FAILED";
    case JobState::kCancelled:
      return "CANCELLED";
  }
  return "UNKNOWN";
}

JobManager::JobManager(JobManagerOptions options, ServerMetrics* metrics)
    : options_(Sanitized(options)), metrics_(metrics) {
  workers_.reserve(options_.workers);
  for (int i = 0; i < options_.workers; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

JobManager::~JobManager() { Shutdown(); }

absl::StatusOr<JobSnapshot> JobManager::Submit(Work work, SubmitOptions options) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!accepting_) {
    return absl::UnavailableError("the server is shutting down and accepts no new jobs");
  }
  if (!options.id.empty() && jobs_.contains(options.id)) {
    return absl::AlreadyExistsError(absl::StrCat("job_id: job ", options.id, " exists"));
  }
  if (!options.ignore_capacity &&
      static_cast<int64_t>(queue_.size()) >= options_.queue_capacity) {
    return WithRetryAfter(
        absl::ResourceExhaustedError(absl::StrCat("queue_capacity: the job queue is full (",
                                                  queue_.size(),
                                                  " jobs waiting for a worker); retry later")),
        absl::Seconds(1));
  }
  auto job = std::make_shared<Job>();
  job->id = options.id.empty() ? NewIdLocked() : std::move(options.id);
  job->job_key = std::move(options.job_key);
  job->submitted_by = std::move(options.submitted_by);
  job->work = std::move(work);
  job->submitted_unix_ms = options.submitted_unix_ms > 0 ? options.submitted_unix_ms
                                                          : absl::ToUnixMillis(absl::Now());
  job->version = 1;
  jobs_.emplace(job->id, job);
  queue_.push_back(job);
  ForgetOldJobsLocked();  // ages pass between finishes too
  UpdateLoadLocked();
  work_cv_.notify_one();
  return SnapshotLocked(*job);
}

absl::StatusOr<JobSnapshot> JobManager::Get(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto found = jobs_.find(id);
  if (found == jobs_.end()) return NotFound(id);
  return SnapshotLocked(*found->second);
}

absl::StatusOr<JobSnapshot> JobManager::Cancel(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto found = jobs_.find(id);
  if (found == jobs_.end()) return NotFound(id);
  const std::shared_ptr<Job> held = found->second;  // retention may drop it from jobs_
  Job& job = *held;
  if (job.state == JobState::kQueued) {
    CancelQueuedLocked(job, "cancelled before it started");
  } else if (job.state == JobState::kRunning) {
    job.stop.RequestCancel();
    job.progress = "cancelling";
    ChangedLocked(job);
  }
  return SnapshotLocked(job);
}

absl::StatusOr<JobSnapshot> JobManager::WaitForChange(
    const std::string& id, uint64_t seen_version,
    std::chrono::steady_clock::time_point deadline) const {
  std::unique_lock<std::mutex> lock(mu_);
  std::shared_ptr<Job> job;
  change_cv_.wait_until(lock, deadline, [&] {
    auto found = jobs_.find(id);
    job = found == jobs_.end() ? nullptr : found->second;
    return job == nullptr || job->version != seen_version;
  });
  if (job == nullptr) return NotFound(id);
  return SnapshotLocked(*job);
}

void JobManager::StopAccepting() {
  std::lock_guard<std::mutex> lock(mu_);
  accepting_ = false;
}

bool JobManager::WaitUntilIdle(std::chrono::steady_clock::time_point deadline) const {
  std::unique_lock<std::mutex> lock(mu_);
  return change_cv_.wait_until(lock, deadline, [&] { return queue_.empty() && running_ == 0; });
}

void JobManager::CancelAll() {
  std::lock_guard<std::mutex> lock(mu_);
  while (!queue_.empty()) {
    const std::shared_ptr<Job> job = queue_.front();
    CancelQueuedLocked(*job, "cancelled before it started: the server is shutting down");
  }
  for (auto& [id, job] : jobs_) {
    if (job->state == JobState::kRunning) job->stop.RequestCancel();
  }
}

void JobManager::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shutting_down_) return;
    accepting_ = false;
  }
  CancelAll();
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutting_down_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
}

int64_t JobManager::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(queue_.size());
}

int64_t JobManager::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_;
}

void JobManager::WorkerLoop() {
  while (true) {
    std::shared_ptr<Job> job;
    Work work;
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_cv_.wait(lock, [&] { return !queue_.empty() || shutting_down_; });
      if (queue_.empty()) return;  // shutting down
      job = queue_.front();
      queue_.pop_front();
      job->state = JobState::kRunning;
      job->started_unix_ms = absl::ToUnixMillis(absl::Now());
      job->progress = "running";
      work = std::move(job->work);
      job->work = nullptr;
      ++running_;
      UpdateLoadLocked();
      ChangedLocked(*job);
    }
    absl::StatusOr<PlanningResult> outcome;
    try {
      outcome =
          work(job->stop, [this, &job](const PlanningProgress& p) { ReportProgress(*job, p); });
    } catch (const std::exception& e) {
      // Nothing of ours throws; this keeps a library bug from taking the server down.
      outcome = absl::InternalError(absl::StrCat("planning failed: ", e.what()));
    } catch (...) {
      outcome = absl::InternalError("planning failed with an unknown exception");
    }
    work = nullptr;  // release what the work captured (the request) outside the lock
    // An anytime planner answers a stop with its best plan so far; that is right for a
    // deadline, but a cancelled job must end cancelled, not succeed with a partial search.
    if (outcome.ok() && job->stop.cancelled()) {
      outcome = absl::CancelledError("planning was cancelled");
    }
    // Measured outside the lock: a 100,000-table plan takes a while to measure.
    const int64_t result_bytes = outcome.ok() ? ApproximatePlanBytes(outcome->plan) : 0;
    std::lock_guard<std::mutex> lock(mu_);
    --running_;
    FinishLocked(*job, std::move(outcome), result_bytes);
    UpdateLoadLocked();
  }
}

void JobManager::ReportProgress(Job& job, const PlanningProgress& progress) {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  if (job.state != JobState::kRunning) return;
  job.progress = progress.message;
  job.progress_fraction = std::clamp(progress.fraction, 0.0, 1.0);
  if (now - job.last_progress_notice >= options_.progress_interval) {
    job.last_progress_notice = now;
    ChangedLocked(job);
  }
}

JobSnapshot JobManager::SnapshotLocked(const Job& job) const {
  JobSnapshot snapshot;
  snapshot.id = job.id;
  snapshot.job_key = job.job_key;
  snapshot.submitted_by = job.submitted_by;
  snapshot.state = job.state;
  snapshot.result = job.result;
  snapshot.error = job.error;
  snapshot.progress = job.progress;
  snapshot.progress_fraction = job.progress_fraction;
  snapshot.submitted_unix_ms = job.submitted_unix_ms;
  snapshot.started_unix_ms = job.started_unix_ms;
  snapshot.finished_unix_ms = job.finished_unix_ms;
  snapshot.version = job.version;
  return snapshot;
}

void JobManager::FinishLocked(Job& job, absl::StatusOr<PlanningResult> outcome,
                              int64_t result_bytes) {
  if (outcome.ok()) {
    job.state = JobState::kSucceeded;
    job.result = std::make_shared<const PlanningResult>(*std::move(outcome));
    job.progress = "done";
    job.progress_fraction = 1.0;
  } else {
    job.state = outcome.status().code() == absl::StatusCode::kCancelled ? JobState::kCancelled
                                                                        : JobState::kFailed;
    job.error = outcome.status();
    job.progress = job.state == JobState::kCancelled ? "cancelled" : "failed";
  }
  job.finished_unix_ms = absl::ToUnixMillis(absl::Now());
  if (metrics_ != nullptr) metrics_->RecordJobFinished(JobStateName(job.state));
  ChangedLocked(job);
  job.retained_bytes = static_cast<int64_t>(sizeof(Job) + job.id.size() + job.job_key.size() +
                                            job.submitted_by.size() + job.error.message().size()) +
                       result_bytes;
  finished_.push_back(job.id);
  retained_bytes_ += job.retained_bytes;
  ForgetOldJobsLocked();
}

void JobManager::ForgetOldJobsLocked() {
  const int64_t now_ms = absl::ToUnixMillis(absl::Now());
  const int64_t age_ms = options_.max_retained_job_age.count();
  while (finished_.size() > 1) {
    const auto oldest = jobs_.find(finished_.front());
    const char* reason = nullptr;
    if (static_cast<int64_t>(finished_.size()) > options_.max_retained_jobs) {
      reason = "count";
    } else if (retained_bytes_ > options_.max_retained_job_bytes) {
      reason = "bytes";
    } else if (age_ms > 0 && oldest != jobs_.end() &&
               now_ms - oldest->second->finished_unix_ms > age_ms) {
      reason = "age";
    } else {
      break;
    }
    if (oldest != jobs_.end()) {
      retained_bytes_ -= oldest->second->retained_bytes;
      jobs_.erase(oldest);
    }
    finished_.pop_front();
    if (metrics_ != nullptr) metrics_->RecordJobForgotten(reason);
  }
  if (metrics_ != nullptr) {
    metrics_->SetRetainedJobs(static_cast<int64_t>(finished_.size()), retained_bytes_);
  }
}

void JobManager::CancelQueuedLocked(Job& job, const std::string& reason) {
  queue_.erase(
      std::remove_if(queue_.begin(), queue_.end(),
                     [&](const std::shared_ptr<Job>& queued) { return queued.get() == &job; }),
      queue_.end());
  job.work = nullptr;
  FinishLocked(job, absl::CancelledError(absl::StrCat("job ", reason)));
  UpdateLoadLocked();
}

void JobManager::ChangedLocked(Job& job) {
  ++job.version;
  change_cv_.notify_all();
}

void JobManager::UpdateLoadLocked() {
  if (metrics_ != nullptr) metrics_->SetJobLoad(static_cast<int64_t>(queue_.size()), running_);
  change_cv_.notify_all();  // WaitUntilIdle watches the load
}

std::string JobManager::NewIdLocked() const {
  std::string id;
  do {
    id = RandomHexId();
  } while (jobs_.contains(id));
  return id;
}

absl::Status JobManager::NotFound(const std::string& id) const {
  constexpr size_t kMaxShownId = 64;
  const std::string shown = id.size() > kMaxShownId ? id.substr(0, kMaxShownId) + "..." : id;
  return absl::NotFoundError(
      absl::StrCat("job_id: no job \"", shown,
                   "\" (unknown, or finished and no longer retained: the server keeps at most ",
                   options_.max_retained_jobs, " finished jobs and ",
                   options_.max_retained_job_bytes, " bytes of their plans in memory)"));
}

}  // namespace shardplan
