#include "server/logging.h"

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "server/log_rate_limiter.h"

namespace shardplan {
namespace {

class Logger {
 public:
  Logger() { Configure(LogOptions{}); }

  void Configure(const LogOptions& options) {
    std::lock_guard<std::mutex> lock(mu_);
    if (limiter_ != nullptr) ReportLocked(limiter_->Flush());
    options_ = options;
    min_level_.store(static_cast<int>(options.level));
    limiter_ = std::make_unique<LogRateLimiter>(options.repeat_limit, options.repeat_window);
  }

  bool Enabled(LogLevel level) const { return static_cast<int>(level) >= min_level_.load(); }

  void Write(LogLevel level, absl::string_view message, const std::vector<LogField>& fields,
             absl::string_view repeat_key) {
    if (!Enabled(level)) return;
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<LogRateLimiter::Suppressed> ended;
    const bool admitted = limiter_->Admit(repeat_key.empty() ? message : repeat_key, level,
                                          LogRateLimiter::Clock::now(), ended);
    ReportLocked(ended);
    if (!admitted) {
      suppressed_.fetch_add(1);
      return;
    }
    EmitLocked(level, message, fields);
  }

  void Flush() {
    std::lock_guard<std::mutex> lock(mu_);
    ReportLocked(limiter_->Flush());
  }

  LogCounts Counts() const {
    LogCounts counts;
    for (int i = 0; i < kLogLevels; ++i) counts.lines[i] = lines_[i].load();
    counts.suppressed = suppressed_.load();
    return counts;
  }

  void SetSink(std::function<void(absl::string_view)> sink) {
    std::lock_guard<std::mutex> lock(mu_);
    sink_ = std::move(sink);
  }

 private:
  void ReportLocked(const std::vector<LogRateLimiter::Suppressed>& suppressed) {
    for (const LogRateLimiter::Suppressed& s : suppressed) {
      EmitLocked(s.level, absl::StrCat("suppressed ", s.count, " lines like: ", s.key),
                 {{"suppressed", s.count}});
    }
  }

  void EmitLocked(LogLevel level, absl::string_view message, const std::vector<LogField>& fields) {
    const std::string line = FormatLogLine(options_.format, absl::Now(), level, message, fields);
    lines_[static_cast<int>(level)].fetch_add(1);
    if (sink_) {
      sink_(line);
      return;
    }
    // One fwrite per line: stdio locks the stream, so lines from threads do not interleave.
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
  }

  std::mutex mu_;
  LogOptions options_;
  std::atomic<int> min_level_{static_cast<int>(LogLevel::kInfo)};
  std::unique_ptr<LogRateLimiter> limiter_;
  std::function<void(absl::string_view)> sink_;
  std::array<std::atomic<int64_t>, kLogLevels> lines_{};
  std::atomic<int64_t> suppressed_{0};
};

// Never destroyed: threads may still log while the process exits.
Logger& TheLogger() {
  static Logger* const logger = new Logger();
  return *logger;
}

}  // namespace

void ConfigureLogging(const LogOptions& options) { TheLogger().Configure(options); }

void Log(LogLevel level, absl::string_view message, const std::vector<LogField>& fields,
         absl::string_view repeat_key) {
  TheLogger().Write(level, message, fields, repeat_key);
}

void LogLine(absl::string_view message) { Log(LogLevel::kInfo, message); }

bool LogEnabled(LogLevel level) { return TheLogger().Enabled(level); }

void FlushLogSuppressions() { TheLogger().Flush(); }

LogCounts GetLogCounts() { return TheLogger().Counts(); }

void SetLogSinkForTesting(std::function<void(absl::string_view)> sink) {
  TheLogger().SetSink(std::move(sink));
}

}  // namespace shardplan
