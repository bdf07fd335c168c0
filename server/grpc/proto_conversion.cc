#include "server/grpc/proto_conversion.h"

#include <charconv>
#include <cmath>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "server/grpc/status_conversion.h"
#include "server/result_proto.h"
#include "wire/task_proto.h"

namespace shardplan {
namespace {

// Bounds in the spelling of their parameter's type: "100000000", not "1e+08".
std::string FormatBound(ParamType type, double value) {
  if (type == ParamType::kInt && std::abs(value) < 9.2e18) {
    return absl::StrCat(static_cast<int64_t>(value));
  }
  char buffer[64];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return error == std::errc() ? std::string(buffer, end) : absl::StrCat(value);
}

}  // namespace

void AlgorithmInfoToProto(const AlgorithmInfo& info, bool is_default, v1::AlgorithmInfo* proto) {
  proto->set_name(info.name);
  proto->set_description(info.description);
  for (const ParamSpec& spec : info.params) {
    v1::AlgorithmParameter* param = proto->add_parameters();
    param->set_name(spec.name);
    param->set_type(ParamTypeName(spec.type));
    param->set_default_value(spec.default_value);
    param->set_description(spec.description);
    if (spec.min_value) param->set_min_value(FormatBound(spec.type, *spec.min_value));
    if (spec.max_value) param->set_max_value(FormatBound(spec.type, *spec.max_value));
  }
  for (ShardingType type : info.sharding_types) {
    proto->add_sharding_types(wire::ShardingTypeToProto(type));
  }
  proto->set_uses_cost_model(info.uses_cost_model);
  proto->set_is_default(is_default);
}

void ModelEntryToProto(const ModelRegistry::Entry& entry, v1::ModelInfo* proto) {
  const ModelManifest& manifest = entry.manifest;
  proto->set_name(manifest.name);
  proto->set_version(manifest.version);
  proto->set_kind(manifest.kind);
  proto->set_hardware_profile(manifest.hardware_profile);
  proto->set_backend(manifest.backend);
  proto->set_data_size(manifest.data_size);
  proto->mutable_test_mse()->insert(manifest.test_mse.begin(), manifest.test_mse.end());
  proto->set_created(manifest.created);
  for (int32_t count : manifest.device_counts) proto->add_device_counts(count);
  proto->set_costs_interconnect(manifest.costs_interconnect);
  proto->set_is_default(entry.is_default);
  proto->set_is_latest(entry.is_latest);
  proto->set_description(manifest.description);
}

void PolicyEntryToProto(const PolicyRegistry::Entry& entry, v1::ModelInfo* proto) {
  const PolicyManifest& manifest = entry.manifest;
  proto->set_name(manifest.name);
  proto->set_version(manifest.version);
  proto->set_kind("policy");
  proto->set_algorithm(manifest.algorithm);
  proto->set_hardware_profile(manifest.hardware_profile);
  proto->set_data_size(manifest.training_tasks);
  proto->set_created(manifest.created);
  proto->set_is_latest(entry.is_latest);
  proto->set_description(manifest.description);
}

void JobSnapshotToProto(const JobSnapshot& job, v1::JobStatus* proto) {
  proto->Clear();
  proto->set_job_id(job.id);
  proto->set_job_key(job.job_key);
  switch (job.state) {
    case JobState::kQueued:
      proto->set_state(v1::QUEUED);
      break;
    case JobState::kRunning:
      proto->set_state(v1::RUNNING);
      break;
    case JobState::kSucceeded:
      proto->set_state(v1::SUCCEEDED);
      break;
    case JobState::kFailed:
      proto->set_state(v1::FAILED);
      break;
    case JobState::kCancelled:
      proto->set_state(v1::CANCELLED);
      break;
  }
  if (job.result != nullptr) {
    *proto->mutable_result()->mutable_plan() = ResultToProto(*job.result);
    proto->mutable_result()->set_cache_hit(job.result->cache_hit);
    proto->mutable_result()->set_job_id(job.id);
  }
  if (!job.error.ok()) {
    const grpc::Status error = ToGrpcStatus(job.error);
    proto->set_error_code(static_cast<int32_t>(error.error_code()));
    proto->set_error_message(error.error_message());
  }
  proto->set_progress(job.progress);
  proto->set_progress_fraction(job.progress_fraction);
  proto->set_submitted_unix_ms(job.submitted_unix_ms);
  proto->set_started_unix_ms(job.started_unix_ms);
  proto->set_finished_unix_ms(job.finished_unix_ms);
}

}  // namespace shardplan
