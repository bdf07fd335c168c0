#include "server/concurrency_limiter.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace shardplan {
namespace {

TEST(ConcurrencyLimiterTest, GrantsUpToTheLimitThenRefusesAtOnce) {
  ConcurrencyLimiter limiter(2);
  EXPECT_EQ(limiter.limit(), 2);
  std::optional<ConcurrencyLimiter::Slot> a = limiter.TryAcquire();
  std::optional<ConcurrencyLimiter::Slot> b = limiter.TryAcquire();
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(limiter.in_use(), 2);
  EXPECT_FALSE(limiter.TryAcquire().has_value());
  EXPECT_EQ(limiter.in_use(), 2);  // a refusal takes nothing
}

TEST(ConcurrencyLimiterTest, WeighedWorkTakesItsUnitsAndTheLargestRunsOnlyAlone) {
  ConcurrencyLimiter limiter(100);
  std::optional<ConcurrencyLimiter::Slot> sixty = limiter.TryAcquire(60);
  ASSERT_TRUE(sixty.has_value());
  EXPECT_EQ(limiter.in_use(), 60);
  EXPECT_FALSE(limiter.TryAcquire(41).has_value());
  std::optional<ConcurrencyLimiter::Slot> forty = limiter.TryAcquire(40);
  ASSERT_TRUE(forty.has_value());
  EXPECT_FALSE(limiter.TryAcquire().has_value());
  forty.reset();
  sixty.reset();
  EXPECT_EQ(limiter.in_use(), 0);
  // Larger than the whole limit: it takes all of it, so it waits for nothing else to run.
  EXPECT_EQ(limiter.Clamp(1000000), 100);
  std::optional<ConcurrencyLimiter::Slot> huge = limiter.TryAcquire(1000000);
  ASSERT_TRUE(huge.has_value());
  EXPECT_EQ(limiter.in_use(), 100);
  EXPECT_FALSE(limiter.TryAcquire(1).has_value());
  huge.reset();
  EXPECT_EQ(limiter.Clamp(0), 1);  // no work is free
}

TEST(ConcurrencyLimiterTest, ASlotIsGivenBackWhenItGoesOutOfScope) {
  ConcurrencyLimiter limiter(1);
  {
    std::optional<ConcurrencyLimiter::Slot> slot = limiter.TryAcquire();
    ASSERT_TRUE(slot.has_value());
    EXPECT_FALSE(limiter.TryAcquire().has_value());
  }
  EXPECT_EQ(limiter.in_use(), 0);
  EXPECT_TRUE(limiter.TryAcquire().has_value());
  EXPECT_EQ(limiter.in_use(), 0);  // the temporary slot was given back too
}

TEST(ConcurrencyLimiterTest, MovingASlotMovesTheHoldNotTheCount) {
  ConcurrencyLimiter limiter(2);
  std::optional<ConcurrencyLimiter::Slot> first = limiter.TryAcquire();
  ASSERT_TRUE(first.has_value());
  ConcurrencyLimiter::Slot moved = *std::move(first);
  first.reset();  // the moved-from slot gives nothing back
  EXPECT_EQ(limiter.in_use(), 1);

  std::optional<ConcurrencyLimiter::Slot> second = limiter.TryAcquire();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(limiter.in_use(), 2);
  moved = *std::move(second);  // gives back what `moved` held, takes over `second`'s slot
  EXPECT_EQ(limiter.in_use(), 1);
}

TEST(ConcurrencyLimiterTest, ALimitBelowOneCountsAsOne) {
  ConcurrencyLimiter limiter(0);
  EXPECT_EQ(limiter.limit(), 1);
  std::optional<ConcurrencyLimiter::Slot> slot = limiter.TryAcquire();
  EXPECT_TRUE(slot.has_value());
  EXPECT_FALSE(limiter.TryAcquire().has_value());
}

TEST(ConcurrencyLimiterTest, ConcurrentHoldersNeverExceedTheLimit) {
  constexpr int kLimit = 3;
  constexpr int kThreads = 8;
  constexpr int kAttempts = 20000;
  ConcurrencyLimiter limiter(kLimit);
  std::atomic<int> holders{0};
  std::atomic<int> most{0};
  std::atomic<int> granted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kAttempts; ++i) {
        std::optional<ConcurrencyLimiter::Slot> slot = limiter.TryAcquire();
        if (!slot) continue;
        granted.fetch_add(1);
        const int now = holders.fetch_add(1) + 1;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        holders.fetch_sub(1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_LE(most.load(), kLimit);
  EXPECT_GT(granted.load(), 0);
  EXPECT_EQ(limiter.in_use(), 0);
}

}  // namespace
}  // namespace shardplan
