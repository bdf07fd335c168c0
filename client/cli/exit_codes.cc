#include "client/cli/exit_codes.h"

#include <iostream>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace shardplan::cli {
namespace {

// Status payloads mark the two outcomes that no gRPC code expresses.
constexpr absl::string_view kUsagePayload = "type.shardplan.dev/cli.UsageError";
constexpr absl::string_view kJobFailedPayload = "type.shardplan.dev/cli.JobFailed";

}  // namespace

absl::Status UsageError(absl::string_view message) {
  absl::Status status = absl::InvalidArgumentError(message);
  status.SetPayload(kUsagePayload, absl::Cord());
  return status;
}

bool IsUsageError(const absl::Status& status) {
  return status.GetPayload(kUsagePayload).has_value();
}

absl::Status JobFailedError(const absl::Status& job_error) {
  absl::Status status = job_error.ok() ? absl::UnknownError("job failed") : job_error;
  status.SetPayload(kJobFailedPayload, absl::Cord());
  return status;
}

bool IsJobFailed(const absl::Status& status) {
  return status.GetPayload(kJobFailedPayload).has_value();
}

int ExitCodeFor(const absl::Status& status) {
  if (status.ok()) return kExitOk;
  if (IsUsageError(status)) return kExitUsage;
  if (IsJobFailed(status)) return kExitJobFailed;
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
      return kExitInvalidArgument;
    case absl::StatusCode::kFailedPrecondition:
      return kExitInfeasible;
    case absl::StatusCode::kNotFound:
      return kExitNotFound;
    case absl::StatusCode::kUnavailable:
      return kExitUnavailable;
    case absl::StatusCode::kDeadlineExceeded:
      return kExitDeadlineExceeded;
    case absl::StatusCode::kResourceExhausted:
      return kExitResourceExhausted;
    case absl::StatusCode::kCancelled:
      return kExitCancelled;
    case absl::StatusCode::kUnauthenticated:
      return kExitUnauthenticated;
    case absl::StatusCode::kPermissionDenied:
      return kExitPermissionDenied;
    default:
      return kExitOther;
  }
}

int ReportError(const absl::Status& status, absl::string_view command) {
  if (status.ok()) return kExitOk;
  if (IsUsageError(status)) {
    const std::string help =
        command.empty() ? "shardplan --help" : absl::StrCat("shardplan ", command, " --help");
    std::cerr << "shardplan: usage: " << status.message() << " (see '" << help << "')\n";
  } else {
    std::cerr << "shardplan: " << absl::StatusCodeToString(status.code()) << ": "
              << status.message() << "\n";
    // The server's message says what is wrong; say how to fix it on the client's side.
    if (status.code() == absl::StatusCode::kUnauthenticated) {
      std::cerr << "shardplan: hint: the server wants a bearer token it knows: --token-file "
                   "FILE or $SHARDPLAN_TOKEN\n";
    } else if (status.code() == absl::StatusCode::kPermissionDenied) {
      std::cerr << "shardplan: hint: this call needs a token with another role (admin calls: "
                   "role admin)\n";
    }
  }
  return ExitCodeFor(status);
}

std::string ExitCodeHelp() {
  return "Exit codes:\n"
         "   0  ok\n"
         "   1  any other error\n"
         "   2  usage error (bad command line)\n"
         "   3  invalid argument (malformed or unreadable task/plan, rejected by the server;\n"
         "      an unreadable --tls-*/--token-file file)\n"
         "   4  failed precondition (an infeasible task: a table fits on no device; a job key\n"
         "      that names another request)\n"
         "   5  not found (unknown model, model version or job)\n"
         "   6  server unavailable (unreachable, or health NOT_SERVING)\n"
         "   7  deadline exceeded (--timeout)\n"
         "   8  resource exhausted (a server limit)\n"
         "   9  cancelled\n"
         "  10  job failed (get/watch of a job that ended FAILED)\n"
         "  11  unauthenticated (no bearer token, or one the server does not know: see\n"
         "      --token-file and $SHARDPLAN_TOKEN)\n"
         "  12  permission denied (the token's role may not make this call: admin calls,\n"
         "      models reload and delete, need role admin)\n";
}

}  // namespace shardplan::cli
