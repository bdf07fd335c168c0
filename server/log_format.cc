#include "server/log_format.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"

namespace shardplan {
namespace {

constexpr absl::string_view kLevelNames[kLogLevels] = {"debug", "info", "warn", "error"};

bool IsControl(unsigned char c) { return c < 0x20 || c == 0x7f; }

// `value` with \ " and control characters escaped as in a JSON string (no quotes added).
void AppendEscaped(absl::string_view value, bool escape_quotes, std::string& out) {
  for (const char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '"':
      case '\\':
        if (escape_quotes) out += '\\';
        out += ch;
        break;
      default:
        if (IsControl(c)) {
          absl::StrAppendFormat(&out, "\\u%04x", c);
        } else {
          out += ch;
        }
    }
  }
}

// A logfmt value: bare when it is a plain word, otherwise quoted and escaped.
void AppendLogfmtValue(absl::string_view value, std::string& out) {
  bool bare = !value.empty();
  for (const char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == ' ' || ch == '"' || ch == '=' || ch == '\\' || IsControl(c)) {
      bare = false;
      break;
    }
  }
  if (bare) {
    out.append(value.data(), value.size());
    return;
  }
  out += '"';
  AppendEscaped(value, /*escape_quotes=*/true, out);
  out += '"';
}

std::string ValueText(const LogField::Value& value) {
  if (const auto* text = std::get_if<std::string>(&value)) return TruncateLogValue(*text);
  if (const auto* number = std::get_if<int64_t>(&value)) return absl::StrCat(*number);
  if (const auto* real = std::get_if<double>(&value)) return absl::StrCat(*real);
  return std::get<bool>(value) ? "true" : "false";
}

void AppendFields(const std::vector<LogField>& fields, std::string& out) {
  for (const LogField& field : fields) {
    out += ' ';
    AppendEscaped(field.key, /*escape_quotes=*/true, out);
    out += '=';
    AppendLogfmtValue(ValueText(field.value), out);
  }
}

std::string FormatJson(absl::string_view ts, LogLevel level, absl::string_view message,
                       const std::vector<LogField>& fields) {
  nlohmann::ordered_json line;
  line["ts"] = ts;
  line["level"] = LogLevelName(level);
  line["msg"] = TruncateLogValue(message);
  for (const LogField& field : fields) {
    std::visit(
        [&](const auto& value) {
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, std::string>) {
            line[field.key] = TruncateLogValue(value);
          } else {
            line[field.key] = value;
          }
        },
        field.value);
  }
  // replace: bytes that are not UTF-8 become U+FFFD instead of an exception.
  return line.dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

absl::string_view LogLevelName(LogLevel level) { return kLevelNames[static_cast<int>(level)]; }

std::optional<LogLevel> ParseLogLevel(absl::string_view name) {
  for (int i = 0; i < kLogLevels; ++i) {
    if (name == kLevelNames[i]) return static_cast<LogLevel>(i);
  }
  return std::nullopt;
}

absl::string_view LogFormatName(LogFormat format) {
  switch (format) {
    case LogFormat::kJson:
      return "json";
    case LogFormat::kLogfmt:
      return "logfmt";
    case LogFormat::kText:
      break;
  }
  return "text";
}

std::optional<LogFormat> ParseLogFormat(absl::string_view name) {
  for (const LogFormat format : {LogFormat::kText, LogFormat::kJson, LogFormat::kLogfmt}) {
    if (name == LogFormatName(format)) return format;
  }
  return std::nullopt;
}

std::string TruncateLogValue(absl::string_view value) {
  if (value.size() <= kMaxLogValueBytes) return std::string(value);
  size_t cut = kMaxLogValueBytes;
  // Back to the start of a UTF-8 character (continuation bytes are 10xxxxxx).
  while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80) --cut;
  return absl::StrCat(value.substr(0, cut), "...[truncated, ", value.size(), " bytes]");
}

std::string FormatLogLine(LogFormat format, absl::Time time, LogLevel level,
                          absl::string_view message, const std::vector<LogField>& fields) {
  const std::string ts = absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", time, absl::UTCTimeZone());
  std::string out;
  switch (format) {
    case LogFormat::kJson:
      out = FormatJson(ts, level, message, fields);
      break;
    case LogFormat::kLogfmt:
      out = absl::StrCat("ts=", ts, " level=", LogLevelName(level), " msg=");
      AppendLogfmtValue(TruncateLogValue(message), out);
      AppendFields(fields, out);
      break;
    case LogFormat::kText: {
      // Info lines read as they always did; the other levels say theirs first.
      out = absl::StrCat(ts, " shardplan-server: ");
      if (level == LogLevel::kWarn) out += "warning: ";
      if (level == LogLevel::kError) out += "error: ";
      if (level == LogLevel::kDebug) out += "debug: ";
      AppendEscaped(TruncateLogValue(message), /*escape_quotes=*/false, out);
      AppendFields(fields, out);
      break;
    }
  }
  out += '\n';
  return out;
}

}  // namespace shardplan
