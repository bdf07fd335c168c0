#ifndef SHARDPLAN_SERVER_MODEL_RELOADER_H_
#define SHARDPLAN_SERVER_MODEL_RELOADER_H_

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "costmodels/artifacts/model_directory_loader.h"
#include "costmodels/model_registry.h"
#include "server/metrics.h"

namespace shardplan {

// The server's side of hot reload: runs ModelDirectoryLoader on models_dir when asked
// (ReloadModels, start-up) and every poll interval on a background thread, logs what changed
// and keeps the shardplan_model* metrics right.
class ModelReloader {
 public:
  // `models_root` "" disables loading (ReloadNow answers FAILED_PRECONDITION, nothing polls).
  // `registry` and `metrics` must outlive this object.
  ModelReloader(std::string models_root, ModelRegistry* registry, ServerMetrics* metrics);
  ~ModelReloader();  // Stop()

  bool enabled() const { return loader_ != nullptr; }

  // One scan now. Concurrent calls (the poll thread, several RPCs) run one after another.
  absl::StatusOr<ModelReloadReport> ReloadNow();

  // Starts a thread that calls ReloadNow every `interval` (> 0) until Stop. At most once.
  void StartPolling(std::chrono::milliseconds interval);
  // Stops the poll thread, waiting for a scan in progress. Idempotent.
  void Stop();

 private:
  void PollLoop(std::chrono::milliseconds interval);

  ModelRegistry* const registry_;
  ServerMetrics* const metrics_;
  std::unique_ptr<ModelDirectoryLoader> loader_;

  std::mutex log_mu_;
  std::string last_error_;  // a scan error is logged once until it changes

  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread poller_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_MODEL_RELOADER_H_
