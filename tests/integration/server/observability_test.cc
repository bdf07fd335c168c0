// Health, reflection and the Prometheus endpoint of the real server.
#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "reflection_v1alpha.grpc.pb.h"
#include "tests/integration/server/server_test_support.h"

namespace shardplan::integration {
namespace {

using ::testing::HasSubstr;
namespace reflection = ::grpc::reflection::v1alpha;

class ObservabilityTest : public ServerTest {
 protected:
  void SetUp() override { StartServer(); }
};

TEST_F(ObservabilityTest, HealthIsServing) {
  absl::StatusOr<int> overall = testing::CheckHealth(server_.Channel(), "");
  ASSERT_TRUE(overall.ok()) << overall.status();
  EXPECT_EQ(*overall, 1);  // SERVING
  absl::StatusOr<int> service =
      testing::CheckHealth(server_.Channel(), "shardplan.v1.PlannerService");
  ASSERT_TRUE(service.ok()) << service.status();
  EXPECT_EQ(*service, 1);
}

TEST_F(ObservabilityTest, ReflectionListsAndDescribesThePlannerService) {
  auto stub = reflection::ServerReflection::NewStub(server_.Channel());
  auto context = Context();
  auto stream = stub->ServerReflectionInfo(context.get());

  reflection::ServerReflectionRequest list;
  list.set_list_services("");
  ASSERT_TRUE(stream->Write(list));
  reflection::ServerReflectionResponse response;
  ASSERT_TRUE(stream->Read(&response));
  std::set<std::string> services;
  for (const auto& service : response.list_services_response().service()) {
    services.insert(service.name());
  }
  EXPECT_TRUE(services.contains("shardplan.v1.PlannerService"));
  EXPECT_TRUE(services.contains("grpc.health.v1.Health"));

  reflection::ServerReflectionRequest describe;
  describe.set_file_containing_symbol("shardplan.v1.PlannerService");
  ASSERT_TRUE(stream->Write(describe));
  ASSERT_TRUE(stream->Read(&response));
  EXPECT_GE(response.file_descriptor_response().file_descriptor_proto_size(), 1);
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
}

TEST_F(ObservabilityTest, MetricsMoveWithTraffic) {
  const std::string before = Scrape();
  EXPECT_THAT(before, HasSubstr("shardplan_models_loaded 1"));
  EXPECT_THAT(before, HasSubstr("shardplan_job_queue_depth 0"));

  v1::PlanRequest request;
  *request.mutable_task() = SmallTask();
  v1::PlanResponse response;
  ASSERT_TRUE(Plan(request, &response).ok());
  ASSERT_TRUE(Plan(request, &response).ok());  // a cache hit
  request.set_algorithm("nope");
  ASSERT_FALSE(Plan(request, &response).ok());

  const std::string after = Scrape();
  EXPECT_EQ(MetricValue(after, R"(shardplan_rpc_requests_total{code="OK",method="Plan"})"), 2);
  EXPECT_EQ(
      MetricValue(after, R"(shardplan_rpc_requests_total{code="INVALID_ARGUMENT",method="Plan"})"),
      1);
  EXPECT_EQ(MetricValue(after, R"(shardplan_rpc_duration_seconds_count{method="Plan"})"), 3);
  EXPECT_EQ(MetricValue(after, R"(shardplan_plans_total{algorithm="neuroshard"})"), 1);
  EXPECT_EQ(
      MetricValue(after, R"(shardplan_planning_duration_seconds_count{algorithm="neuroshard"})"),
      1);
  EXPECT_EQ(MetricValue(after, "shardplan_plan_cache_hits_total"), 1);
  EXPECT_EQ(MetricValue(after, "shardplan_plan_cache_misses_total"), 1);
  EXPECT_EQ(MetricValue(after, "shardplan_plan_cache_entries"), 1);
  EXPECT_GT(MetricValue(after, "shardplan_plan_cache_bytes"), 0);

  v1::PlanRequest job;
  *job.mutable_task() = SmallTask(4, 2);
  const std::string id = Submit(job);
  AwaitState(id, v1::SUCCEEDED);
  const std::string jobs = Scrape();
  EXPECT_EQ(MetricValue(jobs, R"(shardplan_jobs_finished_total{state="SUCCEEDED"})"), 1);
  EXPECT_EQ(MetricValue(jobs, "shardplan_jobs_in_flight"), 0);
}

}  // namespace
}  // namespace shardplan::integration
