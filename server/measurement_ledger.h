#ifndef SHARDPLAN_SERVER_MEASUREMENT_LEDGER_H_
#define SHARDPLAN_SERVER_MEASUREMENT_LEDGER_H_

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>

namespace shardplan {

// The prediction errors training jobs reported (ReportMeasurement), per model version: the last
// `window` absolute relative errors of each, in memory. A window, not all time, so that the mean
// follows a drift instead of being diluted by months of good reports; Prometheus keeps the
// history. Thread-safe.
class MeasurementLedger {
 public:
  static constexpr int kDefaultWindow = 100;

  explicit MeasurementLedger(int window = kDefaultWindow) : window_(window < 1 ? 1 : window) {}

  struct Summary {
    double mean_abs_relative_error = 0.0;  // over the window
    int64_t reports = 0;                   // in the window
  };

  // Records one report's relative error (its absolute value) for `model` ("name@version").
  Summary Record(const std::string& model, double relative_error);
  // The window of `model` now; zero reports when it has none.
  Summary Of(const std::string& model) const;

 private:
  static Summary Summarise(const std::deque<double>& errors);

  const int window_;
  mutable std::mutex mu_;
  std::map<std::string, std::deque<double>> errors_;  // guarded by mu_
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_MEASUREMENT_LEDGER_H_
