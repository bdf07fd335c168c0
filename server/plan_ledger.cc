#include "server/plan_ledger.h"

#include <map>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "proto/json/json_message.h"
#include "server/cache_key.h"
#include "server/logging.h"
#include "server/metrics.h"
#include "server/request_proto.h"
#include "server/result_proto.h"

namespace shardplan {
namespace {

constexpr size_t kMaxJobKeyLength = 256;
// Names damage is logged under, at most: beyond them damage is still counted, not logged.
constexpr size_t kMaxDamagedNames = 10000;
// Bytes of a parser's complaint about a stored plan kept in a message (escaped).
constexpr size_t kMaxParseDetail = 160;

bool JobKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '.' || c == '_' || c == '-' || c == ':' || c == '/';
}

// The request as stored: proto3 JSON of the request as asked (fields in number order,
// defaults omitted).
std::string RequestJson(const PlanningRequest& request) {
  return proto_json::WriteJsonMessage(PlanningRequestToProto(request));
}

// The plan as stored: the API's Plan, every field.
std::string PlanJson(const PlanningResult& result) {
  return proto_json::WriteJsonMessage(ResultToProto(result), {.with_defaults = true});
}

std::optional<JobState> ParseState(const std::string& status) {
  for (JobState state : {JobState::kQueued, JobState::kRunning, JobState::kSucceeded,
                         JobState::kFailed, JobState::kCancelled}) {
    if (status == JobStateName(state)) return state;
  }
  return std::nullopt;
}

}  // namespace

absl::Status ValidateJobKey(const std::string& key) {
  if (key.size() > kMaxJobKeyLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("job_key: ", key.size(), " characters, more than ", kMaxJobKeyLength));
  }
  for (char c : key) {
    if (!JobKeyChar(c)) {
      return absl::InvalidArgumentError(
          "job_key: only letters, digits and . _ - : / are allowed");
    }
  }
  return absl::OkStatus();
}

std::string KeyedRequestFingerprint(const PlanningRequest& request) {
  CacheKeyInputs inputs;
  inputs.task = &request.task;
  inputs.algorithm = request.algorithm;
  inputs.resolved_params = request.params;
  inputs.seed = request.seed;
  inputs.model_id = request.model;
  return PlanCacheKey(inputs);
}

absl::Status StoreReadError(const std::string& field, const std::string& what,
                            const absl::Status& status) {
  if (status.code() == absl::StatusCode::kDataLoss) {
    return absl::DataLossError(absl::StrCat(
        field, ": ", what,
        " is damaged in the plan store, so it is not served (Replan gives a key a new plan; "
        "DeletePlan by job_id removes the record): ",
        status.message()));
  }
  return absl::Status(status.code(),
                      absl::StrCat(field, ": the plan store cannot be read, so ", what,
                                   " cannot be looked up; retry later: ", status.message()));
}

PlanLedger::PlanLedger(PlanStore* store, std::string owner, TaskLimits limits,
                       ServerMetrics* metrics, PlanLedgerOptions options)
    : store_(store),
      owner_(std::move(owner)),
      limits_(limits),
      metrics_(metrics),
      options_(options) {}

void PlanLedger::ReportDamage(const std::string& name, absl::string_view detail) const {
  bool first = false;
  bool last_logged = false;
  {
    std::lock_guard lock(damage_mu_);
    if (damaged_.count(name) > 0) return;  // counted and logged already
    if (damaged_.size() < kMaxDamagedNames) {
      damaged_.insert(name);
      first = true;
      last_logged = damaged_.size() == kMaxDamagedNames;
    }
  }
  if (metrics_ != nullptr) metrics_->RecordStoreDamagedRecord();
  if (!first) return;
  LogLine(absl::StrCat("plan store: damaged record (", name, "), not served: ", detail));
  if (last_logged) {
    LogLine(absl::StrCat("plan store: ", kMaxDamagedNames,
                         " damaged records logged; further ones are only counted "
                         "(shardplan_store_damaged_records_total)"));
  }
}

void PlanLedger::ReportUnverified(const PlanRecord& record) const {
  if (!record.checksum.empty()) return;
  if (metrics_ != nullptr) metrics_->RecordStoreUnverifiedRead();
  if (!unverified_logged_.exchange(true)) {
    LogLine(absl::StrCat("plan store: job ", PrintableExcerpt(record.job_id),
                         " was written before checksums (schema version 1) and is served "
                         "unverified; such reads are counted in "
                         "shardplan_store_unverified_reads_total"));
  }
}

void PlanLedger::MarkStoreDamaged(const std::string& reason) {
  std::lock_guard lock(damage_mu_);
  store_damage_ = reason;
}

absl::StatusOr<std::optional<PlanRecord>> PlanLedger::NotFoundOnDamagedStore(
    absl::StatusOr<std::optional<PlanRecord>> found, const std::string& name) const {
  if (!found.ok() || found->has_value()) return found;
  std::lock_guard lock(damage_mu_);
  if (store_damage_.empty()) return found;
  return absl::UnavailableError(absl::StrCat(
      "plan store: ", name,
      " is not found, but the store is damaged (its start-up check failed), so it may be there "
      "unreadable; restore the store from a backup: ",
      store_damage_));
}

const absl::StatusOr<std::optional<PlanRecord>>& PlanLedger::Inspect(
    const absl::StatusOr<std::optional<PlanRecord>>& found, const std::string& name) const {
  if (found.status().code() == absl::StatusCode::kDataLoss) {
    // Named by the job id the store read when it says which, so that a record is counted once
    // whether it was asked for by id, key or request hash.
    auto id = found.status().GetPayload(kDamagedJobIdPayload);
    ReportDamage(id ? absl::StrCat("job ", std::string(*id)) : name, found.status().message());
  } else if (found.ok() && found->has_value()) {
    ReportUnverified(**found);
  }
  return found;
}

absl::StatusOr<JobSnapshot> PlanLedger::Snapshot(const PlanRecord& record) const {
  absl::StatusOr<JobSnapshot> snapshot = RecordToSnapshot(record);
  if (snapshot.status().code() == absl::StatusCode::kDataLoss) {
    ReportDamage(absl::StrCat("job ", PrintableExcerpt(record.job_id)),
                 snapshot.status().message());
  }
  return snapshot;
}

absl::Status PlanLedger::Count(const char* operation, const absl::Status& status) const {
  if (metrics_ != nullptr) metrics_->RecordStoreCall(operation, status.code());
  return status;
}

absl::StatusOr<std::optional<PlanRecord>> PlanLedger::FindKeyed(const std::string& job_key) const {
  if (store_ == nullptr || job_key.empty()) return std::nullopt;
  absl::StatusOr<std::optional<PlanRecord>> found = store_->GetByJobKey(job_key);
  Count("get_by_key", found.status()).IgnoreError();  // counted; the caller gets the status
  const std::string name = absl::StrCat("job_key \"", job_key, "\"");
  return NotFoundOnDamagedStore(Inspect(found, name), name);
}

absl::StatusOr<std::optional<PlanRecord>> PlanLedger::FindJob(const std::string& job_id) const {
  if (store_ == nullptr) return std::nullopt;
  absl::StatusOr<std::optional<PlanRecord>> found = store_->GetByJobId(job_id);
  Count("get_by_id", found.status()).IgnoreError();  // counted; the caller gets the status
  const std::string name = absl::StrCat("job ", PrintableExcerpt(job_id));
  return NotFoundOnDamagedStore(Inspect(found, name), name);
}

absl::StatusOr<std::optional<PlanningResult>> PlanLedger::FindPlan(
    const PreparedRequest& request) const {
  if (store_ == nullptr || request.cache_key.empty()) return std::nullopt;
  absl::StatusOr<std::optional<PlanRecord>> found = store_->FindSucceeded(request.cache_key);
  Count("find_succeeded", found.status()).IgnoreError();  // counted; the caller gets the status
  Inspect(found, absl::StrCat("request hash ", PrintableExcerpt(request.cache_key)));
  if (!found.ok()) return found.status();
  if (!found->has_value()) return std::nullopt;
  absl::StatusOr<JobSnapshot> snapshot = Snapshot(**found);
  if (!snapshot.ok()) return snapshot.status();
  return *snapshot->result;
}

PlanRecord PlanLedger::NewRecord(const std::string& job_id, const PreparedRequest& prepared,
                                 const std::string& submitted_by) const {
  PlanRecord record;
  record.job_id = job_id;
  record.job_key = prepared.asked.job_key;
  record.request_hash = prepared.cache_key;
  record.request_json = RequestJson(prepared.asked);
  record.algorithm = prepared.planning.algorithm->info().name;
  record.model_version = prepared.model.manifest.id();
  record.owner = owner_;
  record.submitted_unix_ms = absl::ToUnixMillis(absl::Now());
  record.submitted_by = submitted_by;
  return record;
}

absl::Status PlanLedger::Store(const PlanRecord& record, bool replace_key) const {
  if (replace_key && !record.job_key.empty()) {
    return Count("replace_keyed", store_->ReplaceKeyed(record));
  }
  return Count("insert", store_->Insert(record));
}

absl::Status PlanLedger::StoreHistory(const PlanRecord& record) const {
  return Count("insert", store_->InsertHistory(record));  // an insert, to dashboards and alerts
}

absl::StatusOr<std::string> PlanLedger::RecordPlan(const PreparedRequest& prepared,
                                                   const PlanningResult& result, bool replace_key,
                                                   const std::string& submitted_by) const {
  if (store_ == nullptr) return std::string();
  PlanRecord record = NewRecord(NewJobId(), prepared, submitted_by);
  record.status = JobStateName(JobState::kSucceeded);
  record.plan_json = PlanJson(result);
  record.started_unix_ms = record.submitted_unix_ms;
  record.finished_unix_ms = absl::ToUnixMillis(absl::Now());
  const int64_t bytes = RecordBytes(record);
  if (record.job_key.empty() && options_.max_plan_bytes > 0 && bytes > options_.max_plan_bytes) {
    if (metrics_ != nullptr) metrics_->RecordStoreOversizedPlan();
    const std::string why =
        absl::StrCat("store_max_plan_bytes: the plan's record is ", bytes, " bytes, more than ",
                     options_.max_plan_bytes, "; it is answered but not stored");
    if (!oversized_logged_.exchange(true)) {
      LogLine(absl::StrCat("plan store: ", why,
                           " (logged once; counted in shardplan_store_oversized_plans_total)"));
    }
    return absl::ResourceExhaustedError(why);
  }
  const absl::Status stored =
      record.job_key.empty() ? StoreHistory(record) : Store(record, replace_key);
  if (!stored.ok()) return stored;
  return record.job_id;
}

absl::StatusOr<PlanRecord> PlanLedger::RecordQueued(const std::string& job_id,
                                                    const PreparedRequest& prepared,
                                                    bool replace_key,
                                                    const std::string& submitted_by) const {
  PlanRecord record = NewRecord(job_id, prepared, submitted_by);
  record.status = JobStateName(JobState::kQueued);
  if (store_ == nullptr) return record;
  if (absl::Status stored = Store(record, replace_key); !stored.ok()) return stored;
  return record;
}

void PlanLedger::RecordRunning(PlanRecord& record) const {
  if (store_ == nullptr) return;
  record.status = JobStateName(JobState::kRunning);
  record.owner = owner_;
  record.started_unix_ms = absl::ToUnixMillis(absl::Now());
  if (absl::Status updated = Count("update", store_->Update(record)); !updated.ok()) {
    Log(LogLevel::kError, absl::StrCat("plan store: cannot record job ", record.job_id,
                                       " RUNNING: ", updated.ToString()));
  }
}

void PlanLedger::RecordFinished(const std::string& job_id,
                                const absl::StatusOr<PlanningResult>& outcome) const {
  if (store_ == nullptr) return;
  absl::StatusOr<std::optional<PlanRecord>> found = FindJob(job_id);
  if (!found.ok() || !found->has_value()) {
    Log(LogLevel::kError,
        absl::StrCat("plan store: job ", job_id, " ended but its record cannot be read: ",
                     found.ok() ? "missing" : found.status().ToString()));
    return;
  }
  RecordFinished(**found, outcome);
}

void PlanLedger::RecordFinished(PlanRecord& record,
                                const absl::StatusOr<PlanningResult>& outcome) const {
  if (store_ == nullptr) return;
  if (!outcome.ok() && outcome.status().code() == absl::StatusCode::kCancelled &&
      shutting_down()) {
    return;  // the next start resumes it
  }
  record.finished_unix_ms = absl::ToUnixMillis(absl::Now());
  if (record.started_unix_ms == 0) record.started_unix_ms = record.finished_unix_ms;
  if (outcome.ok()) {
    record.status = JobStateName(JobState::kSucceeded);
    record.plan_json = PlanJson(*outcome);
    record.request_hash = outcome->request_hash;
  } else {
    record.status = JobStateName(outcome.status().code() == absl::StatusCode::kCancelled
                                     ? JobState::kCancelled
                                     : JobState::kFailed);
    record.error_code = static_cast<int32_t>(outcome.status().code());
    record.error_message = std::string(outcome.status().message());
  }
  if (absl::Status updated = Count("update", store_->Update(record)); !updated.ok()) {
    Log(LogLevel::kError, absl::StrCat("plan store: cannot record job ", record.job_id, " ",
                                       record.status, ": ", updated.ToString()));
  }
}

absl::StatusOr<std::vector<PlanRecord>> PlanLedger::Unfinished() const {
  if (store_ == nullptr) return std::vector<PlanRecord>();
  absl::StatusOr<std::vector<PlanRecord>> records = store_->ListUnfinished(owner_);
  Count("list_unfinished", records.status()).IgnoreError();  // counted; the caller gets the status
  if (records.status().code() == absl::StatusCode::kDataLoss) {
    ReportDamage(absl::StrCat("the unfinished jobs of ", owner_), records.status().message());
  }
  if (!records.ok()) return records;
  std::vector<PlanRecord> sound;
  for (PlanRecord& record : *records) {
    if (!record.damage.empty()) {
      ReportDamage(absl::StrCat("job ", PrintableExcerpt(record.job_id)),
                   absl::StrCat(record.damage, "; it stays ", PrintableExcerpt(record.status),
                                " in the store and is not resumed"));
      continue;
    }
    ReportUnverified(record);
    sound.push_back(std::move(record));
  }
  return sound;
}

void PlanLedger::RecordUnresumable(PlanRecord record, const std::string& reason) const {
  if (store_ == nullptr) return;
  record.status = JobStateName(JobState::kFailed);
  record.error_code = static_cast<int32_t>(absl::StatusCode::kFailedPrecondition);
  record.error_message = reason;
  record.finished_unix_ms = absl::ToUnixMillis(absl::Now());
  if (absl::Status updated = Count("update", store_->Update(record)); !updated.ok()) {
    Log(LogLevel::kError, absl::StrCat("plan store: cannot record job ", record.job_id,
                                       " FAILED: ", updated.ToString()));
  }
}

absl::StatusOr<PlanningRequest> PlanLedger::StoredRequest(const PlanRecord& record) const {
  v1::PlanRequest proto;
  if (absl::Status parsed = proto_json::ParseJsonMessage(record.request_json, proto);
      !parsed.ok()) {
    absl::Status damaged = absl::DataLossError(
        absl::StrCat("plan store: the request of job ", PrintableExcerpt(record.job_id),
                     " does not parse, so the record is damaged: ",
                     PrintableExcerpt(parsed.message(), kMaxParseDetail)));
    ReportDamage(absl::StrCat("job ", PrintableExcerpt(record.job_id)), damaged.message());
    return damaged;
  }
  return PlanningRequestFromProto(proto, limits_);
}

absl::Status PlanLedger::Delete(const std::string& job_id) const {
  if (store_ == nullptr) {
    return absl::FailedPreconditionError("store: this server keeps no plan store");
  }
  return Count("delete", store_->Delete(job_id));
}

absl::StatusOr<std::string> PlanLedger::DeleteFinished(const std::string& job_id,
                                                       const std::string& job_key) const {
  const bool by_id = !job_id.empty();
  if (by_id == !job_key.empty()) return absl::InvalidArgumentError("job_id, job_key: set exactly one");
  if (store_ == nullptr) {
    return absl::FailedPreconditionError("store: this server keeps no plan store");
  }
  absl::StatusOr<std::optional<PlanRecord>> found = by_id ? FindJob(job_id) : FindKeyed(job_key);
  if (by_id && found.status().code() == absl::StatusCode::kDataLoss) {
    // Damaged: what it says (its status too) cannot be trusted, and removing it is the remedy.
    if (absl::Status deleted = Delete(job_id); !deleted.ok()) return deleted;
    LogLine(absl::StrCat("plan store: damaged record of job ", PrintableExcerpt(job_id),
                         " deleted by DeletePlan"));
    return job_id;
  }
  if (!found.ok()) return found.status();
  if (!found->has_value()) {
    return absl::NotFoundError(by_id ? absl::StrCat("job_id: no stored plan \"", job_id, "\"")
                                     : absl::StrCat("job_key: no stored plan \"", job_key, "\""));
  }
  const PlanRecord& record = **found;
  if (record.status == JobStateName(JobState::kQueued) ||
      record.status == JobStateName(JobState::kRunning)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "job ", record.job_id, " is ", record.status, "; cancel it before deleting it"));
  }
  if (absl::Status deleted = Delete(record.job_id); !deleted.ok()) return deleted;
  return record.job_id;
}

absl::StatusOr<JobSnapshot> RecordToSnapshot(const PlanRecord& record) {
  std::optional<JobState> state = ParseState(record.status);
  if (!state) {
    return absl::DataLossError(absl::StrCat("plan store: job ", PrintableExcerpt(record.job_id),
                                            " has an unknown status \"",
                                            PrintableExcerpt(record.status),
                                            "\", so the record "
                                            "is damaged"));
  }
  JobSnapshot snapshot;
  snapshot.id = record.job_id;
  snapshot.job_key = record.job_key;
  snapshot.submitted_by = record.submitted_by;
  snapshot.state = *state;
  snapshot.submitted_unix_ms = record.submitted_unix_ms;
  snapshot.started_unix_ms = record.started_unix_ms;
  snapshot.finished_unix_ms = record.finished_unix_ms;
  snapshot.version = 1;
  switch (*state) {
    case JobState::kQueued:
      snapshot.progress = "queued";
      break;
    case JobState::kRunning:
      snapshot.progress = absl::StrCat("running on ", record.owner);
      break;
    case JobState::kSucceeded: {
      v1::Plan proto;
      absl::Status parsed = proto_json::ParseJsonMessage(record.plan_json, proto);
      absl::StatusOr<PlanningResult> result =
          parsed.ok() ? ResultFromProto(proto) : absl::StatusOr<PlanningResult>(parsed);
      if (!result.ok()) {
        return absl::DataLossError(
            absl::StrCat("plan store: the plan of job ", PrintableExcerpt(record.job_id),
                         " does not parse, so the record is damaged: ",
                         PrintableExcerpt(result.status().message(), kMaxParseDetail)));
      }
      snapshot.result = std::make_shared<const PlanningResult>(*std::move(result));
      snapshot.progress = "done";
      snapshot.progress_fraction = 1.0;
      break;
    }
    case JobState::kFailed:
    case JobState::kCancelled:
      snapshot.error = absl::Status(static_cast<absl::StatusCode>(record.error_code),
                                    record.error_message);
      if (snapshot.error.ok()) snapshot.error = absl::UnknownError(record.error_message);
      snapshot.progress = "done";
      break;
  }
  return snapshot;
}

}  // namespace shardplan
