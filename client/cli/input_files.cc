#include "client/cli/input_files.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "client/cli/torchrec_format.h"
#include "nlohmann/json.hpp"
#include "proto/json/json_document.h"
#include "proto/json/json_message.h"

namespace shardplan::cli {
namespace {

std::string SourceName(absl::string_view path) {
  return path == "-" ? "<stdin>" : std::string(path);
}

// The server's and the offline tools' reader: an unknown field, or one given twice in two
// spellings, is an error rather than a silently ignored typo or a silently chosen value.
absl::Status ParseJson(absl::string_view json, google::protobuf::Message& message) {
  return proto_json::ParseJsonMessage(json, message);
}

}  // namespace

absl::StatusOr<std::string> ReadInput(absl::string_view path) {
  std::ostringstream contents;
  if (path == "-") {
    contents << std::cin.rdbuf();
    if (std::cin.bad()) return absl::InvalidArgumentError("<stdin>: cannot read");
    return contents.str();
  }
  std::ifstream file{std::string(path), std::ios::binary};
  if (!file) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": cannot open: ", std::strerror(errno)));
  }
  contents << file.rdbuf();
  if (file.bad()) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot read"));
  return contents.str();
}

absl::StatusOr<shardplan::v1::Task> ParseTask(absl::string_view json, absl::string_view source) {
  shardplan::v1::Task task;
  if (absl::Status status = ParseJson(json, task); !status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": not a shardplan.v1.Task: ", status.message()));
  }
  return task;
}

absl::StatusOr<shardplan::v1::Plan> ParsePlan(absl::string_view json, absl::string_view source,
                                              const TableShapes& shapes) {
  shardplan::v1::Plan plan;
  const absl::Status as_plan = ParseJson(json, plan);
  if (as_plan.ok()) return plan;
  // PlanResponse and EvaluatePlanResponse share the {"plan": ...} shape.
  shardplan::v1::PlanResponse response;
  if (ParseJson(json, response).ok() && response.has_plan()) return response.plan();
  shardplan::v1::JobStatus job;
  if (ParseJson(json, job).ok() && job.has_result() && job.result().has_plan()) {
    return job.result().plan();
  }
  // TorchRec's ShardingPlan JSON, from `--format torchrec` or TorchRec's own planner; one that
  // gives a key twice is refused below, as a Plan's is, naming the key.
  const absl::StatusOr<nlohmann::json> parsed = proto_json::ParseJsonDocument(json);
  if (parsed.ok() && LooksLikeTorchRecPlan(*parsed)) {
    absl::StatusOr<shardplan::v1::Plan> plan = ParseTorchRecPlan(*parsed, shapes);
    if (!plan.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(source, ": ", plan.status().message()));
    }
    return plan;
  }
  return absl::InvalidArgumentError(
      absl::StrCat(source,
                   ": not a Plan, PlanResponse, finished JobStatus or TorchRec plan; as a Plan: ",
                   as_plan.message()));
}

absl::StatusOr<shardplan::v1::Task> ReadTask(absl::string_view path) {
  absl::StatusOr<std::string> text = ReadInput(path);
  if (!text.ok()) return text.status();
  return ParseTask(*text, SourceName(path));
}

absl::StatusOr<shardplan::v1::Plan> ReadPlan(absl::string_view path, const TableShapes& shapes) {
  absl::StatusOr<std::string> text = ReadInput(path);
  if (!text.ok()) return text.status();
  return ParsePlan(*text, SourceName(path), shapes);
}

}  // namespace shardplan::cli
