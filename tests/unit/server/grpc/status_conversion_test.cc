#include "server/grpc/status_conversion.h"

#include <string>

#include "gtest/gtest.h"

namespace shardplan {
namespace {

TEST(StatusConversionTest, EveryCanonicalCodeMapsOneToOne) {
  for (int code = 1; code <= 16; ++code) {
    const absl::Status status(static_cast<absl::StatusCode>(code), "why");
    const grpc::Status converted = ToGrpcStatus(status);
    EXPECT_EQ(static_cast<int>(converted.error_code()), code);
    EXPECT_EQ(converted.error_message(), "why");
  }
  EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok());
}

TEST(StatusConversionTest, SpecificCodes) {
  EXPECT_EQ(ToGrpcStatus(absl::InvalidArgumentError("x")).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(ToGrpcStatus(absl::FailedPreconditionError("x")).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(ToGrpcStatus(absl::ResourceExhaustedError("x")).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(ToGrpcStatus(absl::DeadlineExceededError("x")).error_code(),
            grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_EQ(ToGrpcStatus(absl::NotFoundError("x")).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(ToGrpcStatus(absl::UnavailableError("x")).error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(ToGrpcStatus(absl::CancelledError("x")).error_code(), grpc::StatusCode::CANCELLED);
}

TEST(StatusConversionTest, NonCanonicalCodesBecomeUnknown) {
  EXPECT_EQ(ToGrpcStatus(absl::Status(static_cast<absl::StatusCode>(42), "odd")).error_code(),
            grpc::StatusCode::UNKNOWN);
}

TEST(StatusConversionTest, LongMessagesAreCut) {
  const std::string message(10 * kMaxErrorMessageBytes, 'x');
  const grpc::Status converted = ToGrpcStatus(absl::InvalidArgumentError(message));
  EXPECT_LE(converted.error_message().size(), kMaxErrorMessageBytes);
  EXPECT_EQ(converted.error_message().substr(converted.error_message().size() - 4), " ...");
}

TEST(StatusConversionTest, CuttingKeepsUtf8Whole) {
  std::string message;
  while (message.size() < 2 * kMaxErrorMessageBytes) message += "\xC3\xA9";  // é
  const std::string cut = ToGrpcStatus(absl::InvalidArgumentError(message)).error_message();
  const std::string body = cut.substr(0, cut.size() - 4);
  EXPECT_EQ(body.size() % 2, 0u);  // whole two-byte characters only
}

TEST(StatusConversionTest, CodeNames) {
  EXPECT_EQ(GrpcCodeName(grpc::StatusCode::OK), "OK");
  EXPECT_EQ(GrpcCodeName(grpc::StatusCode::INVALID_ARGUMENT), "INVALID_ARGUMENT");
  EXPECT_EQ(GrpcCodeName(grpc::StatusCode::DEADLINE_EXCEEDED), "DEADLINE_EXCEEDED");
  EXPECT_EQ(GrpcCodeName(grpc::StatusCode::UNAUTHENTICATED), "UNAUTHENTICATED");
  // No out-of-range case: a grpc::StatusCode outside its enumerators is undefined behaviour to
  // form at all (UBSan -fsanitize=enum flags the load), so no caller can pass one.
}

TEST(StatusConversionTest, WithPrefixKeepsTheCode) {
  const absl::Status prefixed =
      WithPrefix(absl::ResourceExhaustedError("tables: too many"), "task.");
  EXPECT_EQ(prefixed.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(prefixed.message(), "task.tables: too many");
  EXPECT_TRUE(WithPrefix(absl::OkStatus(), "task.").ok());
}

TEST(StatusConversionTest, RetryAfterMarksTransientRefusals) {
  const absl::Status busy = WithRetryAfter(absl::ResourceExhaustedError("slots"),
                                           absl::Milliseconds(250));
  EXPECT_EQ(busy.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(busy.message(), "slots");
  EXPECT_EQ(RetryAfterMs(busy), 250);
  // A refusal for good (a task over the limits) carries none.
  EXPECT_EQ(RetryAfterMs(absl::ResourceExhaustedError("task.tables: too many")), std::nullopt);
  // The mark survives a prefix, and OK stays unmarked.
  EXPECT_EQ(RetryAfterMs(WithPrefix(busy, "job: ")), 250);
  EXPECT_EQ(RetryAfterMs(WithRetryAfter(absl::OkStatus(), absl::Seconds(1))), std::nullopt);
  EXPECT_EQ(RetryAfterMs(WithRetryAfter(absl::UnavailableError("x"), -absl::Seconds(1))), 0);
}

}  // namespace
}  // namespace shardplan
