#include "server/log_rate_limiter.h"

#include <chrono>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

using std::chrono::seconds;
using Suppressed = LogRateLimiter::Suppressed;

const LogRateLimiter::Clock::time_point kStart{};

TEST(LogRateLimiterTest, LetsTheLimitThroughPerKeyAndWindowThenReportsTheRest) {
  LogRateLimiter limiter(3, seconds(10));
  std::vector<Suppressed> ended;
  int admitted = 0;
  for (int i = 0; i < 20; ++i) admitted += limiter.Admit("flood", LogLevel::kWarn, kStart, ended);
  EXPECT_EQ(admitted, 3);
  EXPECT_TRUE(ended.empty());
  // Another key is not held back by the flood.
  EXPECT_TRUE(limiter.Admit("other", LogLevel::kInfo, kStart + seconds(1), ended));
  // Still inside the window: nothing reported yet.
  EXPECT_FALSE(limiter.Admit("flood", LogLevel::kError, kStart + seconds(9), ended));
  EXPECT_TRUE(ended.empty());
  // The window ended: the next line (of any key) brings the report, and the key starts afresh.
  EXPECT_TRUE(limiter.Admit("flood", LogLevel::kWarn, kStart + seconds(10), ended));
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0].key, "flood");
  EXPECT_EQ(ended[0].count, 18);
  EXPECT_EQ(ended[0].level, LogLevel::kError);  // the highest suppressed
  ended.clear();
  EXPECT_TRUE(limiter.Admit("flood", LogLevel::kWarn, kStart + seconds(11), ended));
  EXPECT_TRUE(limiter.Admit("flood", LogLevel::kWarn, kStart + seconds(12), ended));
  EXPECT_FALSE(limiter.Admit("flood", LogLevel::kWarn, kStart + seconds(13), ended));
  EXPECT_TRUE(ended.empty());
}

TEST(LogRateLimiterTest, ForgetsKeysWhoseWindowEndedWithoutReportingQuietOnes) {
  LogRateLimiter limiter(2, seconds(10));
  std::vector<Suppressed> ended;
  for (int i = 0; i < 100; ++i) {
    limiter.Admit("key" + std::to_string(i), LogLevel::kInfo, kStart, ended);
  }
  EXPECT_EQ(limiter.tracked_keys(), 100u);
  limiter.Admit("late", LogLevel::kInfo, kStart + seconds(10), ended);
  EXPECT_TRUE(ended.empty());  // none of them lost a line
  EXPECT_EQ(limiter.tracked_keys(), 1u);
}

TEST(LogRateLimiterTest, FlushReportsEverySuppressionAndForgetsThem) {
  LogRateLimiter limiter(1, seconds(10));
  std::vector<Suppressed> ended;
  for (const char* key : {"b", "b", "b", "a", "a", "c"}) {
    limiter.Admit(key, LogLevel::kWarn, kStart, ended);
  }
  const std::vector<Suppressed> flushed = limiter.Flush();
  ASSERT_EQ(flushed.size(), 2u);
  EXPECT_EQ(flushed[0].key, "a");
  EXPECT_EQ(flushed[0].count, 1);
  EXPECT_EQ(flushed[1].key, "b");
  EXPECT_EQ(flushed[1].count, 2);
  EXPECT_TRUE(limiter.Flush().empty());
  EXPECT_TRUE(limiter.Admit("b", LogLevel::kWarn, kStart, ended));
}

TEST(LogRateLimiterTest, ZeroLimitsNothingAndTooManyKeysPassUntracked) {
  LogRateLimiter off(0, seconds(10));
  std::vector<Suppressed> ended;
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(off.Admit("same", LogLevel::kWarn, kStart, ended));
  EXPECT_EQ(off.tracked_keys(), 0u);

  LogRateLimiter small(1, seconds(10), /*max_keys=*/2);
  EXPECT_TRUE(small.Admit("a", LogLevel::kWarn, kStart, ended));
  EXPECT_TRUE(small.Admit("b", LogLevel::kWarn, kStart, ended));
  EXPECT_TRUE(small.Admit("c", LogLevel::kWarn, kStart, ended));
  EXPECT_TRUE(small.Admit("c", LogLevel::kWarn, kStart, ended));  // untracked
  EXPECT_FALSE(small.Admit("a", LogLevel::kWarn, kStart, ended));
  EXPECT_EQ(small.tracked_keys(), 2u);
}

}  // namespace
}  // namespace shardplan
