#ifndef SHARDPLAN_SERVER_STORE_PRUNER_H_
#define SHARDPLAN_SERVER_STORE_PRUNER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

#include "absl/status/statusor.h"
#include "server/metrics.h"
#include "server/store/plan_store.h"

namespace shardplan {

// How long the plan store keeps finished keyless records (store_retention_s; 0: for ever), how
// many bytes it may hold (store_max_bytes; 0: no bound), and how often the server looks
// (store_prune_interval_s, > 0).
struct StoreRetention {
  std::chrono::milliseconds keep{0};
  std::chrono::milliseconds interval{0};
  int64_t max_bytes = 0;
  int64_t batch = 1000;  // records per delete transaction
};

// Retention for the plan store, so that it does not grow without bound: deletes finished records
// without a job key once they finished longer ago than `keep` (PlanStore::PruneFinished), then,
// while the records hold more than `max_bytes`, the oldest of them whatever their age
// (PlanStore::PruneForSize). Keyed plans stay until DeletePlan; unfinished jobs are never
// touched. Passes run on a background thread: one at Start, then one every interval; each ends
// by setting shardplan_store_bytes.
class StorePruner {
 public:
  // `store` and `metrics` must outlive this object.
  StorePruner(PlanStore* store, StoreRetention retention, ServerMetrics* metrics);
  ~StorePruner();  // Stop()
  StorePruner(const StorePruner&) = delete;
  StorePruner& operator=(const StorePruner&) = delete;

  // One pass as of `now_unix_ms`: deletes in batches until a batch comes back short (or Stop),
  // by age and then by size. Returns how many records it deleted, or the store's first error
  // (batches committed before it stay deleted). Counted in shardplan_store_pruned_records_total
  // (age) and shardplan_store_size_pruned_records_total (size). When the kept records (keyed,
  // unfinished) alone exceed max_bytes, that is logged, once until it changes.
  absl::StatusOr<int64_t> PruneOnce(int64_t now_unix_ms);

  // Starts the background thread. At most once.
  void Start();
  // Stops the thread, waiting for the batch in progress. Idempotent.
  void Stop();

 private:
  void Loop();
  // Runs `batch` until it deletes fewer than retention_.batch (or Stop), counting each call as
  // store `operation` and its deletions with `record`; the total, or the first error.
  absl::StatusOr<int64_t> InBatches(const char* operation, void (ServerMetrics::*record)(int64_t),
                                    const std::function<absl::StatusOr<int64_t>()>& batch);
  absl::StatusOr<int64_t> PruneByAge(int64_t now_unix_ms);
  absl::StatusOr<int64_t> PruneBySize();

  PlanStore* const store_;
  const StoreRetention retention_;
  ServerMetrics* const metrics_;

  std::atomic<bool> stopping_{false};
  bool over_bound_logged_ = false;  // the kept records alone exceed max_bytes (PruneOnce)
  std::mutex mu_;
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_STORE_PRUNER_H_
