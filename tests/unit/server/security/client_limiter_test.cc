#include "server/security/client_limiter.h"

#include <optional>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

using ::testing::HasSubstr;

TEST(ClientLimiterTest, CapsEachClientSeparatelyAndSlotsComeBack) {
  ClientLimiter limiter(2);
  absl::StatusOr<ClientLimiter::Slot> a1 = limiter.Acquire("a");
  absl::StatusOr<ClientLimiter::Slot> a2 = limiter.Acquire("a");
  ASSERT_TRUE(a1.ok() && a2.ok());
  absl::StatusOr<ClientLimiter::Slot> a3 = limiter.Acquire("a");
  EXPECT_EQ(a3.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(a3.status().message()),
              HasSubstr("max_requests_per_client: client \"a\" already has 2 "));
  EXPECT_TRUE(limiter.Acquire("b").ok());  // b's slot is gone again at once
  EXPECT_EQ(limiter.in_use("b"), 0);

  { ClientLimiter::Slot moved = *std::move(a1); }  // released once, by the moved-to slot
  EXPECT_EQ(limiter.in_use("a"), 1);
  EXPECT_TRUE(limiter.Acquire("a").ok());
}

TEST(ClientLimiterTest, ZeroMeansNoLimit) {
  ClientLimiter limiter(0);
  std::vector<ClientLimiter::Slot> slots;
  for (int i = 0; i < 100; ++i) {
    absl::StatusOr<ClientLimiter::Slot> slot = limiter.Acquire("a");
    ASSERT_TRUE(slot.ok());
    slots.push_back(*std::move(slot));
  }
}

}  // namespace
}  // namespace shardplan
