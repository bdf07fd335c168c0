#include "server/request_proto.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/server/server_test_util.h"
#include "tests/unit/support/proto_fields.h"

namespace shardplan {
namespace {

using server_test::SmallTaskProto;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(PlanningRequestFromProtoTest, CopiesEveryField) {
  v1::PlanRequest proto;
  *proto.mutable_task() = SmallTaskProto(2, 3);
  proto.set_algorithm("random");
  (*proto.mutable_parameters())["respect_memory"] = "false";
  proto.set_seed(42);
  proto.set_model("analytic@1");
  proto.set_bypass_cache(true);

  absl::StatusOr<PlanningRequest> request = PlanningRequestFromProto(proto, TaskLimits{});
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ(request->task.tables.size(), 2u);
  EXPECT_EQ(request->task.topology.num_devices(), 3);
  EXPECT_EQ(request->algorithm, "random");
  EXPECT_EQ(request->params, (std::map<std::string, std::string>{{"respect_memory", "false"}}));
  EXPECT_EQ(request->seed, 42u);
  EXPECT_EQ(request->model, "analytic@1");
  EXPECT_TRUE(request->bypass_cache);
  EXPECT_EQ(request->job_key, "");
}

TEST(PlanningRequestToProtoTest, ReadsBackTheSameRequest) {
  v1::PlanRequest proto;
  *proto.mutable_task() = SmallTaskProto(3, 2);
  proto.set_algorithm("neuroshard");
  (*proto.mutable_parameters())["beam_width"] = "2";
  proto.set_seed(7);
  proto.set_model("analytic");
  proto.set_job_key("ranking/run-1");
  absl::StatusOr<PlanningRequest> request = PlanningRequestFromProto(proto, TaskLimits{});
  ASSERT_TRUE(request.ok()) << request.status();
  absl::StatusOr<PlanningRequest> back =
      PlanningRequestFromProto(PlanningRequestToProto(*request), TaskLimits{});
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->task.tables.size(), 3u);
  EXPECT_EQ(back->task.tables[1].name, "t1");
  EXPECT_EQ(back->task.topology.memory_bytes, request->task.topology.memory_bytes);
  EXPECT_EQ(back->task.batch_size, request->task.batch_size);
  EXPECT_EQ(back->algorithm, "neuroshard");
  EXPECT_EQ(back->params, request->params);
  EXPECT_EQ(back->seed, 7u);
  EXPECT_EQ(back->model, "analytic");
  EXPECT_FALSE(back->bypass_cache);
  EXPECT_EQ(back->job_key, "ranking/run-1");
}

TEST(PlanningRequestFromProtoTest, TaskErrorsPassThrough) {
  v1::PlanRequest proto;
  *proto.mutable_task() = SmallTaskProto(2, 3);
  TaskLimits limits;
  limits.max_tables = 1;
  absl::StatusOr<PlanningRequest> request = PlanningRequestFromProto(proto, limits);
  EXPECT_EQ(request.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(request.status().message()), StartsWith("task.tables: "));
}

// Driven by the proto's descriptor: a PlanRequest field the conversion forgets fails by name.
TEST(PlanningRequestToProtoTest, EveryFieldSurvivesTheDomainAndBack) {
  for (const test_support::FieldPath& path :
       test_support::LeafFields(*v1::PlanRequest::descriptor())) {
    v1::PlanRequest proto;
    *proto.mutable_task() = SmallTaskProto(2, 2);
    test_support::SetNonDefault(proto, path);
    absl::StatusOr<PlanningRequest> request = PlanningRequestFromProto(proto, TaskLimits{});
    ASSERT_TRUE(request.ok()) << path.name << ": " << request.status();
    EXPECT_EQ(test_support::ValueAt(PlanningRequestToProto(*request), path),
              test_support::ValueAt(proto, path))
        << path.name;
  }
}

}  // namespace
}  // namespace shardplan
