#include "server/measurement_ledger.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace shardplan {

MeasurementLedger::Summary MeasurementLedger::Record(const std::string& model,
                                                     const std::string& reporter,
                                                     double relative_error) {
  std::lock_guard<std::mutex> lock(mu_);
  Reporters& reporters = models_[model];
  if (reporters.count(reporter) == 0 && static_cast<int>(reporters.size()) >= max_reporters_) {
    const auto stalest = std::min_element(
        reporters.begin(), reporters.end(),
        [](const auto& a, const auto& b) { return a.second.last_report < b.second.last_report; });
    reporters.erase(stalest);
  }
  Reporter& entry = reporters[reporter];
  entry.errors.push_back(std::abs(relative_error));
  if (static_cast<int>(entry.errors.size()) > window_) entry.errors.pop_front();
  entry.last_report = ++sequence_;
  return Summarise(reporters);
}

MeasurementLedger::Summary MeasurementLedger::Of(const std::string& model) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = models_.find(model);
  return it == models_.end() ? Summary{} : Summarise(it->second);
}

MeasurementLedger::Summary MeasurementLedger::Summarise(const Reporters& reporters) {
  Summary summary;
  std::vector<double> means;
  means.reserve(reporters.size());
  for (const auto& [name, reporter] : reporters) {
    if (reporter.errors.empty()) continue;
    summary.reports += static_cast<int64_t>(reporter.errors.size());
    means.push_back(std::accumulate(reporter.errors.begin(), reporter.errors.end(), 0.0) /
                    static_cast<double>(reporter.errors.size()));
  }
  summary.reporters = static_cast<int64_t>(means.size());
  if (means.empty()) return summary;
  std::sort(means.begin(), means.end());
  const size_t middle = means.size() / 2;
  summary.mean_abs_relative_error =
      means.size() % 2 == 1 ? means[middle] : (means[middle - 1] + means[middle]) / 2.0;
  return summary;
}

}  // namespace shardplan
