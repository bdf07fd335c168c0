#ifndef SHARDPLAN_SERVER_LOG_FORMAT_H_
#define SHARDPLAN_SERVER_LOG_FORMAT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace shardplan {

// How the server's log lines are graded and written (log_level, log_format).
enum class LogLevel { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };
enum class LogFormat { kText, kJson, kLogfmt };

inline constexpr int kLogLevels = 4;

// "debug", "info", "warn", "error" and back; nullopt for another name.
absl::string_view LogLevelName(LogLevel level);
std::optional<LogLevel> ParseLogLevel(absl::string_view name);
// "text", "json", "logfmt" and back.
absl::string_view LogFormatName(LogFormat format);
std::optional<LogFormat> ParseLogFormat(absl::string_view name);

// One key=value of a structured line. Numbers and booleans stay typed in JSON.
struct LogField {
  using Value = std::variant<std::string, int64_t, double, bool>;

  LogField(std::string k, absl::string_view v) : key(std::move(k)), value(std::string(v)) {}
  LogField(std::string k, const char* v) : key(std::move(k)), value(std::string(v)) {}
  LogField(std::string k, std::string v) : key(std::move(k)), value(std::move(v)) {}
  LogField(std::string k, int64_t v) : key(std::move(k)), value(v) {}
  LogField(std::string k, int v) : key(std::move(k)), value(int64_t{v}) {}
  LogField(std::string k, double v) : key(std::move(k)), value(v) {}
  LogField(std::string k, bool v) : key(std::move(k)), value(v) {}

  std::string key;
  Value value;
};

// Strings longer than this (a field's value, a message) are cut, at a character boundary, and
// marked "...[truncated, N bytes]": a line never grows with what a client sent.
inline constexpr size_t kMaxLogValueBytes = 1024;

// One line (with its "\n") in `format`:
//   text    2026-11-26T10:00:00.123Z shardplan-server: [warning: |error: |debug: ]msg k=v ...
//   json    {"ts":"2026-11-26T10:00:00.123Z","level":"warn","msg":"...","k":"v",...}
//   logfmt  ts=2026-11-26T10:00:00.123Z level=warn msg="..." k=v ...
// Control characters are escaped in every format, so a value can never start a line of its
// own; bytes that are not UTF-8 become U+FFFD in JSON. Never fails.
std::string FormatLogLine(LogFormat format, absl::Time time, LogLevel level,
                          absl::string_view message, const std::vector<LogField>& fields);

// `value` cut to kMaxLogValueBytes (exposed for tests).
std::string TruncateLogValue(absl::string_view value);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_LOG_FORMAT_H_
