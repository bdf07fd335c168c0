#include "lab/training/record_lines.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "lab/training/gzip_lines.h"

namespace shardplan::training {

absl::Status RecordError(const std::string& path, int64_t line, const std::string& message) {
  return absl::InvalidArgumentError(absl::StrCat(path, ":", line, ": ", message));
}

absl::Status ForEachRecord(
    const std::string& path, const std::string& kind,
    const std::function<absl::Status(int64_t, const CostRecord&)>& on_record) {
  return ForEachRecord(path, std::vector<std::string>{kind}, on_record);
}

absl::Status ForEachRecord(
    const std::string& path, const std::vector<std::string>& kinds,
    const std::function<absl::Status(int64_t, const CostRecord&)>& on_record) {
  std::string kind;  // the first record's
  std::string backend;
  std::string profile;
  int64_t records = 0;
  absl::Status status =
      ForEachLine(path, [&](int64_t line_number, const std::string& line) -> absl::Status {
        if (absl::StripAsciiWhitespace(line).empty()) return absl::OkStatus();
        absl::StatusOr<CostRecord> record = CostRecordFromJsonLine(line);
        if (!record.ok()) {
          return RecordError(path, line_number, std::string(record.status().message()));
        }
        if (records == 0 &&
            std::find(kinds.begin(), kinds.end(), record->kind) != kinds.end()) {
          kind = record->kind;
        }
        if (record->kind != kind) {
          return RecordError(path, line_number,
                             absl::StrCat("kind: '", record->kind, "', expected '",
                                          kind.empty() ? absl::StrJoin(kinds, "' or '") : kind,
                                          "'"));
        }
        if (records++ == 0) {
          backend = record->backend;
          profile = record->hardware_profile;
        } else if (record->backend != backend || record->hardware_profile != profile) {
          return RecordError(path, line_number,
                             absl::StrCat("backend/hardware_profile: '", record->backend, "/",
                                          record->hardware_profile, "' differs from line 1's '",
                                          backend, "/", profile, "'"));
        }
        absl::Status result = on_record(line_number, *record);
        if (!result.ok() && !absl::StartsWith(result.message(), path + ":")) {
          return RecordError(path, line_number, std::string(result.message()));
        }
        return result;
      });
  if (!status.ok()) return status;
  if (records == 0) return absl::InvalidArgumentError(absl::StrCat(path, ": no records"));
  return absl::OkStatus();
}

}  // namespace shardplan::training
