#include "server/durable_jobs.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/logging.h"
#include "server/metrics.h"
#include "server/planning_time_cap.h"

namespace shardplan {
namespace {

absl::StatusOr<PreparedRequest> PrepareStored(const PlanningEngine& engine,
                                              const PlanLedger& ledger, const PlanRecord& record) {
  absl::StatusOr<PlanningRequest> request = ledger.StoredRequest(record);
  if (!request.ok()) return request.status();
  // The version it was submitted with, not today's latest: a resumed job plans what was asked.
  if (!record.model_version.empty()) request->model = record.model_version;
  return engine.Prepare(*std::move(request));
}

}  // namespace

JobManager::Work DurableJobWork(const PlanningEngine* engine, const PlanLedger* ledger,
                                std::shared_ptr<const PreparedRequest> request, PlanRecord record,
                                int64_t max_planning_time_ms, std::shared_ptr<const void> held) {
  auto stored = std::make_shared<PlanRecord>(std::move(record));  // the job's own copy
  return [engine, ledger, request = std::move(request), stored, max_planning_time_ms,
          held = std::move(held)](const StopSignal& stop,
                                  const JobManager::ProgressFn& progress) {
    ledger->RecordRunning(*stored);
    StopSignal capped(stop.deadline(), [&stop] { return stop.cancelled(); });
    const auto cap = CapPlanningTime(capped, max_planning_time_ms);
    absl::StatusOr<PlanningResult> outcome = engine->Run(*request, capped, progress);
    if (!outcome.ok()) outcome = CapReason(outcome.status(), cap, max_planning_time_ms);
    ledger->RecordFinished(*stored, outcome);
    return outcome;
  };
}

absl::StatusOr<RecoveryReport> ResumeUnfinishedJobs(const PlanningEngine* engine,
                                                    const PlanLedger* ledger, JobManager* jobs,
                                                    int64_t max_planning_time_ms,
                                                    ServerMetrics* metrics) {
  absl::StatusOr<std::vector<PlanRecord>> records = ledger->Unfinished();
  if (!records.ok()) return records.status();
  RecoveryReport report;
  for (PlanRecord& record : *records) {
    absl::StatusOr<PreparedRequest> prepared = PrepareStored(*engine, *ledger, record);
    absl::Status queued = prepared.status();
    if (prepared.ok()) {
      SubmitOptions options;
      options.id = record.job_id;
      options.job_key = record.job_key;
      options.submitted_by = record.submitted_by;
      options.submitted_unix_ms = record.submitted_unix_ms;
      options.ignore_capacity = true;
      auto shared = std::make_shared<const PreparedRequest>(*std::move(prepared));
      queued =
          jobs->Submit(DurableJobWork(engine, ledger, shared, record, max_planning_time_ms), options)
              .status();
    }
    if (queued.ok()) {
      ++report.resumed;
      if (metrics != nullptr) metrics->RecordJobRecovery("resumed");
      continue;
    }
    const std::string reason = absl::StrCat(
        "the server restarted while the job was ", record.status,
        " and could not resume it: ", queued.message());
    Log(LogLevel::kWarn, absl::StrCat("job ", record.job_id, ": ", reason));
    ledger->RecordUnresumable(std::move(record), reason);
    ++report.failed;
    if (metrics != nullptr) metrics->RecordJobRecovery("failed");
  }
  return report;
}

}  // namespace shardplan
