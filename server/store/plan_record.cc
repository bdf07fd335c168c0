#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/sha256.h"
#include "server/store/plan_store.h"

namespace shardplan {
namespace {

// Each field as <length>:<bytes>, so that no two records share an encoding.
void AppendField(std::string& out, absl::string_view value) {
  absl::StrAppend(&out, value.size(), ":", value, "\n");
}

}  // namespace

std::string RecordChecksum(const PlanRecord& r) {
  // Without submitted_by the encoding is schema version 2's, so migrated records verify.
  std::string encoded =
      r.submitted_by.empty() ? "shardplan plan record v2\n" : "shardplan plan record v3\n";
  encoded.reserve(encoded.size() + static_cast<size_t>(RecordBytes(r)) + 512);
  for (absl::string_view field : {absl::string_view(r.job_id), absl::string_view(r.request_hash),
                                  absl::string_view(r.request_json), absl::string_view(r.plan_json),
                                  absl::string_view(r.algorithm),
                                  absl::string_view(r.model_version), absl::string_view(r.status),
                                  absl::string_view(r.error_message), absl::string_view(r.owner)}) {
    AppendField(encoded, field);
  }
  for (int64_t number :
       {static_cast<int64_t>(r.error_code), r.started_unix_ms, r.finished_unix_ms}) {
    AppendField(encoded, absl::StrCat(number));
  }
  if (!r.submitted_by.empty()) AppendField(encoded, r.submitted_by);
  return Sha256Hex(encoded);
}

int64_t RecordBytes(const PlanRecord& r) {
  return static_cast<int64_t>(r.request_json.size() + r.plan_json.size() + r.error_message.size());
}

std::string PrintableExcerpt(absl::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return absl::CHexEscape(text);
  return absl::StrCat(absl::CHexEscape(text.substr(0, max_bytes)), "...");
}

}  // namespace shardplan
