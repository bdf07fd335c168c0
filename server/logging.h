#ifndef SHARDPLAN_SERVER_LOGGING_H_
#define SHARDPLAN_SERVER_LOGGING_H_

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "absl/strings/string_view.h"
#include "server/log_format.h"

namespace shardplan {

// The process's log: lines on stderr, graded (log_level), in one format (log_format), repeats
// bounded (log_repeat_limit per log_repeat_window_s). Every function is thread-safe.
struct LogOptions {
  LogLevel level = LogLevel::kInfo;  // lines below it are dropped (not counted)
  LogFormat format = LogFormat::kText;
  // At most this many lines with one repeat key per window; 0: no limit. A line that follows
  // suppressed ones says how many: "suppressed N lines like: <key>" (field suppressed=N).
  int64_t repeat_limit = 100;
  std::chrono::milliseconds repeat_window{10000};
};

// Replaces the options (shardplan-server sets them from its settings at start-up). Suppressed
// lines not reported yet are reported first.
void ConfigureLogging(const LogOptions& options);

// Writes one line, unless its level is below the configured one or its repeat key (default:
// the message) exceeded the repeat limit. Never throws; any byte is safe (log_format.h).
void Log(LogLevel level, absl::string_view message, const std::vector<LogField>& fields = {},
         absl::string_view repeat_key = {});

// An info line: "<UTC time> shardplan-server: <message>" in the text format.
void LogLine(absl::string_view message);

// Whether a line of `level` would be written (to skip building one that would not).
bool LogEnabled(LogLevel level);

// Reports every key with suppressed lines now (at shutdown), rather than when its window ends.
void FlushLogSuppressions();

// Lines written by level (suppression reports included) and lines suppressed, since start.
struct LogCounts {
  std::array<int64_t, kLogLevels> lines{};
  int64_t suppressed = 0;
};
LogCounts GetLogCounts();

// Sends every line to `sink` instead of stderr; null restores stderr. For tests.
void SetLogSinkForTesting(std::function<void(absl::string_view)> sink);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_LOGGING_H_
