#ifndef SHARDPLAN_SERVER_MODEL_RELOADER_H_
#define SHARDPLAN_SERVER_MODEL_RELOADER_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "costmodels/artifacts/model_directory_loader.h"
#include "costmodels/model_registry.h"
#include "costmodels/policy_registry.h"
#include "server/metrics.h"

namespace shardplan {

// The server's side of hot reload: runs ModelDirectoryLoader on models_dir when asked
// (ReloadModels, start-up) and every poll interval, logs what changed and keeps the
// shardplan_model* and shardplan_policies_loaded metrics right. Cost-model bundles go to the
// ModelRegistry, policy bundles (docs/policies.md) to the PolicyRegistry when there is one.
//
// Every scan runs on one thread of its own, so that a scan stuck in the filesystem (a hung
// network mount) never holds up the server's shutdown: Stop waits a bounded time for a scan in
// progress, then abandons it (logged) and returns; ReloadNow callers waiting for it are answered
// UNAVAILABLE. An abandoned scan never touches the registry or the metrics afterwards: its
// thread keeps what it uses alive and exits when its I/O returns.
class ModelReloader {
 public:
  struct Options {
    // How long Stop waits for a scan in progress before abandoning it.
    std::chrono::milliseconds stop_wait{std::chrono::seconds(5)};
    // Tests only: runs on the scan thread before each scan's I/O (to make a scan hang).
    std::function<void()> before_scan;
    // Where policy bundles go (must outlive this object), and what vets each one
    // (ModelDirectoryLoader::PolicyCheckFn; required with `policies`). Null: policy bundles
    // are refused.
    PolicyRegistry* policies = nullptr;
    ModelDirectoryLoader::PolicyCheckFn check_policy;
  };

  // `models_root` "" disables loading (ReloadNow answers FAILED_PRECONDITION, nothing polls).
  // `registry` and `metrics` must outlive this object.
  ModelReloader(std::string models_root, ModelRegistry* registry, ServerMetrics* metrics);
  ModelReloader(std::string models_root, ModelRegistry* registry, ServerMetrics* metrics,
                Options options);
  ~ModelReloader();  // Stop()

  bool enabled() const { return state_ != nullptr; }

  // One scan now: waits for a scan that starts after this call (concurrent calls may share one)
  // and answers its report. UNAVAILABLE once Stop has begun.
  absl::StatusOr<ModelReloadReport> ReloadNow();

  // Scans every `interval` (> 0) from now on, until Stop. At most once.
  void StartPolling(std::chrono::milliseconds interval);
  // Stops the scan thread: waits up to Options::stop_wait for a scan in progress, then abandons
  // it. Idempotent.
  void Stop();

 private:
  struct State;  // shared with the scan thread, which may outlive this object
  static void ScanLoop(std::shared_ptr<State> state);

  ModelRegistry* const registry_;
  ServerMetrics* const metrics_;
  const Options options_;
  std::shared_ptr<State> state_;  // null when disabled
  std::thread scanner_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_MODEL_RELOADER_H_
