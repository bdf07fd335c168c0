#ifndef SHARDPLAN_SERVER_REQUEST_LOG_H_
#define SHARDPLAN_SERVER_REQUEST_LOG_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "server/log_format.h"

namespace shardplan {

struct JobSnapshot;
struct PlanAnswer;
struct PlanningResult;

// What a handler learnt about its request, for the one line the RPC wrapper (HandleRpc) logs
// per request. Empty fields are left out of the line.
struct RequestLog {
  std::string algorithm;  // the plan's algorithm (or, before there is a plan, the one asked)
  std::string model;      // the plan's exact cost_model, name@version
  std::string policy;     // the plan's exact trained policy, name@version; "" without one
  std::string job_id;
  std::string job_state;  // a job's state: QUEUED, RUNNING, SUCCEEDED, FAILED, CANCELLED
  // Where a Plan/Replan answer came from: "from_store", "cache_hit", "joined_in_flight" (an
  // identical request in flight computed it) or "computed".
  std::string outcome;

  // The algorithm, model and policy of `result`.
  void NoteResult(const PlanningResult& result);
  // The result, its job id and its outcome.
  void NoteAnswer(const PlanAnswer& answer);
  // The job's id and state, and its plan's algorithm and model once it has one.
  void NoteJob(const JobSnapshot& job);
};

// The level of a request that ended with `code`: OK info; the caller's errors (invalid,
// missing or conflicting requests, refusals, cancellations, deadlines, exhausted limits) warn;
// the server's (INTERNAL, UNKNOWN, DATA_LOSS, UNAVAILABLE, UNIMPLEMENTED) error.
LogLevel RequestLogLevel(absl::StatusCode code);

// The request's line: msg "request", fields method, peer, code, latency_ms, the known ones of
// `log`, and error (the status message) when not OK. Its repeat key is method, code and peer,
// so a flood of one refusal is bounded while other clients and methods still show.
void LogRequest(absl::string_view method, absl::string_view peer, const absl::Status& status,
                double latency_ms, const RequestLog& log);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_REQUEST_LOG_H_
