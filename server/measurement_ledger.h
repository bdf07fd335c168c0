#ifndef SHARDPLAN_SERVER_MEASUREMENT_LEDGER_H_
#define SHARDPLAN_SERVER_MEASUREMENT_LEDGER_H_

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>

namespace shardplan {

// The prediction errors training jobs reported (ReportMeasurement), per model version and per
// reporter (the client identity that sent them), in memory. A model's error is the median over
// its reporters of each reporter's mean |relative error| over its last `window` reports: a
// window, so that it follows a drift instead of being diluted by months of good reports
// (Prometheus keeps the history); per reporter, so that one client's many reports count as one
// voice; the median, so that with three or more reporters no single one moves the error outside
// the range of the others' (one that reports 0 cannot erase a drift the others see, one that
// reports 1e6 cannot raise an alarm alone). Thread-safe.
class MeasurementLedger {
 public:
  static constexpr int kDefaultWindow = 20;
  // Reporters kept per model; the one whose last report is oldest is forgotten first.
  static constexpr int kDefaultMaxReporters = 100;

  explicit MeasurementLedger(int window = kDefaultWindow, int max_reporters = kDefaultMaxReporters)
      : window_(window < 1 ? 1 : window), max_reporters_(max_reporters < 1 ? 1 : max_reporters) {}

  struct Summary {
    // The median over reporters of each one's mean |relative error| over its window.
    double mean_abs_relative_error = 0.0;
    int64_t reports = 0;    // in the windows of all reporters
    int64_t reporters = 0;  // who sent them
  };

  // Records one report's relative error (its absolute value) for `model` ("name@version") from
  // `reporter` (ClientIdentity).
  Summary Record(const std::string& model, const std::string& reporter, double relative_error);
  // The summary of `model` now; zero reports when it has none.
  Summary Of(const std::string& model) const;

 private:
  struct Reporter {
    std::deque<double> errors;  // the last `window_` |relative errors|
    uint64_t last_report = 0;   // sequence number of its latest report
  };
  using Reporters = std::map<std::string, Reporter>;

  static Summary Summarise(const Reporters& reporters);

  const int window_;
  const int max_reporters_;
  mutable std::mutex mu_;
  std::map<std::string, Reporters> models_;  // guarded by mu_
  uint64_t sequence_ = 0;                    // guarded by mu_
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_MEASUREMENT_LEDGER_H_
