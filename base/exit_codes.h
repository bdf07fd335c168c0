#ifndef SHARDPLAN_BASE_EXIT_CODES_H_
#define SHARDPLAN_BASE_EXIT_CODES_H_

// How a shardplan program ends: the one exit-code table of every program (shardplan,
// shardplan-offline, shardplan-server, the bench programs) and the line that reports an error.

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace shardplan {

// Exit codes scripts can rely on (docs/cli.md). Stable: never renumber.
enum ExitCode : int {
  kExitOk = 0,
  kExitOther = 1,               // anything not listed below
  kExitUsage = 2,               // bad command line
  kExitInvalidArgument = 3,     // INVALID_ARGUMENT: bad input (file or server check)
  kExitFailedPrecondition = 4,  // FAILED_PRECONDITION: e.g. a task that fits on no assignment
  kExitNotFound = 5,            // NOT_FOUND: unknown model, job, profile ...
  kExitUnavailable = 6,         // UNAVAILABLE: server down or unreachable, or NOT_SERVING
  kExitDeadlineExceeded = 7,    // DEADLINE_EXCEEDED
  kExitResourceExhausted = 8,   // RESOURCE_EXHAUSTED: a server limit
  kExitCancelled = 9,           // CANCELLED, or interrupted by a signal (rerun to resume)
  kExitJobFailed = 10,          // a job ended FAILED
  kExitUnauthenticated = 11,    // UNAUTHENTICATED: no bearer token, or an unknown one
  kExitPermissionDenied = 12,   // PERMISSION_DENIED: the token's role may not make this call
  kExitDrifted = 13,            // `model check`: the model's error on fresh data passed its bound
};

// A command-line mistake: INVALID_ARGUMENT underneath, yet exit 2.
absl::Status UsageError(absl::string_view message);
bool IsUsageError(const absl::Status& status);

// Stopped by SIGINT/SIGTERM between items: exit 9.
absl::Status InterruptedError(absl::string_view message);

// A job that ended FAILED, keeping the job's own code and message: exit 10 whatever the code.
absl::Status JobFailedError(const absl::Status& job_error);
bool IsJobFailed(const absl::Status& status);

// A model whose error on fresh cost data passed the bound (`model check`): FAILED_PRECONDITION
// underneath, exit 13.
absl::Status DriftedError(absl::string_view message);
bool IsDrifted(const absl::Status& status);

// The exit code for a command's result.
int ExitCodeFor(const absl::Status& status);

// For an error, prints to stderr
//   <program>: usage: <message> (see '<help_command> --help')   for a usage error
//   <program>: <CODE>: <message>                                for any other
// and returns the exit code; returns 0 for OK. `help_command` names the --help to point at:
// "shardplan plan", or "shardplan" for the tool.
int ReportError(const absl::Status& status, absl::string_view program,
                absl::string_view help_command);

}  // namespace shardplan

#endif  // SHARDPLAN_BASE_EXIT_CODES_H_
