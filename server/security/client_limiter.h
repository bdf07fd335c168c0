#ifndef SHARDPLAN_SERVER_SECURITY_CLIENT_LIMITER_H_
#define SHARDPLAN_SERVER_SECURITY_CLIENT_LIMITER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "absl/status/statusor.h"

namespace shardplan {

// What a ClientLimiter's refusal says: "<setting>: client \"c\" already has N <holding>, this
// server's limit; <advice>".
struct ClientLimitWording {
  const char* setting = "max_requests_per_client";
  const char* holding = "Plan calls or jobs in flight";
  const char* advice = "wait for one to finish or cancel a job";
};

// Caps what one client identity holds at once, so that one client cannot take everything:
// max_requests_per_client (the planning work in flight: Plan calls planning plus queued or
// running jobs) and max_streams_per_client (WatchPlan streams open). Never waits: a request
// over the cap is refused at once. Thread-safe.
class ClientLimiter {
 public:
  // One unit of a client's work; given back when destroyed. Move-only; a job
  // keeps its slot by capturing it in its work closure, which the job queue
  // drops when the job ends.
  class Slot {
   public:
    Slot(Slot&& other) noexcept
        : limiter_(std::exchange(other.limiter_, nullptr)), client_(std::move(other.client_)) {}
    Slot& operator=(Slot&&) = delete;
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    ~Slot();

   private:
    friend class ClientLimiter;
    Slot(ClientLimiter* limiter, std::string client)
        : limiter_(limiter), client_(std::move(client)) {}

    ClientLimiter* limiter_;  // null once moved from, or when the limiter is off
    std::string client_;
  };

  // `limit` 0 turns the limiter off: every Acquire succeeds.
  explicit ClientLimiter(int64_t limit, ClientLimitWording wording = {})
      : limit_(limit), wording_(wording) {}
  ClientLimiter(const ClientLimiter&) = delete;
  ClientLimiter& operator=(const ClientLimiter&) = delete;

  // A slot for `client`, or RESOURCE_EXHAUSTED naming the client and the setting when it
  // already holds `limit` slots. Slots must not outlive the limiter.
  absl::StatusOr<Slot> Acquire(const std::string& client);

  int64_t limit() const { return limit_; }
  int64_t in_use(const std::string& client) const;

 private:
  void Release(const std::string& client);

  const int64_t limit_;
  const ClientLimitWording wording_;
  mutable std::mutex mu_;
  std::map<std::string, int64_t> in_use_;  // clients holding no slot are erased
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_SECURITY_CLIENT_LIMITER_H_
