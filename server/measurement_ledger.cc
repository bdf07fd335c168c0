#include "server/measurement_ledger.h"

#include <cmath>
#include <numeric>

namespace shardplan {

MeasurementLedger::Summary MeasurementLedger::Record(const std::string& model,
                                                     double relative_error) {
  std::lock_guard<std::mutex> lock(mu_);
  std::deque<double>& errors = errors_[model];
  errors.push_back(std::abs(relative_error));
  if (static_cast<int>(errors.size()) > window_) errors.pop_front();
  return Summarise(errors);
}

MeasurementLedger::Summary MeasurementLedger::Of(const std::string& model) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = errors_.find(model);
  return it == errors_.end() ? Summary{} : Summarise(it->second);
}

MeasurementLedger::Summary MeasurementLedger::Summarise(const std::deque<double>& errors) {
  if (errors.empty()) return {};
  const double sum = std::accumulate(errors.begin(), errors.end(), 0.0);
  return {sum / static_cast<double>(errors.size()), static_cast<int64_t>(errors.size())};
}

}  // namespace shardplan
