// health_address: the plaintext, health-only gRPC port for Kubernetes' native gRPC probes.
#include <signal.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "reflection_v1alpha.grpc.pb.h"
#include "tests/integration/server/server_test_support.h"

namespace shardplan::integration {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kServing = 1;
constexpr int kNotServing = 2;
constexpr char kPlannerService[] = "shardplan.v1.PlannerService";

// Polls health over `channel` until it reports `status` or a generous timeout passes; the last
// answer (a status number, or the RPC's error).
absl::StatusOr<int> AwaitHealth(const std::shared_ptr<grpc::Channel>& channel,
                                const std::string& service, int status) {
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  absl::StatusOr<int> health = testing::CheckHealth(channel, service);
  while (Clock::now() < deadline && !(health.ok() && *health == status)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    health = testing::CheckHealth(channel, service);
  }
  return health;
}

class HealthPortTest : public ServerTest {};

TEST_F(HealthPortTest, OffByDefault) {
  StartServer();
  EXPECT_EQ(server_.health_port(), 0);
}

TEST_F(HealthPortTest, BothPortsReportServing) {
  StartServer({"--health_address=127.0.0.1:0"});
  ASSERT_NE(server_.health_port(), 0);
  EXPECT_NE(server_.health_port(), server_.grpc_port());
  for (const std::string service : {"", kPlannerService}) {
    absl::StatusOr<int> main_port = testing::CheckHealth(server_.Channel(), service);
    absl::StatusOr<int> health_port = testing::CheckHealth(server_.HealthChannel(), service);
    ASSERT_TRUE(main_port.ok()) << main_port.status();
    ASSERT_TRUE(health_port.ok()) << health_port.status();
    EXPECT_EQ(*main_port, kServing) << "service \"" << service << "\"";
    EXPECT_EQ(*health_port, kServing) << "service \"" << service << "\"";
  }
}

TEST_F(HealthPortTest, ServesNothingButHealth) {
  StartServer({"--health_address=127.0.0.1:0"});
  auto planner = v1::PlannerService::NewStub(server_.HealthChannel());
  v1::ListAlgorithmsResponse algorithms;
  grpc::Status listed =
      planner->ListAlgorithms(Context().get(), v1::ListAlgorithmsRequest(), &algorithms);
  EXPECT_EQ(listed.error_code(), grpc::StatusCode::UNIMPLEMENTED) << listed.error_message();
  v1::PlanResponse planned;
  grpc::Status plan = planner->Plan(Context().get(), QuickRequest(), &planned);
  EXPECT_EQ(plan.error_code(), grpc::StatusCode::UNIMPLEMENTED) << plan.error_message();

  // Server reflection is a process-wide plugin; the health port must not pick it up.
  auto reflection = ::grpc::reflection::v1alpha::ServerReflection::NewStub(server_.HealthChannel());
  std::unique_ptr<grpc::ClientContext> context = Context();
  auto stream = reflection->ServerReflectionInfo(context.get());
  ::grpc::reflection::v1alpha::ServerReflectionRequest request;
  request.set_list_services("");
  stream->Write(request);
  stream->WritesDone();
  ::grpc::reflection::v1alpha::ServerReflectionResponse response;
  while (stream->Read(&response)) {
  }
  EXPECT_EQ(stream->Finish().error_code(), grpc::StatusCode::UNIMPLEMENTED);

  // The main port still serves PlannerService.
  EXPECT_TRUE(
      stub_->ListAlgorithms(Context().get(), v1::ListAlgorithmsRequest(), &algorithms).ok());
}

TEST_F(HealthPortTest, BothPortsTurnNotServingWhileDraining) {
  StartServer({"--health_address=127.0.0.1:0", "--drain_timeout_s=120", "--workers=1"});
  // A job that would run for a long time keeps the drain going until the test cancels it, so
  // the NOT_SERVING window does not depend on the machine's speed.
  const std::string id = Submit(SlowRequest());
  AwaitState(id, v1::RUNNING);

  ASSERT_TRUE(server_.Signal(SIGTERM).ok());
  for (const std::string service : {"", kPlannerService}) {
    absl::StatusOr<int> main_port = AwaitHealth(server_.Channel(), service, kNotServing);
    absl::StatusOr<int> health_port = AwaitHealth(server_.HealthChannel(), service, kNotServing);
    ASSERT_TRUE(main_port.ok()) << main_port.status() << "\n" << server_.log();
    ASSERT_TRUE(health_port.ok()) << health_port.status() << "\n" << server_.log();
    EXPECT_EQ(*main_port, kNotServing) << "service \"" << service << "\"";
    EXPECT_EQ(*health_port, kNotServing) << "service \"" << service << "\"";
  }
  EXPECT_EQ(GetJob(id).state(), v1::RUNNING);  // still draining

  v1::JobStatus cancelled;
  ASSERT_TRUE(stub_->CancelPlan(Context().get(), Job(id), &cancelled).ok());
  absl::StatusOr<int> code = server_.WaitForExit(std::chrono::seconds(60));
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0) << server_.log();
}

}  // namespace
}  // namespace shardplan::integration
