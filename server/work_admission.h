#ifndef SHARDPLAN_SERVER_WORK_ADMISSION_H_
#define SHARDPLAN_SERVER_WORK_ADMISSION_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "server/concurrency_limiter.h"

namespace shardplan {

class ServerMetrics;

// Admission control for the heavy work of calls (max_concurrent_work): converting, validating,
// planning, evaluating and measuring a task costs about its tables times its devices, so a call
// takes that many units of one budget for as long as it works, and is refused at once when they
// are not free, before its task is converted. Thread-safe.
class WorkAdmission {
 public:
  // The call's share of the budget, given back when destroyed. Move-only.
  class Ticket {
   public:
    Ticket(Ticket&&) = default;
    Ticket& operator=(Ticket&&) = default;
    ~Ticket();

   private:
    friend class WorkAdmission;
    Ticket(std::optional<ConcurrencyLimiter::Slot> slot, const WorkAdmission* owner)
        : slot_(std::move(slot)), owner_(owner) {}

    std::optional<ConcurrencyLimiter::Slot> slot_;  // none without a budget
    const WorkAdmission* owner_;
  };

  // `budget` null: every call is admitted. Both pointers must outlive the admission; `metrics`
  // may be null.
  WorkAdmission(ConcurrencyLimiter* budget, ServerMetrics* metrics)
      : budget_(budget), metrics_(metrics) {}

  // A ticket for the work on a task of `tables` tables and `devices` devices; RESOURCE_EXHAUSTED
  // (with a Retry-After) naming max_concurrent_work, the request's size and what is in
  // progress when it does not fit now.
  absl::StatusOr<Ticket> Admit(int64_t tables, int64_t devices) const;

 private:
  void Publish() const;

  ConcurrencyLimiter* const budget_;
  ServerMetrics* const metrics_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_WORK_ADMISSION_H_
