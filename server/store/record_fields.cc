#include "server/store/record_fields.h"

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace shardplan::store_internal {
namespace {

absl::Status CheckNoNul(const char* field, const std::string& value) {
  if (value.find('\0') == std::string::npos) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("plan store: record field ", field, " contains a NUL byte"));
}

}  // namespace

absl::Status ValidateRecord(const PlanRecord& record) {
  if (record.job_id.empty()) {
    return absl::InvalidArgumentError("plan store: record field job_id is empty");
  }
  const std::string& s = record.status;
  if (s != "QUEUED" && s != "RUNNING" && s != "SUCCEEDED" && s != "FAILED" && s != "CANCELLED") {
    return absl::InvalidArgumentError(
        absl::StrCat("plan store: record field status is \"", s,
                     "\"; expected QUEUED, RUNNING, SUCCEEDED, FAILED or CANCELLED"));
  }
  for (const auto& [name, value] :
       {std::pair<const char*, const std::string*>{"job_id", &record.job_id},
        {"job_key", &record.job_key},
        {"request_hash", &record.request_hash},
        {"request_json", &record.request_json},
        {"plan_json", &record.plan_json},
        {"algorithm", &record.algorithm},
        {"model_version", &record.model_version},
        {"error_message", &record.error_message},
        {"owner", &record.owner},
        {"submitted_by", &record.submitted_by}}) {
    if (absl::Status status = CheckNoNul(name, *value); !status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status ValidatePruneBatch(int64_t max_records) {
  if (max_records >= 1) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("plan store: prune: max_records is ", max_records, "; it must be at least 1"));
}

absl::Status VerifyChecksum(const PlanRecord& record, const std::string& backend,
                            const std::string& where, const std::string& what) {
  if (record.checksum.empty() || record.checksum == RecordChecksum(record)) {
    return absl::OkStatus();
  }
  absl::Status damaged = absl::DataLossError(StoreMessage(
      backend, where, what,
      absl::StrCat("job ", PrintableExcerpt(record.job_id),
                   " fails its checksum: the record was changed or damaged after it was written, "
                   "so it is not served")));
  damaged.SetPayload(kDamagedJobIdPayload, absl::Cord(PrintableExcerpt(record.job_id)));
  return damaged;
}

void MarkDamage(PlanRecord& record) {
  if (!record.checksum.empty() && record.checksum != RecordChecksum(record)) {
    record.damage = "the record fails its checksum: it was changed or damaged after it was written";
  }
}

size_t RecordsToFree(const std::vector<int64_t>& bytes, int64_t excess) {
  size_t n = 0;
  for (int64_t freed = 0; n < bytes.size() && freed < excess; ++n) freed += bytes[n];
  return n;
}

absl::Status ValidateSizeBound(int64_t max_bytes, int64_t max_records) {
  if (absl::Status s = ValidatePruneBatch(max_records); !s.ok()) return s;
  if (max_bytes >= 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("plan store: prune for size: max_bytes is ", max_bytes, "; it must be >= 0"));
}

std::string StoreMessage(const std::string& backend, const std::string& where,
                         const std::string& what, const std::string& detail) {
  return absl::StrCat("plan store (", backend, " ", where, "): ", what, detail.empty() ? "" : ": ",
                      detail);
}

}  // namespace shardplan::store_internal
