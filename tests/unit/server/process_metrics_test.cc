#include "server/process_metrics.h"

#include <unistd.h>

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

TEST(ProcessMetricsTest, ParsesProcStatWhateverTheCommandName) {
  // proc(5): pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
  // utime stime cutime cstime priority nice num_threads itrealvalue starttime vsize rss ...
  const std::string stat =
      "4242 (a) (b c) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 7 0 123456 "
      "1000000 300 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
  const std::optional<ProcStat> parsed = ParseProcStat(stat, 100, 4096);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_DOUBLE_EQ(parsed->cpu_seconds, 3.0);
  EXPECT_EQ(parsed->threads, 7);
  EXPECT_DOUBLE_EQ(parsed->start_ticks_since_boot, 123456);
  EXPECT_DOUBLE_EQ(parsed->virtual_bytes, 1000000);
  EXPECT_DOUBLE_EQ(parsed->resident_bytes, 300 * 4096.0);
  EXPECT_FALSE(ParseProcStat("4242 (a) S 1 2", 100, 4096).has_value());
  EXPECT_FALSE(ParseProcStat("garbage", 100, 4096).has_value());
}

TEST(ProcessMetricsTest, CollectsThisProcessFromProc) {
  std::map<std::string, double> values;
  for (const prometheus::MetricFamily& family : ProcessCollector().Collect()) {
    ASSERT_EQ(family.metric.size(), 1u) << family.name;
    const prometheus::ClientMetric& metric = family.metric[0];
    values[family.name] =
        family.type == prometheus::MetricType::Counter ? metric.counter.value : metric.gauge.value;
  }
  EXPECT_GT(values["process_resident_memory_bytes"], 0);
  EXPECT_GE(values["process_virtual_memory_bytes"], values["process_resident_memory_bytes"]);
  EXPECT_GE(values["process_cpu_seconds_total"], 0);
  EXPECT_GE(values["process_threads"], 1);
  EXPECT_GE(values["process_open_fds"], 3);  // stdin, stdout, stderr
  EXPECT_GE(values["process_max_fds"], values["process_open_fds"]);
  const double now = static_cast<double>(time(nullptr));
  EXPECT_LE(values["process_start_time_seconds"], now + 1);
  EXPECT_GT(values["process_start_time_seconds"], now - 24 * 3600);
}

}  // namespace
}  // namespace shardplan
