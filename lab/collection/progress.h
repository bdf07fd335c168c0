#ifndef SHARDPLAN_LAB_COLLECTION_PROGRESS_H_
#define SHARDPLAN_LAB_COLLECTION_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace shardplan {

// "done/total (pct), rate/s, ETA" lines for long offline jobs, printed at most every
// `min_interval` so that a fast loop does not flood the terminal. The rate counts only work
// done by this run (`already_done` items were there before it started).
class ProgressReporter {
 public:
  using Clock = std::chrono::steady_clock;

  ProgressReporter(std::ostream* out, std::string label, int64_t total, int64_t already_done,
                   Clock::duration min_interval = std::chrono::milliseconds(500));

  // Reports `done` items (including already_done) if enough time passed since the last line.
  void Update(int64_t done);
  // Prints the final line unless Update just printed the same count.
  void Finish(int64_t done);

  // The line for `done` items after `elapsed` of this run (exposed for tests).
  std::string Line(int64_t done, Clock::duration elapsed) const;

 private:
  std::ostream* out_;
  std::string label_;
  int64_t total_;
  int64_t already_done_;
  Clock::duration min_interval_;
  Clock::time_point start_;
  Clock::time_point last_print_;
  int64_t last_printed_done_ = -1;
};

// "1h02m", "3m05s", "42s".
std::string FormatDuration(double seconds);

}  // namespace shardplan

#endif  // SHARDPLAN_LAB_COLLECTION_PROGRESS_H_
