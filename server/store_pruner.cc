#include "server/store_pruner.h"

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
  const int64_t cut = now_unix_ms - retention_.keep.count();
  int64_t deleted = 0;
  while (!stopping_.load()) {
    absl::StatusOr<int64_t> batch = store_->PruneFinished(cut, retention_.batch);
    metrics_->RecordStoreCall("prune", batch.status().code());
    if (!batch.ok()) return batch.status();
    metrics_->RecordStorePruned(*batch);
    deleted += *batch;
    if (*batch < retention_.batch) break;
  }
  return deleted;
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
                             " finished records without a job key, older than ",
                             retention_.keep.count() / 1000, " s"));
      }
    }
    lock.lock();
  } while (!wake_.wait_for(lock, retention_.interval, [this] { return stopping_.load(); }));
}

}  // namespace shardplan
