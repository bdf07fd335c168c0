#include "server/log_metrics.h"

#include <string>

#include "server/logging.h"

namespace shardplan {

std::vector<prometheus::MetricFamily> LogLinesCollector::Collect() const {
  const LogCounts counts = GetLogCounts();
  prometheus::MetricFamily lines;
  lines.name = "shardplan_log_lines_total";
  lines.help = "Log lines written, by level (suppression reports included)";
  lines.type = prometheus::MetricType::Counter;
  for (int i = 0; i < kLogLevels; ++i) {
    prometheus::ClientMetric metric;
    metric.label.push_back({"level", std::string(LogLevelName(static_cast<LogLevel>(i)))});
    metric.counter.value = static_cast<double>(counts.lines[i]);
    lines.metric.push_back(std::move(metric));
  }
  prometheus::MetricFamily suppressed;
  suppressed.name = "shardplan_log_lines_suppressed_total";
  suppressed.help =
      "Log lines not written because log_repeat_limit lines with the same key "
      "were written in the window";
  suppressed.type = prometheus::MetricType::Counter;
  prometheus::ClientMetric metric;
  metric.counter.value = static_cast<double>(counts.suppressed);
  suppressed.metric.push_back(std::move(metric));
  return {std::move(lines), std::move(suppressed)};
}

}  // namespace shardplan
