#include "server/security/client_rate_limiter.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/retry_after.h"

namespace shardplan {
namespace {

using ::testing::HasSubstr;
using Clock = ClientRateLimiter::Clock;

TEST(ClientRateLimiterTest, AClientGetsAMinutesWorthThenWaitsForTheRefill) {
  ClientRateLimiter limiter(3, "max_measurements_per_client_per_minute");
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(limiter.Take("token:a", start).ok());
  const absl::Status refused = limiter.Take("token:a", start);
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(refused.message()),
              HasSubstr("max_measurements_per_client_per_minute: client \"token:a\" sent 3"));
  EXPECT_EQ(RetryAfterMs(refused), 20000);  // one of 3 a minute refills in 20 s
  // Other clients have their own bucket.
  EXPECT_TRUE(limiter.Take("token:b", start).ok());
  // 20 s later one more passes.
  EXPECT_TRUE(limiter.Take("token:a", start + std::chrono::seconds(20)).ok());
  EXPECT_FALSE(limiter.Take("token:a", start + std::chrono::seconds(20)).ok());
}

TEST(ClientRateLimiterTest, ZeroIsOffAndTheClientsRememberedAreBounded) {
  ClientRateLimiter off(0, "x");
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(off.Take("c").ok());
  ClientRateLimiter bounded(1, "x", /*max_clients=*/1);
  const Clock::time_point start = Clock::now();
  EXPECT_TRUE(bounded.Take("a", start).ok());
  EXPECT_TRUE(bounded.Take("b", start).ok());   // untracked: a's bucket is in use
  EXPECT_FALSE(bounded.Take("a", start).ok());  // a is still limited
  // A minute later a's bucket is full again, so it is forgotten for c.
  EXPECT_TRUE(bounded.Take("c", start + std::chrono::minutes(1)).ok());
  EXPECT_FALSE(bounded.Take("c", start + std::chrono::minutes(1)).ok());
}

}  // namespace
}  // namespace shardplan
