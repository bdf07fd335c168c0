#ifndef SHARDPLAN_SERVER_PROCESS_METRICS_H_
#define SHARDPLAN_SERVER_PROCESS_METRICS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/string_view.h"
#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"

namespace shardplan {

// What /proc/<pid>/stat says of a process, in the units of the process_* metrics.
struct ProcStat {
  double cpu_seconds = 0;  // user + system
  double virtual_bytes = 0;
  double resident_bytes = 0;
  double start_ticks_since_boot = 0;  // clock ticks after boot (field 22)
  int64_t threads = 0;
};

// Parses the text of /proc/<pid>/stat (the command name may hold spaces and parentheses);
// `ticks_per_second` and `page_bytes` are sysconf's _SC_CLK_TCK and _SC_PAGESIZE. nullopt when
// the text is not such a line.
std::optional<ProcStat> ParseProcStat(absl::string_view text, double ticks_per_second,
                                      double page_bytes);

// The standard process_* metrics of the Prometheus client libraries, read from /proc/self at
// every scrape (prometheus-cpp has none): process_cpu_seconds_total,
// process_resident_memory_bytes, process_virtual_memory_bytes, process_open_fds,
// process_max_fds, process_start_time_seconds and process_threads. A value that cannot be read
// (not Linux) is left out.
class ProcessCollector : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_PROCESS_METRICS_H_
