#include "server/process_metrics.h"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace shardplan {
namespace {

std::optional<std::string> ReadAll(const char* path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The system's boot time in Unix seconds ("btime" of /proc/stat).
std::optional<double> BootTime() {
  const std::optional<std::string> stat = ReadAll("/proc/stat");
  if (!stat) return std::nullopt;
  for (absl::string_view line : absl::StrSplit(*stat, '\n')) {
    if (!absl::ConsumePrefix(&line, "btime ")) continue;
    double seconds = 0;
    if (absl::SimpleAtod(line, &seconds)) return seconds;
  }
  return std::nullopt;
}

std::optional<double> OpenFds() {
  std::error_code error;
  std::filesystem::directory_iterator it("/proc/self/fd", error);
  if (error) return std::nullopt;
  double count = 0;
  for (; it != std::filesystem::directory_iterator(); it.increment(error)) {
    if (error) return std::nullopt;
    ++count;
  }
  return count;
}

prometheus::MetricFamily Family(const char* name, const char* help, prometheus::MetricType type,
                                double value) {
  prometheus::MetricFamily family;
  family.name = name;
  family.help = help;
  family.type = type;
  prometheus::ClientMetric metric;
  if (type == prometheus::MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  family.metric.push_back(std::move(metric));
  return family;
}

}  // namespace

std::optional<ProcStat> ParseProcStat(absl::string_view text, double ticks_per_second,
                                      double page_bytes) {
  // "pid (comm) state ppid ...": the fields after the last ')' start with field 3, state.
  const size_t close = text.rfind(')');
  if (close == absl::string_view::npos || ticks_per_second <= 0) return std::nullopt;
  const std::vector<absl::string_view> fields =
      absl::StrSplit(text.substr(close + 1), ' ', absl::SkipEmpty());
  // fields[i] is field i + 3 of proc(5).
  constexpr size_t kUtime = 14 - 3, kStime = 15 - 3, kThreads = 20 - 3, kStart = 22 - 3,
                   kVsize = 23 - 3, kRss = 24 - 3;
  if (fields.size() <= kRss) return std::nullopt;
  double utime = 0, stime = 0, threads = 0, start = 0, vsize = 0, rss = 0;
  if (!absl::SimpleAtod(fields[kUtime], &utime) || !absl::SimpleAtod(fields[kStime], &stime) ||
      !absl::SimpleAtod(fields[kThreads], &threads) || !absl::SimpleAtod(fields[kStart], &start) ||
      !absl::SimpleAtod(fields[kVsize], &vsize) || !absl::SimpleAtod(fields[kRss], &rss)) {
    return std::nullopt;
  }
  ProcStat stat;
  stat.cpu_seconds = (utime + stime) / ticks_per_second;
  stat.virtual_bytes = vsize;
  stat.resident_bytes = rss * page_bytes;
  stat.start_ticks_since_boot = start;
  stat.threads = static_cast<int64_t>(threads);
  return stat;
}

std::vector<prometheus::MetricFamily> ProcessCollector::Collect() const {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> families;
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const std::optional<std::string> text = ReadAll("/proc/self/stat");
  const std::optional<ProcStat> stat =
      text ? ParseProcStat(*text, ticks, static_cast<double>(sysconf(_SC_PAGESIZE))) : std::nullopt;
  if (stat) {
    families.push_back(Family("process_cpu_seconds_total",
                              "Total user and system CPU time spent in seconds.",
                              MetricType::Counter, stat->cpu_seconds));
    families.push_back(Family("process_resident_memory_bytes", "Resident memory size in bytes.",
                              MetricType::Gauge, stat->resident_bytes));
    families.push_back(Family("process_virtual_memory_bytes", "Virtual memory size in bytes.",
                              MetricType::Gauge, stat->virtual_bytes));
    families.push_back(Family("process_threads", "Number of OS threads in the process.",
                              MetricType::Gauge, static_cast<double>(stat->threads)));
    if (const std::optional<double> boot = BootTime()) {
      families.push_back(Family("process_start_time_seconds",
                                "Start time of the process since unix epoch in seconds.",
                                MetricType::Gauge, *boot + stat->start_ticks_since_boot / ticks));
    }
  }
  if (const std::optional<double> open = OpenFds()) {
    families.push_back(
        Family("process_open_fds", "Number of open file descriptors.", MetricType::Gauge, *open));
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
    families.push_back(
        Family("process_max_fds", "Maximum number of open file descriptors.", MetricType::Gauge,
               limit.rlim_cur == RLIM_INFINITY ? std::numeric_limits<double>::infinity()
                                               : static_cast<double>(limit.rlim_cur)));
  }
  return families;
}

}  // namespace shardplan
