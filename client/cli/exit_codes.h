#ifndef SHARDPLAN_CLIENT_CLI_EXIT_CODES_H_
#define SHARDPLAN_CLIENT_CLI_EXIT_CODES_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace shardplan::cli {

// Exit codes scripts can rely on (docs/cli.md). Stable: never renumber.
enum ExitCode : int {
  kExitOk = 0,
  kExitOther = 1,              // anything not listed below
  kExitUsage = 2,              // bad command line
  kExitInvalidArgument = 3,    // INVALID_ARGUMENT: bad task or plan (file or server check)
  kExitInfeasible = 4,         // FAILED_PRECONDITION: the task fits on no assignment
  kExitNotFound = 5,           // NOT_FOUND: unknown model, model version or job
  kExitUnavailable = 6,        // UNAVAILABLE: server down or unreachable, or NOT_SERVING
  kExitDeadlineExceeded = 7,   // DEADLINE_EXCEEDED: --timeout passed
  kExitResourceExhausted = 8,  // RESOURCE_EXHAUSTED: a server limit
  kExitCancelled = 9,          // CANCELLED: the job was cancelled
  kExitJobFailed = 10,         // a job ended FAILED (get, watch)
  kExitUnauthenticated = 11,   // UNAUTHENTICATED: no bearer token, or one the server does not know
  kExitPermissionDenied = 12,  // PERMISSION_DENIED: the token's role may not make this call
};

// A usage error: exit 2, printed with a pointer to --help.
absl::Status UsageError(absl::string_view message);
bool IsUsageError(const absl::Status& status);

// A job that ended FAILED, carrying the job's own code and message: exit 10.
absl::Status JobFailedError(const absl::Status& job_error);
bool IsJobFailed(const absl::Status& status);

// The exit code for a command's result.
int ExitCodeFor(const absl::Status& status);

// For an error, prints "shardplan: <CODE>: <message>" (or "shardplan: usage: ...") to stderr and
// returns the exit code. `command` ("plan", or "" for the tool) names the --help to point at.
int ReportError(const absl::Status& status, absl::string_view command);

// The exit-code table of --help.
std::string ExitCodeHelp();

}  // namespace shardplan::cli

#endif  // SHARDPLAN_CLIENT_CLI_EXIT_CODES_H_
