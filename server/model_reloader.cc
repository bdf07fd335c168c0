#include "server/model_reloader.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "costmodels/artifacts/bundle_file.h"
#include "server/logging.h"

namespace shardplan {

struct ModelReloader::State {
  State(std::string models_root, ModelRegistry* registry, ServerMetrics* metrics,
        const Options& options)
      : loader(
            std::move(models_root), registry,
            [](const std::string& line) { Log(LogLevel::kWarn, line); }, options.policies,
            options.check_policy),
        registry(registry),
        policies(options.policies),
        metrics(metrics),
        before_scan(options.before_scan) {}

  ModelDirectoryLoader loader;    // Scan on the scan thread alone; Apply under mu
  ModelRegistry* const registry;  // used under mu, never once abandoned
  PolicyRegistry* const policies;  // likewise; may be null
  ServerMetrics* const metrics;   // likewise
  const std::function<void()> before_scan;

  std::mutex mu;
  std::condition_variable cv;
  uint64_t requested = 0;  // scans asked for by ReloadNow
  uint64_t completed = 0;  // the requests the latest finished scan answered
  absl::StatusOr<ModelReloadReport> last = absl::UnknownError("no scan yet");
  std::chrono::milliseconds interval{0};  // 0: no polling
  bool stopping = false;
  bool abandoned = false;  // Stop gave up waiting: the thread must touch nothing outside
  bool exited = false;     // the scan thread has left its loop
  std::string last_error;  // a scan error is logged once until it changes
};

namespace {

// Logs what `report` changed and keeps the model and policy metrics right (under the state's
// mutex). `policies` may be null.
void Record(const absl::StatusOr<ModelReloadReport>& report, ModelRegistry& registry,
            const PolicyRegistry* policies, ServerMetrics& metrics, std::string& last_error) {
  if (!report.ok()) {
    metrics.RecordModelReload("error", {}, 0);
    if (std::string error(report.status().message()); error != last_error) {
      Log(LogLevel::kError, absl::StrCat("models_dir: ", error));
      last_error = std::move(error);
    }
    return;
  }
  last_error.clear();
  std::vector<std::string> new_refusals;
  for (const ModelReloadReport::Refusal& refusal : report->refused) {
    if (refusal.first_time) new_refusals.push_back(refusal.kind);
  }
  metrics.RecordModelReload(report->refused.empty() ? "ok" : "refusals", new_refusals,
                            static_cast<int64_t>(report->refused.size()));
  metrics.SetModelsLoaded(static_cast<int64_t>(registry.size()));
  metrics.SetPoliciesLoaded(policies != nullptr ? static_cast<int64_t>(policies->size()) : 0);
  metrics.SetModelInfo(registry.List(), policies != nullptr ? policies->List()
                                                            : std::vector<PolicyRegistry::Entry>{});
  if (LogEnabled(LogLevel::kDebug)) {
    Log(LogLevel::kDebug, "models_dir scanned",
        {{"loaded", static_cast<int64_t>(report->loaded.size())},
         {"unchanged", static_cast<int64_t>(report->unchanged.size())},
         {"removed", static_cast<int64_t>(report->removed.size())},
         {"policies_loaded", static_cast<int64_t>(report->policies_loaded.size())},
         {"policies_unchanged", static_cast<int64_t>(report->policies_unchanged.size())},
         {"policies_removed", static_cast<int64_t>(report->policies_removed.size())},
         {"refused", static_cast<int64_t>(report->refused.size())}});
  }
  if (!report->loaded.empty()) {
    LogLine(absl::StrCat("models loaded: ", absl::StrJoin(report->loaded, ", ")));
  }
  if (!report->removed.empty()) {
    LogLine(absl::StrCat("models removed: ", absl::StrJoin(report->removed, ", ")));
  }
  if (!report->policies_loaded.empty()) {
    LogLine(absl::StrCat("policies loaded: ", absl::StrJoin(report->policies_loaded, ", ")));
  }
  if (!report->policies_removed.empty()) {
    LogLine(absl::StrCat("policies removed: ", absl::StrJoin(report->policies_removed, ", ")));
  }
}

}  // namespace

ModelReloader::ModelReloader(std::string models_root, ModelRegistry* registry,
                             ServerMetrics* metrics)
    : ModelReloader(std::move(models_root), registry, metrics, Options()) {}

ModelReloader::ModelReloader(std::string models_root, ModelRegistry* registry,
                             ServerMetrics* metrics, Options options)
    : registry_(registry), metrics_(metrics), options_(std::move(options)) {
  if (models_root.empty()) return;
  metrics_->DeclareModelLoadFailureReasons({kLoadFailureUnreadable, kLoadFailureFileType,
                                            kLoadFailureSize, kLoadFailureMissing,
                                            kLoadFailureInvalid});
  state_ = std::make_shared<State>(std::move(models_root), registry_, metrics_, options_);
  scanner_ = std::thread(ScanLoop, state_);
}

ModelReloader::~ModelReloader() { Stop(); }

absl::StatusOr<ModelReloadReport> ModelReloader::ReloadNow() {
  if (state_ == nullptr) {
    return absl::FailedPreconditionError(
        "models_dir: this server was started without a models directory; nothing to reload");
  }
  State& state = *state_;
  std::unique_lock<std::mutex> lock(state.mu);
  if (state.stopping) {
    return absl::UnavailableError("models_dir: the server is stopping; models are not reloaded");
  }
  const uint64_t request = ++state.requested;
  state.cv.notify_all();
  state.cv.wait(lock,
                [&] { return state.completed >= request || state.exited || state.abandoned; });
  if (state.completed >= request) return state.last;
  return absl::UnavailableError(
      "models_dir: the server stopped before the scan finished (see its log)");
}

void ModelReloader::StartPolling(std::chrono::milliseconds interval) {
  if (state_ == nullptr || interval <= std::chrono::milliseconds(0)) return;
  std::lock_guard<std::mutex> lock(state_->mu);
  if (state_->interval > std::chrono::milliseconds(0) || state_->stopping) return;
  state_->interval = interval;
  state_->cv.notify_all();
}

void ModelReloader::Stop() {
  if (state_ == nullptr) return;
  State& state = *state_;
  std::unique_lock<std::mutex> lock(state.mu);
  if (!state.stopping) {
    state.stopping = true;
    state.cv.notify_all();
    if (!state.cv.wait_for(lock, options_.stop_wait, [&] { return state.exited; })) {
      state.abandoned = true;
      state.cv.notify_all();  // ReloadNow callers waiting for that scan
      Log(LogLevel::kWarn,
          absl::StrCat("models_dir \"", state.loader.models_root(),
                       "\": a scan is still running after ", options_.stop_wait.count(),
                       " ms (a hung filesystem?); stopping without it (it changes nothing when it "
                       "returns)"));
    }
  }
  const bool exited = state.exited;
  lock.unlock();
  if (!scanner_.joinable()) return;
  if (exited) {
    scanner_.join();
  } else {
    scanner_.detach();  // holds state_; touches nothing else once abandoned
  }
}

void ModelReloader::ScanLoop(std::shared_ptr<State> state) {
  std::unique_lock<std::mutex> lock(state->mu);
  while (true) {
    const std::chrono::milliseconds interval = state->interval;
    const auto wake = [&] {
      return state->stopping || state->requested > state->completed || state->interval != interval;
    };
    bool poll = false;
    if (interval > std::chrono::milliseconds(0)) {
      poll = !state->cv.wait_for(lock, interval, wake);
    } else {
      state->cv.wait(lock, wake);
    }
    if (state->stopping) break;
    if (!poll && state->requested <= state->completed) continue;  // polling started
    const uint64_t request = state->requested;
    lock.unlock();
    // All of the I/O, without the lock: Stop can abandon it.
    if (state->before_scan) state->before_scan();
    std::shared_ptr<ModelDirectoryLoader::ScanResult> scan = state->loader.Scan();
    lock.lock();
    if (state->abandoned) break;
    state->last = state->loader.Apply(*scan);
    Record(state->last, *state->registry, state->policies, *state->metrics, state->last_error);
    state->completed = request;
    state->cv.notify_all();
  }
  state->exited = true;
  state->cv.notify_all();
}

}  // namespace shardplan
