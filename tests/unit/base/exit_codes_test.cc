// The one exit-code table and the error lines of every program.

#include "base/exit_codes.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

TEST(ExitCodeTest, EveryDocumentedCode) {
  EXPECT_EQ(ExitCodeFor(absl::OkStatus()), kExitOk);
  EXPECT_EQ(ExitCodeFor(absl::InternalError("x")), kExitOther);
  EXPECT_EQ(ExitCodeFor(UsageError("x")), kExitUsage);
  EXPECT_EQ(ExitCodeFor(absl::InvalidArgumentError("x")), kExitInvalidArgument);
  EXPECT_EQ(ExitCodeFor(absl::FailedPreconditionError("x")), kExitFailedPrecondition);
  EXPECT_EQ(ExitCodeFor(absl::NotFoundError("x")), kExitNotFound);
  EXPECT_EQ(ExitCodeFor(absl::UnavailableError("x")), kExitUnavailable);
  EXPECT_EQ(ExitCodeFor(absl::DeadlineExceededError("x")), kExitDeadlineExceeded);
  EXPECT_EQ(ExitCodeFor(absl::ResourceExhaustedError("x")), kExitResourceExhausted);
  EXPECT_EQ(ExitCodeFor(absl::CancelledError("x")), kExitCancelled);
  EXPECT_EQ(ExitCodeFor(absl::UnauthenticatedError("x")), kExitUnauthenticated);
  EXPECT_EQ(ExitCodeFor(absl::PermissionDeniedError("x")), kExitPermissionDenied);
  // A failed job keeps its own code for the message but exits 10 whatever the code.
  const absl::Status failed = JobFailedError(absl::FailedPreconditionError("t1 fits nowhere"));
  EXPECT_EQ(failed.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ExitCodeFor(failed), kExitJobFailed);
  EXPECT_EQ(ExitCodeFor(JobFailedError(absl::OkStatus())), kExitJobFailed);
  // A usage error is INVALID_ARGUMENT underneath, yet exits 2.
  EXPECT_EQ(UsageError("x").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(IsUsageError(absl::InvalidArgumentError("x")));
}

TEST(ExitCodeTest, TheNumbersScriptsRelyOn) {
  EXPECT_EQ(ExitCodeFor(absl::OkStatus()), 0);
  EXPECT_EQ(ExitCodeFor(UsageError("x")), 2);
  EXPECT_EQ(ExitCodeFor(absl::InvalidArgumentError("x")), 3);
  EXPECT_EQ(ExitCodeFor(absl::FailedPreconditionError("x")), 4);
  EXPECT_EQ(ExitCodeFor(absl::NotFoundError("x")), 5);
  EXPECT_EQ(ExitCodeFor(InterruptedError("x")), 9);  // rerun to resume
  EXPECT_EQ(ExitCodeFor(absl::InternalError("x")), 1);
}

// ReportError's stderr and exit code.
std::pair<int, std::string> Report(const absl::Status& status, const char* help_command) {
  ::testing::internal::CaptureStderr();
  const int code = ReportError(status, "shardplan", help_command);
  return {code, ::testing::internal::GetCapturedStderr()};
}

TEST(ReportErrorTest, UsageErrorsPointAtHelpOthersNameTheirCode) {
  EXPECT_EQ(Report(UsageError("unknown option --bogus"), "shardplan plan"),
            std::make_pair(2, std::string("shardplan: usage: unknown option --bogus (see "
                                          "'shardplan plan --help')\n")));
  EXPECT_EQ(Report(absl::NotFoundError("no model m"), "shardplan"),
            std::make_pair(5, std::string("shardplan: NOT_FOUND: no model m\n")));
  EXPECT_EQ(Report(absl::OkStatus(), "shardplan"), std::make_pair(0, std::string()));
}

}  // namespace
}  // namespace shardplan
