#include "planner/framework/stop_signal.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace shardplan {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;

TEST(StopSignalTest, WithoutPollIntervalAsksThePredicateOnEveryCheck) {
  std::atomic<int> asked{0};
  const StopSignal stop(std::nullopt, [&] { return ++asked > 5; });
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(stop.Check().ok());
  EXPECT_EQ(stop.Check().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(asked.load(), 6);
}

TEST(StopSignalTest, PollIntervalAsksThePredicateOncePerInterval) {
  std::atomic<int> asked{0};
  std::atomic<bool> gone{false};
  const StopSignal stop(std::nullopt, [&] { ++asked; return gone.load(); }, hours(1));
  EXPECT_TRUE(stop.Check().ok());  // the first check polls
  gone = true;
  // Within the interval the predicate is not asked again, so the cancellation is not seen yet.
  for (int i = 0; i < 10000; ++i) ASSERT_TRUE(stop.Check().ok());
  EXPECT_EQ(asked.load(), 1);
}

TEST(StopSignalTest, PollIntervalIsSharedAcrossThreads) {
  std::atomic<int> asked{0};
  const StopSignal stop(std::nullopt, [&] { ++asked; return false; }, hours(1));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) (void)stop.Check();
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(asked.load(), 1);
}

TEST(StopSignalTest, CancellationIsSeenAfterAnIntervalAndStays) {
  std::atomic<bool> gone{false};
  const StopSignal stop(std::nullopt, [&] { return gone.load(); }, milliseconds(1));
  EXPECT_TRUE(stop.Check().ok());
  gone = true;
  // Seen at the first check one interval later (bounded here only so that a bug fails the test
  // instead of hanging it).
  const auto give_up = StopSignal::Clock::now() + std::chrono::seconds(10);
  while (stop.Check().ok() && StopSignal::Clock::now() < give_up) {
  }
  EXPECT_EQ(stop.Check().code(), absl::StatusCode::kCancelled);
  gone = false;  // a cancellation once seen is not taken back
  EXPECT_EQ(stop.Check().code(), absl::StatusCode::kCancelled);
  EXPECT_TRUE(stop.cancelled());
}

TEST(StopSignalTest, RequestCancelAndDeadline) {
  StopSignal stop;
  EXPECT_TRUE(stop.Check().ok());
  stop.RequestCancel();
  EXPECT_EQ(stop.Check().code(), absl::StatusCode::kCancelled);

  const StopSignal expired(StopSignal::Clock::now() - milliseconds(1));
  EXPECT_EQ(expired.Check().code(), absl::StatusCode::kDeadlineExceeded);
}

}  // namespace
}  // namespace shardplan
