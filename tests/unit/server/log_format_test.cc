#include "server/log_format.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace shardplan {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const absl::Time kTime = absl::FromUnixMillis(1795651200123);  // 2026-11-26T00:00:00.123Z

std::string Line(LogFormat format, LogLevel level, absl::string_view message,
                 const std::vector<LogField>& fields = {}) {
  return FormatLogLine(format, kTime, level, message, fields);
}

TEST(LogFormatTest, NamesRoundTrip) {
  for (const LogLevel level :
       {LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarn, LogLevel::kError}) {
    EXPECT_EQ(ParseLogLevel(LogLevelName(level)), level);
  }
  for (const LogFormat format : {LogFormat::kText, LogFormat::kJson, LogFormat::kLogfmt}) {
    EXPECT_EQ(ParseLogFormat(LogFormatName(format)), format);
  }
  EXPECT_EQ(ParseLogLevel("warning"), std::nullopt);
  EXPECT_EQ(ParseLogLevel("INFO"), std::nullopt);
  EXPECT_EQ(ParseLogFormat("yaml"), std::nullopt);
}

TEST(LogFormatTest, TextKeepsTheOldLineAndAppendsFields) {
  EXPECT_EQ(Line(LogFormat::kText, LogLevel::kInfo, "serving on 127.0.0.1:0"),
            "2026-11-26T00:00:00.123Z shardplan-server: serving on 127.0.0.1:0\n");
  EXPECT_EQ(Line(LogFormat::kText, LogLevel::kWarn, "request",
                 {{"method", "Plan"}, {"latency_ms", 1.5}, {"error", "bad \"dim\""}}),
            "2026-11-26T00:00:00.123Z shardplan-server: warning: request method=Plan "
            "latency_ms=1.5 error=\"bad \\\"dim\\\"\"\n");
  EXPECT_THAT(Line(LogFormat::kText, LogLevel::kError, "x"),
              HasSubstr("shardplan-server: error: x"));
  EXPECT_THAT(Line(LogFormat::kText, LogLevel::kDebug, "x"),
              HasSubstr("shardplan-server: debug: x"));
}

TEST(LogFormatTest, JsonIsOneObjectWithTypedFields) {
  const std::string line =
      Line(LogFormat::kJson, LogLevel::kWarn, "request",
           {{"method", "Plan"}, {"latency_ms", 2.25}, {"count", 3}, {"cache_hit", true}});
  ASSERT_THAT(line, EndsWith("}\n"));
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  const nlohmann::json json = nlohmann::json::parse(line);
  EXPECT_EQ(json["ts"], "2026-11-26T00:00:00.123Z");
  EXPECT_EQ(json["level"], "warn");
  EXPECT_EQ(json["msg"], "request");
  EXPECT_EQ(json["method"], "Plan");
  EXPECT_EQ(json["latency_ms"], 2.25);
  EXPECT_EQ(json["count"], 3);
  EXPECT_EQ(json["cache_hit"], true);
  EXPECT_THAT(line, StartsWith(R"({"ts":)"));  // ts, level, msg first
}

TEST(LogFormatTest, LogfmtQuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(Line(LogFormat::kLogfmt, LogLevel::kInfo, "request",
                 {{"method", "Plan"}, {"peer", "token:ci"}, {"error", "a b=c"}, {"empty", ""}}),
            "ts=2026-11-26T00:00:00.123Z level=info msg=request method=Plan peer=token:ci "
            "error=\"a b=c\" empty=\"\"\n");
  EXPECT_THAT(Line(LogFormat::kLogfmt, LogLevel::kError, "cannot start: no"),
              HasSubstr("level=error msg=\"cannot start: no\""));
}

TEST(LogFormatTest, ControlCharactersNeverStartALine) {
  const std::string evil = "line\nforged 2026 shardplan-server: hi\r\t\x01\x7f";
  for (const LogFormat format : {LogFormat::kText, LogFormat::kJson, LogFormat::kLogfmt}) {
    const std::string line = Line(format, LogLevel::kInfo, evil, {{"v", evil}});
    EXPECT_EQ(line.find('\n'), line.size() - 1) << line;
    EXPECT_EQ(line.find('\r'), std::string::npos) << line;
    EXPECT_EQ(line.find('\x01'), std::string::npos) << line;
    if (format != LogFormat::kJson) {  // JSON needs no escape for DEL, and nlohmann adds none
      EXPECT_EQ(line.find('\x7f'), std::string::npos) << line;
    }
    EXPECT_THAT(line, HasSubstr("line\\nforged")) << line;
  }
  EXPECT_EQ(nlohmann::json::parse(Line(LogFormat::kJson, LogLevel::kInfo, evil))["msg"], evil);
}

TEST(LogFormatTest, BytesThatAreNotUtf8NeverBreakJson) {
  const std::string bad = "table \xff\xfe\xc3";
  const std::string line = Line(LogFormat::kJson, LogLevel::kWarn, bad, {{"error", bad}});
  const nlohmann::json json = nlohmann::json::parse(line);  // throws on invalid JSON
  EXPECT_THAT(json["msg"].get<std::string>(), StartsWith("table "));
  EXPECT_THAT(Line(LogFormat::kText, LogLevel::kWarn, bad), HasSubstr("table "));
}

TEST(LogFormatTest, LongValuesAreCutWithAMarker) {
  const std::string long_value(5000, 'x');
  const std::string cut = TruncateLogValue(long_value);
  EXPECT_EQ(cut, std::string(kMaxLogValueBytes, 'x') + "...[truncated, 5000 bytes]");
  EXPECT_EQ(TruncateLogValue("short"), "short");
  // Never half a UTF-8 character: "é" is 2 bytes, so the cut falls inside one of them.
  std::string accents = "a";
  while (accents.size() < 3000) accents += "\xc3\xa9";
  const std::string cut_accents = TruncateLogValue(accents);
  EXPECT_EQ(cut_accents.find("...[truncated"), kMaxLogValueBytes - 1);
  for (const LogFormat format : {LogFormat::kText, LogFormat::kJson, LogFormat::kLogfmt}) {
    const std::string line = Line(format, LogLevel::kWarn, long_value, {{"error", long_value}});
    EXPECT_LT(line.size(), 2 * kMaxLogValueBytes + 200);
    EXPECT_THAT(line, HasSubstr("...[truncated, 5000 bytes]"));
  }
  EXPECT_THAT(Line(LogFormat::kJson, LogLevel::kWarn, "m", {{"e", cut_accents}}),
              Not(HasSubstr("\\ufffd")));
}

}  // namespace
}  // namespace shardplan
