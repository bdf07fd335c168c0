#ifndef SHARDPLAN_TESTS_INTEGRATION_SERVER_SERVER_TEST_SUPPORT_H_
#define SHARDPLAN_TESTS_INTEGRATION_SERVER_SERVER_TEST_SUPPORT_H_

// What the shardplan-server integration tests share: a fixture that starts the real binary,
// request builders, and a plain-HTTP scrape of the metrics endpoint.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "shardplan/v1/admin.grpc.pb.h"
#include "shardplan/v1/planner.grpc.pb.h"
#include "tests/integration/support/server_process.h"

namespace shardplan::integration {

// Far beyond what any call here needs; only reached when something is broken.
inline constexpr auto kRpcTimeout = std::chrono::seconds(30);

// `num_tables` small fp32 tables "t00", "t01", ... on `num_devices` devices of 16 GiB.
v1::Task SmallTask(int num_tables = 6, int num_devices = 2);

// SmallTask(6, 2) with the server's default algorithm and model: planned in milliseconds.
v1::PlanRequest QuickRequest(uint64_t seed = 0);

// An exhaustive search over 4^14 placements: many seconds on any machine, polling its stop
// signal all along. Tables are tiny, so every placement fits.
v1::PlanRequest SlowRequest();

// A JobRequest naming job `id`.
v1::JobRequest Job(const std::string& id);

// GET http://127.0.0.1:<port><path>; the body of a 200 response.
absl::StatusOr<std::string> HttpGet(int port, const std::string& path);

// The value of one series in Prometheus text format, e.g.
// `shardplan_rpc_requests_total{code="OK",method="Plan"}`; 0 when absent.
double MetricValue(const std::string& metrics, const std::string& series);

// An open WatchPlan stream and its context (TryCancel ends it from the client's side).
struct Watcher {
  std::unique_ptr<grpc::ClientContext> context;
  std::unique_ptr<grpc::ClientReader<v1::JobStatus>> stream;  // null when never opened
  // The first status it delivered.
  v1::JobStatus first;
};

// A WatchPlan stream on job `id` whose handler runs (its first status arrived). gRPC's threads
// come and go on their own schedule (a poller that just finished a call may still hold its
// quota), so a refusal for want of a thread (RESOURCE_EXHAUSTED) is retried for up to 10 s; any
// other refusal is a test failure. stream is null when no stream opened.
Watcher OpenWatch(v1::PlannerService::Stub& stub, const std::string& id);

class ServerTest : public ::testing::Test {
 protected:
  // Starts shardplan-server with `args` and connects the stub.
  void StartServer(const std::vector<std::string>& args = {});

  // A fresh context with a deadline of `timeout`.
  static std::unique_ptr<grpc::ClientContext> Context(
      std::chrono::milliseconds timeout = kRpcTimeout);

  grpc::Status Plan(const v1::PlanRequest& request, v1::PlanResponse* response);
  v1::JobStatus GetJob(const std::string& id);
  // Polls GetPlan until the job is in `state` (or a generous timeout) and returns it.
  v1::JobStatus AwaitState(const std::string& id, v1::JobState state);
  // Submits `request` and expects success; the job id.
  std::string Submit(const v1::PlanRequest& request);
  // The metrics endpoint's text; "" (and a test failure) when it does not answer.
  std::string Scrape();
  // Polls the metrics until `series` reads `value` (or a generous timeout); its last value.
  double AwaitMetric(const std::string& series, double value);

  testing::ServerProcess server_;
  std::unique_ptr<v1::PlannerService::Stub> stub_;
};

// A server on a models directory of its own (root_, removed afterwards), for model reloads.
class ModelsServerTest : public ServerTest {
 protected:
  ModelsServerTest();
  ~ModelsServerTest() override;

  // Starts the server on root_ with `args` after the models flags (polling off by default).
  void Start(std::vector<std::string> args = {});
  // AdminService/ReloadModels; a test failure when the call fails.
  v1::ReloadModelsResponse Reload();
  // ListModels as "name@version".
  std::vector<std::string> ListedIds();

  const std::string root_;
  std::unique_ptr<v1::AdminService::Stub> admin_;
};

}  // namespace shardplan::integration

#endif  // SHARDPLAN_TESTS_INTEGRATION_SERVER_SERVER_TEST_SUPPORT_H_
