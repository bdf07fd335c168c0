#include "server/cache_key.h"

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "nlohmann/json.hpp"
#include "wire/task_proto.h"

namespace shardplan {
namespace {

// The task as the deterministic binary encoding of its API message: every field the proto has
// (a field added to it is in the key as soon as the conversion carries it), and fast to write,
// where protobuf's JSON printer took about a millisecond per request at 70 tables.
std::string TaskBytes(const Task& task) {
  // A prepared request's task is canonical already; copying it to sort it again is skipped.
  v1::Task proto = wire::TaskToProto(IsCanonical(task) ? task : CanonicalTask(task));
  // The hardware only chooses the model, whose exact version and content are in the key: two
  // requests that resolve to the same model get the same plan.
  proto.mutable_topology()->clear_hardware();
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  proto.SerializeToCodedStream(&coded);
  coded.Trim();
  return bytes;
}

}  // namespace

std::string PlanCacheKey(const CacheKeyInputs& inputs) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [name, value] : inputs.resolved_params) params[name] = value;
  nlohmann::json request = nlohmann::json::array(
      {inputs.algorithm, std::move(params), std::to_string(inputs.seed), inputs.model_id});
  // Appended only for bundles (and policies), so built-in models and requests without a policy
  // keep the keys they always had; with a policy the model's content holds its place, even "".
  if (!inputs.model_content.empty() || !inputs.policy_content.empty()) {
    request.push_back(inputs.model_content);
  }
  if (!inputs.policy_content.empty()) request.push_back(inputs.policy_content);
  // Object keys are sorted (nlohmann::json uses std::map). Invalid UTF-8 cannot reach here
  // from gRPC (proto3 strings are checked), but replacing it keeps dump() from throwing. The
  // compact dump has no raw newline, so the first one ends it.
  return Sha256Hex(
      absl::StrCat(request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), "\n",
                   TaskBytes(*inputs.task)));
}

}  // namespace shardplan
