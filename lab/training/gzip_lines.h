#ifndef SHARDPLAN_LAB_TRAINING_GZIP_LINES_H_
#define SHARDPLAN_LAB_TRAINING_GZIP_LINES_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"

namespace shardplan::training {

// Calls `on_line(line_number, line)` (1-based, without the newline) for every line of `path`,
// a gzip file or plain text (zlib reads both). A last line without a newline counts. Stops at
// the first error `on_line` returns. NOT_FOUND when the file cannot be opened; DATA_LOSS naming
// the file for a corrupt or truncated gzip stream.
absl::Status ForEachLine(const std::string& path,
                         const std::function<absl::Status(int64_t, const std::string&)>& on_line);

}  // namespace shardplan::training

#endif  // SHARDPLAN_LAB_TRAINING_GZIP_LINES_H_
