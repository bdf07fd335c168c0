#ifndef SHARDPLAN_CLIENT_CLI_OUTPUT_H_
#define SHARDPLAN_CLIENT_CLI_OUTPUT_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace shardplan::cli {

// Proto JSON with the original (snake_case) field names and every field printed, defaults
// included, so that scripts can index fields without checking for presence. `pretty` indents;
// otherwise one line (JSON Lines for streams).
std::string ToJson(const google::protobuf::Message& message, bool pretty = true);

// Writes `text` to `path`, or to stdout when `path` is empty or "-". Errors name the file.
absl::Status WriteOutput(absl::string_view text, absl::string_view path);

// Figures as the text outputs print them: milliseconds with 3 decimals, GiB (2^30 bytes) with
// `decimals` decimals.
std::string FormatMs(double ms);
std::string FormatGiB(int64_t bytes, int decimals = 2);

}  // namespace shardplan::cli

#endif  // SHARDPLAN_CLIENT_CLI_OUTPUT_H_
