#include "base/exit_codes.h"

#include <iostream>

#include "absl/strings/cord.h"

namespace shardplan {
namespace {

// Status payloads mark the two outcomes that no status code expresses.
constexpr absl::string_view kUsagePayload = "type.shardplan.dev/UsageError";
constexpr absl::string_view kJobFailedPayload = "type.shardplan.dev/JobFailed";
constexpr absl::string_view kDriftedPayload = "type.shardplan.dev/Drifted";

}  // namespace

absl::Status UsageError(absl::string_view message) {
  absl::Status status = absl::InvalidArgumentError(message);
  status.SetPayload(kUsagePayload, absl::Cord());
  return status;
}

bool IsUsageError(const absl::Status& status) {
  return status.GetPayload(kUsagePayload).has_value();
}

absl::Status InterruptedError(absl::string_view message) { return absl::CancelledError(message); }

absl::Status JobFailedError(const absl::Status& job_error) {
  absl::Status status = job_error.ok() ? absl::UnknownError("job failed") : job_error;
  status.SetPayload(kJobFailedPayload, absl::Cord());
  return status;
}

bool IsJobFailed(const absl::Status& status) {
  return status.GetPayload(kJobFailedPayload).has_value();
}

absl::Status DriftedError(absl::string_view message) {
  absl::Status status = absl::FailedPreconditionError(message);
  status.SetPayload(kDriftedPayload, absl::Cord());
  return status;
}

bool IsDrifted(const absl::Status& status) {
  return status.GetPayload(kDriftedPayload).has_value();
}

int ExitCodeFor(const absl::Status& status) {
  if (status.ok()) return kExitOk;
  if (IsUsageError(status)) return kExitUsage;
  if (IsJobFailed(status)) return kExitJobFailed;
  if (IsDrifted(status)) return kExitDrifted;
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
      return kExitInvalidArgument;
    case absl::StatusCode::kFailedPrecondition:
      return kExitFailedPrecondition;
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

int ReportError(const absl::Status& status, absl::string_view program,
                absl::string_view help_command) {
  if (status.ok()) return kExitOk;
  if (IsUsageError(status)) {
    std::cerr << program << ": usage: " << status.message() << " (see '" << help_command
              << " --help')\n";
  } else {
    std::cerr << program << ": " << absl::StatusCodeToString(status.code()) << ": "
              << status.message() << "\n";
  }
  return ExitCodeFor(status);
}

}  // namespace shardplan
