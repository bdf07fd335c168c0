#include "bench/task_proto.h"

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "wire/json_io.h"

namespace shardplan::bench {

absl::StatusOr<v1::Task> TaskProto(const Task& task) {
  v1::Task proto;
  const auto parsed = google::protobuf::util::JsonStringToMessage(TaskToJson(task).dump(), &proto);
  if (!parsed.ok()) {
    return absl::InternalError(absl::StrCat("task to proto: ", parsed.message().as_string()));
  }
  return proto;
}

}  // namespace shardplan::bench
