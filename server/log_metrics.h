#ifndef SHARDPLAN_SERVER_LOG_METRICS_H_
#define SHARDPLAN_SERVER_LOG_METRICS_H_

#include <vector>

#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"

namespace shardplan {

// The log's own counters (GetLogCounts), read at every scrape:
//   shardplan_log_lines_total{level}         lines written, by level (debug, info, warn, error)
//   shardplan_log_lines_suppressed_total     lines log_repeat_limit held back
class LogLinesCollector : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_LOG_METRICS_H_
