#include "server/model_reloader.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/logging.h"

namespace shardplan {

ModelReloader::ModelReloader(std::string models_root, ModelRegistry* registry,
                             ServerMetrics* metrics)
    : registry_(registry), metrics_(metrics) {
  if (!models_root.empty()) {
    loader_ = std::make_unique<ModelDirectoryLoader>(
        std::move(models_root), registry,
        [](const std::string& line) { Log(LogLevel::kWarn, line); });
  }
}

ModelReloader::~ModelReloader() { Stop(); }

absl::StatusOr<ModelReloadReport> ModelReloader::ReloadNow() {
  if (loader_ == nullptr) {
    return absl::FailedPreconditionError(
        "models_dir: this server was started without a models directory; nothing to reload");
  }
  absl::StatusOr<ModelReloadReport> report = loader_->Reload();
  std::lock_guard<std::mutex> lock(log_mu_);
  if (!report.ok()) {
    metrics_->RecordModelReload("error", 0, 0);
    if (std::string error(report.status().message()); error != last_error_) {
      Log(LogLevel::kError, absl::StrCat("models_dir: ", error));
      last_error_ = std::move(error);
    }
    return report.status();
  }
  last_error_.clear();
  int64_t new_refusals = 0;
  for (const ModelReloadReport::Refusal& refusal : report->refused) {
    new_refusals += refusal.first_time ? 1 : 0;
  }
  metrics_->RecordModelReload(report->refused.empty() ? "ok" : "refusals", new_refusals,
                              static_cast<int64_t>(report->refused.size()));
  metrics_->SetModelsLoaded(static_cast<int64_t>(registry_->size()));
  metrics_->SetModelInfo(registry_->List());
  if (LogEnabled(LogLevel::kDebug)) {
    Log(LogLevel::kDebug, "models_dir scanned",
        {{"loaded", static_cast<int64_t>(report->loaded.size())},
         {"unchanged", static_cast<int64_t>(report->unchanged.size())},
         {"removed", static_cast<int64_t>(report->removed.size())},
         {"refused", static_cast<int64_t>(report->refused.size())}});
  }
  if (!report->loaded.empty()) {
    LogLine(absl::StrCat("models loaded: ", absl::StrJoin(report->loaded, ", ")));
  }
  if (!report->removed.empty()) {
    LogLine(absl::StrCat("models removed: ", absl::StrJoin(report->removed, ", ")));
  }
  return report;
}

void ModelReloader::StartPolling(std::chrono::milliseconds interval) {
  if (loader_ == nullptr || interval <= std::chrono::milliseconds(0)) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (poller_.joinable() || stopping_) return;
  poller_ = std::thread([this, interval] { PollLoop(interval); });
}

void ModelReloader::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (poller_.joinable()) poller_.join();
}

void ModelReloader::PollLoop(std::chrono::milliseconds interval) {
  std::unique_lock<std::mutex> lock(mu_);
  while (!wake_.wait_for(lock, interval, [this] { return stopping_; })) {
    lock.unlock();
    ReloadNow().IgnoreError();  // logged and counted inside
    lock.lock();
  }
}

}  // namespace shardplan
