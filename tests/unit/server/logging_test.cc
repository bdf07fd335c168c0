#include "server/logging.h"

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace shardplan {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

// Captures the process's log lines while it lives; restores the defaults after.
class LoggingTest : public ::testing::Test {
 protected:
  LoggingTest() {
    SetLogSinkForTesting([this](absl::string_view line) { lines_.emplace_back(line); });
  }
  ~LoggingTest() override {
    ConfigureLogging(LogOptions{});
    SetLogSinkForTesting(nullptr);
  }

  std::vector<std::string> lines_;
};

TEST_F(LoggingTest, LogLineIsTheOldTextLineAtInfo) {
  ConfigureLogging(LogOptions{});
  const LogCounts before = GetLogCounts();
  LogLine("serving on 127.0.0.1:50051");
  ASSERT_THAT(lines_, SizeIs(1));
  EXPECT_THAT(lines_[0], HasSubstr("Z shardplan-server: serving on 127.0.0.1:50051\n"));
  EXPECT_EQ(GetLogCounts().lines[static_cast<int>(LogLevel::kInfo)],
            before.lines[static_cast<int>(LogLevel::kInfo)] + 1);
}

TEST_F(LoggingTest, LinesBelowTheLevelAreDroppedAndNotCounted) {
  ConfigureLogging({.level = LogLevel::kWarn});
  const LogCounts before = GetLogCounts();
  EXPECT_FALSE(LogEnabled(LogLevel::kInfo));
  EXPECT_TRUE(LogEnabled(LogLevel::kError));
  Log(LogLevel::kDebug, "d");
  Log(LogLevel::kInfo, "i");
  Log(LogLevel::kWarn, "w");
  Log(LogLevel::kError, "e");
  ASSERT_THAT(lines_, SizeIs(2));
  EXPECT_THAT(lines_[0], HasSubstr("warning: w"));
  EXPECT_THAT(lines_[1], HasSubstr("error: e"));
  const LogCounts after = GetLogCounts();
  EXPECT_EQ(after.lines[0], before.lines[0]);
  EXPECT_EQ(after.lines[1], before.lines[1]);
  EXPECT_EQ(after.lines[2], before.lines[2] + 1);
  EXPECT_EQ(after.lines[3], before.lines[3] + 1);
}

TEST_F(LoggingTest, RepeatsAreBoundedAndTheSuppressedReported) {
  ConfigureLogging({.format = LogFormat::kJson,
                    .repeat_limit = 3,
                    .repeat_window = std::chrono::milliseconds(500)});
  const LogCounts before = GetLogCounts();
  for (int i = 0; i < 20; ++i) {
    Log(LogLevel::kWarn, "request", {{"n", i}}, "request method=Plan code=INVALID_ARGUMENT");
  }
  Log(LogLevel::kWarn, "another key");
  EXPECT_THAT(lines_, SizeIs(4));
  EXPECT_EQ(GetLogCounts().suppressed, before.suppressed + 17);
  std::this_thread::sleep_for(std::chrono::milliseconds(600));  // the window ends
  Log(LogLevel::kInfo, "later");
  ASSERT_THAT(lines_, SizeIs(6));
  const nlohmann::json report = nlohmann::json::parse(lines_[4]);
  EXPECT_EQ(report["level"], "warn");
  EXPECT_EQ(report["msg"], "suppressed 17 lines like: request method=Plan code=INVALID_ARGUMENT");
  EXPECT_EQ(report["suppressed"], 17);
  EXPECT_EQ(nlohmann::json::parse(lines_[5])["msg"], "later");
}

TEST_F(LoggingTest, FlushReportsAtOnce) {
  ConfigureLogging({.repeat_limit = 1});
  Log(LogLevel::kError, "same");
  Log(LogLevel::kError, "same");
  Log(LogLevel::kError, "same");
  ASSERT_THAT(lines_, SizeIs(1));
  FlushLogSuppressions();
  ASSERT_THAT(lines_, SizeIs(2));
  EXPECT_THAT(lines_[1], HasSubstr("error: suppressed 2 lines like: same suppressed=2"));
  FlushLogSuppressions();
  EXPECT_THAT(lines_, SizeIs(2));
}

TEST_F(LoggingTest, ThreadsWriteWholeLines) {
  ConfigureLogging({.format = LogFormat::kLogfmt, .repeat_limit = 0});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 100; ++i) Log(LogLevel::kInfo, "line", {{"t", t}, {"i", i}});
    });
  }
  for (std::thread& thread : threads) thread.join();
  ASSERT_THAT(lines_, SizeIs(400));
  for (const std::string& line : lines_) {
    EXPECT_THAT(std::vector<std::string>(absl::StrSplit(line, '\n')),
                ElementsAre(::testing::_, ""));
  }
}

}  // namespace
}  // namespace shardplan
