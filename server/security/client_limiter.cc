#include "server/security/client_limiter.h"

#include "absl/strings/str_cat.h"
#include "server/retry_after.h"

namespace shardplan {

ClientLimiter::Slot::~Slot() {
  if (limiter_ != nullptr) limiter_->Release(client_);
}

absl::StatusOr<ClientLimiter::Slot> ClientLimiter::Acquire(const std::string& client) {
  if (limit_ <= 0) return Slot(nullptr, client);
  std::lock_guard<std::mutex> lock(mu_);
  int64_t& count = in_use_[client];
  if (count >= limit_) {
    // Transient: one of the client's calls or jobs ends soon.
    return WithRetryAfter(absl::ResourceExhaustedError(absl::StrCat(
                              wording_.setting, ": client \"", client, "\" already has ", count,
                              " ", wording_.holding, ", this server's limit; ", wording_.advice)),
                          absl::Milliseconds(250));
  }
  ++count;
  return Slot(this, client);
}

int64_t ClientLimiter::in_use(const std::string& client) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = in_use_.find(client);
  return it == in_use_.end() ? 0 : it->second;
}

void ClientLimiter::Release(const std::string& client) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = in_use_.find(client);
  if (it != in_use_.end() && --it->second <= 0) in_use_.erase(it);
}

}  // namespace shardplan
