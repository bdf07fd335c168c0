#include "server/work_admission.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "server/metrics.h"
#include "server/retry_after.h"

namespace shardplan {
namespace {

// When a call refused for want of work budget may try again: most calls take milliseconds to
// a second.
constexpr absl::Duration kWorkRetryAfter = absl::Milliseconds(500);

// tables x devices, saturating: counts come from requests and are only later checked.
int64_t TableDevices(int64_t tables, int64_t devices) {
  tables = std::max<int64_t>(tables, 1);
  devices = std::max<int64_t>(devices, 1);
  if (tables > std::numeric_limits<int64_t>::max() / devices) {
    return std::numeric_limits<int64_t>::max();
  }
  return tables * devices;
}

}  // namespace

WorkAdmission::Ticket::~Ticket() {
  if (!slot_.has_value()) return;
  slot_.reset();
  if (owner_ != nullptr) owner_->Publish();
}

void WorkAdmission::Publish() const {
  if (metrics_ != nullptr && budget_ != nullptr) {
    metrics_->SetWork(budget_->in_use(), budget_->limit());
  }
}

absl::StatusOr<WorkAdmission::Ticket> WorkAdmission::Admit(int64_t tables, int64_t devices) const {
  if (budget_ == nullptr) return Ticket(std::nullopt, nullptr);
  const int64_t units = TableDevices(tables, devices);
  std::optional<ConcurrencyLimiter::Slot> slot = budget_->TryAcquire(units);
  if (!slot.has_value()) {
    if (metrics_ != nullptr) metrics_->RecordWorkRejected();
    return WithRetryAfter(
        absl::ResourceExhaustedError(absl::StrCat(
            "max_concurrent_work: this call's task is ", tables, " tables x ", devices,
            " devices = ", units, " table-devices, and calls in progress hold ", budget_->in_use(),
            " of the server's ", budget_->limit(), "; retry later or on another instance")),
        kWorkRetryAfter);
  }
  Ticket ticket(std::move(slot), this);
  Publish();
  return ticket;
}

}  // namespace shardplan
