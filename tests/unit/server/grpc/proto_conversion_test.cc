#include "server/grpc/proto_conversion.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/server/server_test_util.h"

namespace shardplan {
namespace {

using server_test::kGiB;
using server_test::SmallTaskProto;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(AlgorithmInfoToProtoTest, FormatsBoundsByType) {
  AlgorithmInfo info;
  info.name = "exhaustive";
  info.params.push_back(
      ParamSpec{"max_placements", ParamType::kInt, "1000000", "d", 1.0, 100000000.0});
  info.params.push_back(ParamSpec{"alpha", ParamType::kDouble, "0.5", "d", 0.1, std::nullopt});
  info.sharding_types = {ShardingType::kTableWise};
  v1::AlgorithmInfo proto;
  AlgorithmInfoToProto(info, true, &proto);
  EXPECT_EQ(proto.parameters(0).type(), "int");
  EXPECT_EQ(proto.parameters(0).min_value(), "1");
  EXPECT_EQ(proto.parameters(0).max_value(), "100000000");
  EXPECT_EQ(proto.parameters(1).type(), "double");
  EXPECT_EQ(proto.parameters(1).min_value(), "0.1");
  EXPECT_EQ(proto.parameters(1).max_value(), "");
  EXPECT_TRUE(proto.is_default());
  EXPECT_EQ(proto.sharding_types(0), v1::TABLE_WISE);
}

// Every ModelInfo field is filled by the conversion of a cost model or of a policy (a field
// added to the proto fails here by name until one of them carries it).
TEST(ModelInfoConversionTest, EveryFieldIsCarriedForModelsOrPolicies) {
  ModelRegistry::Entry model;
  model.manifest = ModelManifest{.name = "m",
                                 .version = "2",
                                 .kind = "neural",
                                 .hardware_profile = "sim-rtx2080ti",
                                 .backend = "sim",
                                 .data_size = 100,
                                 .test_mse = {{"compute", 0.5}},
                                 .created = "2026-11-26T00:00:00Z",
                                 .device_counts = {4},
                                 .costs_interconnect = true,
                                 .description = "a model",
                                 .content_sha256 = "abc"};
  model.is_default = true;
  model.is_latest = true;
  PolicyRegistry::Entry policy;
  policy.manifest.name = "p";
  policy.manifest.version = "1";
  policy.manifest.algorithm = "autoshard";
  policy.manifest.architecture = "autoshard-1";
  policy.manifest.hardware_profile = "sim-rtx2080ti";
  policy.manifest.created = "2026-11-26T01:00:00Z";
  policy.manifest.description = "a policy";
  policy.manifest.training_tasks = 40;
  policy.is_latest = true;
  v1::ModelInfo model_proto, policy_proto;
  ModelEntryToProto(model, &model_proto);
  PolicyEntryToProto(policy, &policy_proto);
  EXPECT_EQ(policy_proto.kind(), "policy");
  EXPECT_EQ(policy_proto.algorithm(), "autoshard");
  EXPECT_EQ(policy_proto.data_size(), 40);
  EXPECT_FALSE(policy_proto.is_default());
  EXPECT_TRUE(model_proto.algorithm().empty());
  const google::protobuf::Descriptor& descriptor = *v1::ModelInfo::descriptor();
  for (int i = 0; i < descriptor.field_count(); ++i) {
    const google::protobuf::FieldDescriptor* field = descriptor.field(i);
    auto set = [field](const v1::ModelInfo& proto) {
      const google::protobuf::Reflection& reflection = *proto.GetReflection();
      return field->is_repeated() ? reflection.FieldSize(proto, field) > 0
                                  : reflection.HasField(proto, field);
    };
    EXPECT_TRUE(set(model_proto) || set(policy_proto)) << field->name();
  }
}

TEST(JobSnapshotToProtoTest, CarriesStateErrorAndTimes) {
  JobSnapshot job;
  job.id = "abc";
  job.state = JobState::kFailed;
  job.error = absl::FailedPreconditionError("table t1 fits nowhere");
  job.progress = "failed";
  job.submitted_unix_ms = 1;
  job.started_unix_ms = 2;
  job.finished_unix_ms = 3;
  v1::JobStatus proto;
  JobSnapshotToProto(job, &proto);
  EXPECT_EQ(proto.job_id(), "abc");
  EXPECT_EQ(proto.state(), v1::FAILED);
  EXPECT_EQ(proto.error_code(), static_cast<int>(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(proto.error_message(), HasSubstr("t1"));
  EXPECT_FALSE(proto.has_result());
  EXPECT_EQ(proto.finished_unix_ms(), 3);

  JobSnapshot done;
  done.state = JobState::kSucceeded;
  auto result = std::make_shared<PlanningResult>();
  result->plan.algorithm = "x";
  result->cache_hit = true;
  done.result = result;
  JobSnapshotToProto(done, &proto);
  EXPECT_EQ(proto.state(), v1::SUCCEEDED);
  EXPECT_EQ(proto.result().plan().algorithm(), "x");
  EXPECT_TRUE(proto.result().cache_hit());
}

}  // namespace
}  // namespace shardplan
