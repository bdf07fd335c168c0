#ifndef SHARDPLAN_SERVER_SINGLE_FLIGHT_H_
#define SHARDPLAN_SERVER_SINGLE_FLIGHT_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace shardplan {

// Identical work in flight done once (Go's singleflight.Group): the first caller of a key leads
// and computes on its own thread; callers that arrive while it runs join the flight and wait for
// its outcome, each under its own stop condition, holding nothing the leader needs. A training
// job whose ranks all ask for one plan at launch thus plans it once.
//
// A follower takes the leader's outcome only when `shareable` says it answers the follower too
// (a complete plan, or an error of the request itself). When it does not (the leader's call was
// cancelled, ran out of time or found no planning slot), the follower tries again: it leads a new
// flight, or joins one another follower started first. Thread-safe.
template <typename Value>
class SingleFlight {
 public:
  using Outcome = absl::StatusOr<Value>;
  struct Result {
    Outcome outcome;
    bool joined = false;  // the outcome is another caller's
  };

  // How often a waiting follower asks `stopped` (the gRPC call's cancellation).
  static constexpr std::chrono::milliseconds kStopPollInterval{10};

  // Runs `compute` as the leader of `key`, or waits for the flight in progress. `stopped`
  // returns OK while the caller still wants the outcome; a follower returns its first non-OK
  // status. `on_join` is called each time this caller joins a flight.
  Result Do(const std::string& key, const std::function<Outcome()>& compute,
            const std::function<bool(const Outcome&)>& shareable,
            const std::function<absl::Status()>& stopped,
            const std::function<void()>& on_join = nullptr) {
    while (true) {
      std::shared_ptr<Flight> flight;
      bool lead = false;
      {
        std::lock_guard<std::mutex> lock(mu_);
        std::shared_ptr<Flight>& slot = flights_[key];
        if (slot == nullptr) {
          slot = std::make_shared<Flight>();
          lead = true;
        }
        flight = slot;
      }
      if (lead) return {Lead(key, *flight, compute), false};
      if (on_join) on_join();
      {
        std::unique_lock<std::mutex> lock(flight->mu);
        while (!flight->outcome.has_value()) {
          if (absl::Status stop = stopped(); !stop.ok()) return {stop, true};
          flight->done.wait_for(lock, kStopPollInterval);
        }
      }
      if (shareable(*flight->outcome)) return {*flight->outcome, true};
    }
  }

  // Flights in progress (for tests).
  size_t in_flight() const {
    std::lock_guard<std::mutex> lock(mu_);
    return flights_.size();
  }

 private:
  struct Flight {
    std::mutex mu;
    std::condition_variable done;
    std::optional<Outcome> outcome;  // set once, when the leader finishes
  };

  Outcome Lead(const std::string& key, Flight& flight, const std::function<Outcome()>& compute) {
    std::optional<Outcome> outcome;
    // The flight ends whatever happens to `compute`, so followers never wait on a dead leader.
    absl::Cleanup finish = [&] {
      {
        std::lock_guard<std::mutex> lock(mu_);
        flights_.erase(key);  // later callers start a new flight (or hit the cache it filled)
      }
      std::lock_guard<std::mutex> lock(flight.mu);
      flight.outcome = outcome.has_value()
                           ? *outcome
                           : Outcome(absl::InternalError("the computation of an identical "
                                                         "request in flight failed"));
      flight.done.notify_all();
    };
    outcome = compute();
    return *outcome;
  }

  mutable std::mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<Flight>> flights_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_SINGLE_FLIGHT_H_
