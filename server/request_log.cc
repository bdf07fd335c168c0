#include "server/request_log.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "server/job_manager.h"
#include "server/logging.h"
#include "server/planning_result.h"
#include "server/planning_service.h"

namespace shardplan {

void RequestLog::NoteResult(const PlanningResult& result) {
  algorithm = result.plan.algorithm;
  model = result.plan.cost_model;
  // PreparePlanning records the exact policy of algorithms that plan with one (docs/policies.md).
  const auto found = result.plan.parameters.find("policy");
  policy = found != result.plan.parameters.end() ? found->second : "";
}

void RequestLog::NoteAnswer(const PlanAnswer& answer) {
  NoteResult(answer.result);
  job_id = answer.job_id;
  if (answer.from_store) {
    outcome = "from_store";
  } else if (answer.result.cache_hit) {
    outcome = "cache_hit";
  } else if (answer.result.joined) {
    outcome = "joined_in_flight";
  } else {
    outcome = "computed";
  }
}

void RequestLog::NoteJob(const JobSnapshot& job) {
  job_id = job.id;
  job_state = JobStateName(job.state);
  if (job.result != nullptr) NoteResult(*job.result);
}

LogLevel RequestLogLevel(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk:
      return LogLevel::kInfo;
    case absl::StatusCode::kInternal:
    case absl::StatusCode::kUnknown:
    case absl::StatusCode::kDataLoss:
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kUnimplemented:
      return LogLevel::kError;
    default:
      return LogLevel::kWarn;
  }
}

void LogRequest(absl::string_view method, absl::string_view peer, const absl::Status& status,
                double latency_ms, const RequestLog& log) {
  const LogLevel level = RequestLogLevel(status.code());
  if (!LogEnabled(level)) return;
  std::string code = absl::StatusCodeToString(status.code());
  if (code.empty()) code = "UNKNOWN";
  std::vector<LogField> fields = {{"method", method}, {"peer", peer}, {"code", code}};
  // Microseconds are enough, and the line stays short.
  fields.emplace_back("latency_ms",
                      static_cast<double>(static_cast<int64_t>(latency_ms * 1000)) / 1000.0);
  const auto add_known = [&fields](const char* key, const std::string& value) {
    if (!value.empty()) fields.emplace_back(key, value);
  };
  add_known("algorithm", log.algorithm);
  add_known("model", log.model);
  add_known("policy", log.policy);
  add_known("job_id", log.job_id);
  add_known("job_state", log.job_state);
  add_known("outcome", log.outcome);
  if (!status.ok()) fields.emplace_back("error", status.message());
  Log(level, "request", fields,
      absl::StrCat("request method=", method, " code=", code, " peer=", peer));
}

}  // namespace shardplan
