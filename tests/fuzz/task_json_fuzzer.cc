// Arbitrary bytes -> wire::ParseTaskJson (what the offline tools and the tests read tasks with)
// -> ValidateTask. Properties: parse errors are INVALID_ARGUMENT or RESOURCE_EXHAUSTED with a
// message; a task that validates survives wire::TaskToJson -> wire::ParseTaskJson with equal
// values and validates again.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"
#include "planner/domain/task.h"
#include "planner/domain/validation.h"
#include "tests/fuzz/fuzz_check.h"
#include "wire/json_io.h"
#include "wire/task_proto.h"

namespace shardplan::fuzz {
namespace {

void CheckTaskJson(std::string_view text) {
  absl::StatusOr<Task> task = wire::ParseTaskJson(absl::string_view(text.data(), text.size()));
  if (!task.ok()) {
    CheckError(task.status(), "ParseTaskJson",
               {absl::StatusCode::kInvalidArgument, absl::StatusCode::kResourceExhausted});
    return;
  }
  if (absl::Status valid = ValidateTask(*task); !valid.ok()) {
    CheckError(valid, "ValidateTask",
               {absl::StatusCode::kInvalidArgument, absl::StatusCode::kResourceExhausted});
    return;
  }

  // What ValidateTask promises about what it accepts.
  for (const Table& table : task->tables) {
    if (table.access_bins.empty()) continue;
    double sum = 0.0;
    for (double bin : table.access_bins) sum += bin;
    if (std::fabs(sum - 1.0) > kAccessBinsSumTolerance &&
        !(sum == 0 && table.pooling_factor == 0)) {
      Fail("ValidateTask accepted an access histogram that does not sum to 1",
           absl::StrCat(table.name, ": ", sum));
    }
  }
  if (task->max_planning_time_ms < 0 || task->max_planning_time_ms > kMaxTaskPlanningTimeMs) {
    Fail("ValidateTask accepted a planning-time limit out of range",
         absl::StrCat(task->max_planning_time_ms));
  }

  const std::string written = wire::TaskToJson(*task);
  absl::StatusOr<Task> again = wire::ParseTaskJson(written);
  if (!again.ok()) {
    Fail("TaskToJson wrote JSON ParseTaskJson refuses",
         absl::StrCat(again.status().ToString(), "\n", written));
  }
  // Compared as values, not as text: protobuf writes -0.0 as "-0" and reads that back as 0,
  // which is the same number (EQUIVALENT: a field at its default equals one not set).
  google::protobuf::util::MessageDifferencer values;
  values.set_message_field_comparison(google::protobuf::util::MessageDifferencer::EQUIVALENT);
  if (!values.Compare(wire::TaskToProto(*task), wire::TaskToProto(*again))) {
    Fail("task changed in a JSON round trip",
         absl::StrCat("first:  ", written, "\nsecond: ", wire::TaskToJson(*again)));
  }
  if (absl::Status valid = ValidateTask(*again); !valid.ok()) {
    Fail("round-tripped task no longer validates", valid.ToString());
  }
  // Planning and cache keys use the canonical order; it must not break
  // validity.
  if (absl::Status valid = ValidateTask(CanonicalTask(*task)); !valid.ok()) {
    Fail("CanonicalTask broke a valid task", valid.ToString());
  }
}

}  // namespace
}  // namespace shardplan::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > shardplan::fuzz::kMaxInputBytes) return -1;  // -1: not added to the corpus
  shardplan::fuzz::CheckTaskJson(std::string_view(reinterpret_cast<const char *>(data), size));
  return 0;
}
