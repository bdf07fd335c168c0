#include "server/store_pruner.h"

#include <functional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "server/logging.h"

namespace shardplan {

StorePruner::StorePruner(PlanStore* store, StoreRetention retention, ServerMetrics* metrics)
    : store_(store), retention_(retention), metrics_(metrics) {}

StorePruner::~StorePruner() { Stop(); }

absl::StatusOr<int64_t> StorePruner::PruneOnce(int64_t now_unix_ms) {
  absl::StatusOr<int64_t> by_age = PruneByAge(now_unix_ms);
  if (!by_age.ok()) return by_age;
  absl::StatusOr<int64_t> by_size = PruneBySize();
  if (!by_size.ok()) return by_size;
  absl::StatusOr<StoredBytes> bytes = store_->Bytes();
  metrics_->RecordStoreCall("bytes", bytes.status().code());
  if (!bytes.ok()) return bytes.status();
  metrics_->SetStoreBytes(bytes->total, bytes->kept);
  const bool over = retention_.max_bytes > 0 && bytes->kept > retention_.max_bytes;
  if (over && !over_bound_logged_) {
    LogLine(absl::StrCat("store_max_bytes: keyed plans and unfinished jobs alone hold ",
                         bytes->kept, " bytes, more than the bound of ", retention_.max_bytes,
                         "; they are never deleted for size, so the store stays above it "
                         "(DeletePlan removes keyed plans)"));
  }
  over_bound_logged_ = over;
  return *by_age + *by_size;
}

absl::StatusOr<int64_t> StorePruner::InBatches(
    const char* operation, void (ServerMetrics::*record)(int64_t),
    const std::function<absl::StatusOr<int64_t>()>& batch) {
  int64_t deleted = 0;
  while (!stopping_.load()) {
    absl::StatusOr<int64_t> done = batch();
    metrics_->RecordStoreCall(operation, done.status().code());
    if (!done.ok()) return done.status();
    (metrics_->*record)(*done);
    deleted += *done;
    if (*done < retention_.batch) break;
  }
  return deleted;
}

absl::StatusOr<int64_t> StorePruner::PruneBySize() {
  if (retention_.max_bytes <= 0) return 0;
  return InBatches("prune_for_size", &ServerMetrics::RecordStoreSizePruned,
                   [this] { return store_->PruneForSize(retention_.max_bytes, retention_.batch); });
}

absl::StatusOr<int64_t> StorePruner::PruneByAge(int64_t now_unix_ms) {
  if (retention_.keep.count() <= 0) return 0;
  const int64_t cut = now_unix_ms - retention_.keep.count();
  return InBatches("prune", &ServerMetrics::RecordStorePruned,
                   [this, cut] { return store_->PruneFinished(cut, retention_.batch); });
}

void StorePruner::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable() || stopping_.load()) return;
  thread_ = std::thread([this] { Loop(); });
}

void StorePruner::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_.store(true);
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void StorePruner::Loop() {
  std::string last_error;  // a failing store is logged once per distinct error, not every pass
  std::unique_lock<std::mutex> lock(mu_);
  do {
    lock.unlock();
    absl::StatusOr<int64_t> deleted = PruneOnce(absl::ToUnixMillis(absl::Now()));
    if (!deleted.ok()) {
      if (std::string error(deleted.status().message()); error != last_error) {
        Log(LogLevel::kError, absl::StrCat("store retention: ", error));
        last_error = error;
      }
    } else {
      last_error.clear();
      if (*deleted > 0) {
        LogLine(absl::StrCat("store retention: deleted ", *deleted,
                             " finished records without a job key (older than ",
                             retention_.keep.count() / 1000, " s, or beyond store_max_bytes ",
                             retention_.max_bytes, ")"));
      }
    }
    lock.lock();
  } while (!wake_.wait_for(lock, retention_.interval, [this] { return stopping_.load(); }));
}

}  // namespace shardplan
