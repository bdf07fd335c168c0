#ifndef SHARDPLAN_LAB_TRAINING_RECORD_LINES_H_
#define SHARDPLAN_LAB_TRAINING_RECORD_LINES_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "lab/collection/cost_record.h"

namespace shardplan::training {

// Calls `on_record(line_number, record)` for every non-blank line of the cost-data file `path`
// (gzip or plain) after checking that the record parses, is of `kind`, and has the backend and
// hardware profile of the first record (one dataset, one machine). Errors are
// INVALID_ARGUMENT "<path>:<line>: <reason>", including an error `on_record` returns without
// a location; INVALID_ARGUMENT for a file with no records.
absl::Status ForEachRecord(
    const std::string& path, const std::string& kind,
    const std::function<absl::Status(int64_t, const CostRecord&)>& on_record);
// The same for records of any of `kinds` (a file may still hold one kind only: its first's).
absl::Status ForEachRecord(
    const std::string& path, const std::vector<std::string>& kinds,
    const std::function<absl::Status(int64_t, const CostRecord&)>& on_record);

// "<path>:<line>: <message>" as INVALID_ARGUMENT.
absl::Status RecordError(const std::string& path, int64_t line, const std::string& message);

}  // namespace shardplan::training

#endif  // SHARDPLAN_LAB_TRAINING_RECORD_LINES_H_
