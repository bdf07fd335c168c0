#include "server/single_flight.h"

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

using Flights = SingleFlight<int>;

bool AlwaysShare(const Flights::Outcome&) { return true; }
absl::Status NeverStop() { return absl::OkStatus(); }

// Starts `n` callers of key "k" whose computation waits for `release`; returns once `n - 1` of
// them joined the leader's flight.
struct Storm {
  Flights flights;
  absl::Notification release;
  std::atomic<int> computations{0};
  std::atomic<int> joins{0};
  std::vector<Flights::Result> results;
  std::vector<std::thread> threads;

  void Start(int n, const std::function<Flights::Outcome()>& compute,
             const std::function<bool(const Flights::Outcome&)>& shareable = AlwaysShare) {
    results.resize(n, Flights::Result{absl::UnknownError("not run"), false});
    for (int i = 0; i < n; ++i) {
      threads.emplace_back([this, i, compute, shareable] {
        results[i] = flights.Do(
            "k",
            [&] {
              ++computations;
              release.WaitForNotification();
              return compute();
            },
            shareable, NeverStop, [&] { ++joins; });
      });
    }
    while (joins.load() < n - 1) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  void Finish() {
    release.Notify();
    for (std::thread& t : threads) t.join();
  }
};

TEST(SingleFlightTest, IdenticalCallsInFlightComputeOnce) {
  Storm storm;
  storm.Start(16, [] { return Flights::Outcome(42); });
  EXPECT_EQ(storm.flights.in_flight(), 1u);
  storm.Finish();
  EXPECT_EQ(storm.computations.load(), 1);
  int joined = 0;
  for (const Flights::Result& result : storm.results) {
    ASSERT_TRUE(result.outcome.ok()) << result.outcome.status();
    EXPECT_EQ(*result.outcome, 42);
    joined += result.joined;
  }
  EXPECT_EQ(joined, 15);
  EXPECT_EQ(storm.flights.in_flight(), 0u);
}

TEST(SingleFlightTest, AnOutcomeThatIsNotShareableMakesFollowersComputeAgain) {
  // The leader's own call was cancelled: followers must not inherit that. The first of them to
  // come back leads a second flight and the others join it (the second computation waits until
  // they have, as a real one would take longer than their wake-up).
  Flights flights;
  absl::Notification first_gate, second_gate;
  std::atomic<int> computations{0}, joins{0};
  const int n = 8;
  std::vector<Flights::Result> results(n, Flights::Result{absl::UnknownError("not run"), false});
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      results[i] = flights.Do(
          "k",
          [&]() -> Flights::Outcome {
            if (computations++ == 0) {
              first_gate.WaitForNotification();
              return absl::CancelledError("the leader's client went away");
            }
            second_gate.WaitForNotification();
            return 7;
          },
          [](const Flights::Outcome& outcome) { return outcome.ok(); }, NeverStop,
          [&] { ++joins; });
    });
  }
  const auto wait_for_joins = [&](int count) {
    while (joins.load() < count) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  };
  wait_for_joins(n - 1);      // everyone but the leader joined the first flight
  first_gate.Notify();
  wait_for_joins(2 * n - 3);  // and all but the new leader joined the second
  second_gate.Notify();
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(computations.load(), 2);
  int cancelled = 0;
  for (const Flights::Result& result : results) {
    if (!result.outcome.ok()) {
      EXPECT_EQ(result.outcome.status().code(), absl::StatusCode::kCancelled);
      EXPECT_FALSE(result.joined);  // only the leader whose call was cancelled
      ++cancelled;
    } else {
      EXPECT_EQ(*result.outcome, 7);
    }
  }
  EXPECT_EQ(cancelled, 1);
}

TEST(SingleFlightTest, AFollowerThatStopsReturnsItsOwnStatusAndLeavesTheFlight) {
  Flights flights;
  absl::Notification leader_started, release;
  std::thread leader([&] {
    flights.Do(
        "k",
        [&]() -> Flights::Outcome {
          leader_started.Notify();
          release.WaitForNotification();
          return 1;
        },
        AlwaysShare, NeverStop);
  });
  leader_started.WaitForNotification();
  std::atomic<int> polls{0};
  const Flights::Result follower = flights.Do(
      "k", [] { return Flights::Outcome(2); }, AlwaysShare,
      [&] { return ++polls >= 3 ? absl::DeadlineExceededError("deadline") : absl::OkStatus(); });
  EXPECT_TRUE(follower.joined);
  EXPECT_EQ(follower.outcome.status().code(), absl::StatusCode::kDeadlineExceeded);
  release.Notify();
  leader.join();
}

TEST(SingleFlightTest, DifferentKeysDoNotShare) {
  Flights flights;
  EXPECT_EQ(*flights.Do("a", [] { return Flights::Outcome(1); }, AlwaysShare, NeverStop).outcome,
            1);
  EXPECT_EQ(*flights.Do("b", [] { return Flights::Outcome(2); }, AlwaysShare, NeverStop).outcome,
            2);
  EXPECT_EQ(flights.in_flight(), 0u);
}

TEST(SingleFlightTest, ALeaderThatThrowsStillEndsItsFlight) {
  Flights flights;
  absl::Notification leader_started, release;
  std::thread leader([&] {
    try {
      flights.Do(
          "k",
          [&]() -> Flights::Outcome {
            leader_started.Notify();
            release.WaitForNotification();
            throw std::runtime_error("bug");
          },
          AlwaysShare, NeverStop);
    } catch (const std::runtime_error&) {
    }
  });
  leader_started.WaitForNotification();
  std::thread follower_thread;
  Flights::Result follower{absl::UnknownError("not run"), false};
  std::atomic<bool> joined{false};
  follower_thread = std::thread([&] {
    follower = flights.Do(
        "k", [] { return Flights::Outcome(3); }, AlwaysShare, NeverStop, [&] { joined = true; });
  });
  while (!joined) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  release.Notify();
  leader.join();
  follower_thread.join();
  EXPECT_EQ(follower.outcome.status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(flights.in_flight(), 0u);
}

}  // namespace
}  // namespace shardplan
