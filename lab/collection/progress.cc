#include "lab/collection/progress.h"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>

#include "absl/strings/str_format.h"

namespace shardplan {

ProgressReporter::ProgressReporter(std::ostream* out, std::string label, int64_t total,
                                   int64_t already_done, Clock::duration min_interval)
    : out_(out),
      label_(std::move(label)),
      total_(total),
      already_done_(already_done),
      min_interval_(min_interval),
      start_(Clock::now()),
      last_print_(start_) {}

void ProgressReporter::Update(int64_t done) {
  if (out_ == nullptr) return;
  const Clock::time_point now = Clock::now();
  if (now - last_print_ < min_interval_) return;
  last_print_ = now;
  last_printed_done_ = done;
  *out_ << Line(done, now - start_) << "\n" << std::flush;
}

void ProgressReporter::Finish(int64_t done) {
  if (out_ == nullptr || done == last_printed_done_) return;
  *out_ << Line(done, Clock::now() - start_) << "\n" << std::flush;
}

std::string ProgressReporter::Line(int64_t done, Clock::duration elapsed) const {
  const double seconds = std::chrono::duration<double>(elapsed).count();
  const int64_t this_run = done - already_done_;
  const double rate = seconds > 0 ? this_run / seconds : 0.0;
  const double percent = total_ > 0 ? 100.0 * done / total_ : 100.0;
  std::string line = absl::StrFormat("%s: %d/%d (%.1f%%), %.1f/s, elapsed %s", label_, done, total_,
                                     percent, rate, FormatDuration(seconds));
  if (done < total_) {
    line += rate > 0 ? ", ETA " + FormatDuration((total_ - done) / rate) : ", ETA ?";
  }
  return line;
}

std::string FormatDuration(double seconds) {
  const int64_t total = static_cast<int64_t>(std::llround(std::max(0.0, seconds)));
  const int64_t hours = total / 3600;
  const int64_t minutes = total % 3600 / 60;
  const int64_t secs = total % 60;
  if (hours > 0) return absl::StrFormat("%dh%02dm", hours, minutes);
  if (minutes > 0) return absl::StrFormat("%dm%02ds", minutes, secs);
  return absl::StrFormat("%ds", secs);
}

}  // namespace shardplan
