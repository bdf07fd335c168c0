#ifndef SHARDPLAN_SERVER_DURABLE_JOBS_H_
#define SHARDPLAN_SERVER_DURABLE_JOBS_H_

#include <cstdint>
#include <memory>
#include <string>

#include "server/job_manager.h"
#include "server/plan_ledger.h"
#include "server/planning_engine.h"

namespace shardplan {

class ServerMetrics;

// A job's work that keeps the plan store in step: `record` (as RecordQueued stored it, or as
// the store lists it) turns RUNNING when the job starts and gets the plan or the error when it
// ends. Planning stops at `max_planning_time_ms`
// (0: no cap). `held` (may be null) lives as long as the work, e.g. the client's slot of
// max_requests_per_client. Every pointer must outlive the job.
JobManager::Work DurableJobWork(const PlanningEngine* engine, const PlanLedger* ledger,
                                std::shared_ptr<const PreparedRequest> request, PlanRecord record,
                                int64_t max_planning_time_ms,
                                std::shared_ptr<const void> held = nullptr);

struct RecoveryReport {
  int64_t resumed = 0;
  int64_t failed = 0;
};

// At start-up: queues again, under their own ids, this replica's jobs the store holds as QUEUED
// or RUNNING (a previous process stopped or crashed before they ended), each on the exact model
// version it was submitted with. A job that can no longer be prepared (its model version is gone,
// the server's limits shrank) is marked FAILED with the reason. Nothing is lost silently.
// UNAVAILABLE when the store cannot be read.
absl::StatusOr<RecoveryReport> ResumeUnfinishedJobs(const PlanningEngine* engine,
                                                    const PlanLedger* ledger, JobManager* jobs,
                                                    int64_t max_planning_time_ms,
                                                    ServerMetrics* metrics);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_DURABLE_JOBS_H_
