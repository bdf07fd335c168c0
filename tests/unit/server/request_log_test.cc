#include "server/request_log.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "server/job_manager.h"
#include "server/logging.h"
#include "server/planning_service.h"

namespace shardplan {
namespace {

using ::testing::SizeIs;

class RequestLogTest : public ::testing::Test {
 protected:
  RequestLogTest() {
    ConfigureLogging({.level = LogLevel::kDebug, .format = LogFormat::kJson, .repeat_limit = 2});
    SetLogSinkForTesting([this](absl::string_view line) { lines_.emplace_back(line); });
  }
  ~RequestLogTest() override {
    ConfigureLogging(LogOptions{});
    SetLogSinkForTesting(nullptr);
  }

  nlohmann::json Last() const { return nlohmann::json::parse(lines_.back()); }

  std::vector<std::string> lines_;
};

TEST_F(RequestLogTest, LevelsFollowWhoseErrorItIs) {
  EXPECT_EQ(RequestLogLevel(absl::StatusCode::kOk), LogLevel::kInfo);
  for (const absl::StatusCode code :
       {absl::StatusCode::kInvalidArgument, absl::StatusCode::kNotFound,
        absl::StatusCode::kFailedPrecondition, absl::StatusCode::kAlreadyExists,
        absl::StatusCode::kOutOfRange, absl::StatusCode::kUnauthenticated,
        absl::StatusCode::kPermissionDenied, absl::StatusCode::kCancelled,
        absl::StatusCode::kDeadlineExceeded, absl::StatusCode::kResourceExhausted,
        absl::StatusCode::kAborted}) {
    EXPECT_EQ(RequestLogLevel(code), LogLevel::kWarn) << absl::StatusCodeToString(code);
  }
  for (const absl::StatusCode code :
       {absl::StatusCode::kInternal, absl::StatusCode::kUnknown, absl::StatusCode::kDataLoss,
        absl::StatusCode::kUnavailable, absl::StatusCode::kUnimplemented}) {
    EXPECT_EQ(RequestLogLevel(code), LogLevel::kError) << absl::StatusCodeToString(code);
  }
}

TEST_F(RequestLogTest, APlanAnswerGivesItsModelAlgorithmJobAndOutcome) {
  PlanAnswer answer;
  answer.result.plan.algorithm = "neuroshard";
  answer.result.plan.cost_model = "sim-h100-sxm@5";
  answer.job_id = "abc";
  RequestLog log;
  log.NoteAnswer(answer);
  EXPECT_EQ(log.outcome, "computed");
  answer.result.joined = true;
  log.NoteAnswer(answer);
  EXPECT_EQ(log.outcome, "joined_in_flight");
  answer.result.cache_hit = true;
  log.NoteAnswer(answer);
  EXPECT_EQ(log.outcome, "cache_hit");
  answer.from_store = true;
  log.NoteAnswer(answer);
  EXPECT_EQ(log.outcome, "from_store");

  LogRequest("Plan", "token:ci", absl::OkStatus(), 12.3456789, log);
  ASSERT_THAT(lines_, SizeIs(1));
  const nlohmann::json line = Last();
  EXPECT_EQ(line["level"], "info");
  EXPECT_EQ(line["msg"], "request");
  EXPECT_EQ(line["method"], "Plan");
  EXPECT_EQ(line["peer"], "token:ci");
  EXPECT_EQ(line["code"], "OK");
  EXPECT_EQ(line["latency_ms"], 12.345);
  EXPECT_EQ(line["algorithm"], "neuroshard");
  EXPECT_EQ(line["model"], "sim-h100-sxm@5");
  EXPECT_EQ(line["job_id"], "abc");
  EXPECT_EQ(line["outcome"], "from_store");
  EXPECT_FALSE(line.contains("error"));
  EXPECT_FALSE(line.contains("job_state"));
  EXPECT_FALSE(line.contains("policy"));
}

TEST_F(RequestLogTest, APlanOfATrainedPolicyGivesThePolicy) {
  PlanAnswer answer;
  answer.result.plan.algorithm = "autoshard";
  answer.result.plan.cost_model = "sim-rtx2080ti@5";
  answer.result.plan.parameters = {{"policy", "autoshard-sim-rtx2080ti@1"}};
  RequestLog log;
  log.NoteAnswer(answer);
  LogRequest("Plan", "token:ci", absl::OkStatus(), 1.0, log);
  ASSERT_THAT(lines_, SizeIs(1));
  EXPECT_EQ(Last()["policy"], "autoshard-sim-rtx2080ti@1");
}

TEST_F(RequestLogTest, AJobGivesItsStateAndOnceDoneItsPlan) {
  JobSnapshot job;
  job.id = "j1";
  job.state = JobState::kQueued;
  RequestLog log;
  log.NoteJob(job);
  EXPECT_EQ(log.job_id, "j1");
  EXPECT_EQ(log.job_state, "QUEUED");
  EXPECT_EQ(log.model, "");
  auto result = std::make_shared<PlanningResult>();
  result->plan.algorithm = "size_greedy";
  result->plan.cost_model = "analytic@1";
  job.state = JobState::kSucceeded;
  job.result = result;
  log.NoteJob(job);
  EXPECT_EQ(log.job_state, "SUCCEEDED");
  EXPECT_EQ(log.algorithm, "size_greedy");
  EXPECT_EQ(log.model, "analytic@1");
}

TEST_F(RequestLogTest, ErrorsCarryTheirMessageAndRepeatsAreBoundedPerMethodCodeAndPeer) {
  for (int i = 0; i < 5; ++i) {
    LogRequest("Plan", "peer:10.0.0.1", absl::InvalidArgumentError("task.tables[0].dim: bad"), 1,
               {});
  }
  ASSERT_THAT(lines_, SizeIs(2));
  EXPECT_EQ(Last()["level"], "warn");
  EXPECT_EQ(Last()["code"], "INVALID_ARGUMENT");
  EXPECT_EQ(Last()["error"], "task.tables[0].dim: bad");
  // Another peer, another method or another code is a key of its own.
  LogRequest("Plan", "peer:10.0.0.2", absl::InvalidArgumentError("x"), 1, {});
  LogRequest("GetPlan", "peer:10.0.0.1", absl::InvalidArgumentError("x"), 1, {});
  LogRequest("Plan", "peer:10.0.0.1", absl::InternalError("x"), 1, {});
  ASSERT_THAT(lines_, SizeIs(5));
  EXPECT_EQ(Last()["level"], "error");
  FlushLogSuppressions();
  ASSERT_THAT(lines_, SizeIs(6));
  EXPECT_EQ(Last()["msg"],
            "suppressed 3 lines like: request method=Plan code=INVALID_ARGUMENT "
            "peer=peer:10.0.0.1");
}

}  // namespace
}  // namespace shardplan
