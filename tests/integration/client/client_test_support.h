#ifndef SHARDPLAN_TESTS_INTEGRATION_CLIENT_CLIENT_TEST_SUPPORT_H_
#define SHARDPLAN_TESTS_INTEGRATION_CLIENT_CLIENT_TEST_SUPPORT_H_

// What the client suites that talk to a real server share: example and synthetic tasks, and a
// fixture with one server per test suite and a fresh client per test.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "client/shardplan_client.h"
#include "gtest/gtest.h"
#include "shardplan/v1/planner.pb.h"
#include "tests/integration/support/server_process.h"

namespace shardplan::testing {

// examples/<name> parsed as a Task; fails the test (and returns an empty task) if it cannot.
shardplan::v1::Task ExampleTask(const std::string& name);

// `num_tables` small tables on `num_devices` devices of 16 GiB: trivially feasible, and with
// `exhaustive` and a high max_placements a search of num_devices^num_tables placements that
// runs for many seconds (for cancel and deadline tests).
shardplan::v1::Task SmallTask(int num_tables, int num_devices);

// A PlanRequest for exhaustive search over SmallTask(14, 4): 4^14 = 2.7e8 placements.
shardplan::v1::PlanRequest SlowRequest();

// One shardplan-server for the whole suite; client_ is connected to it before every test, with a
// 20 s call deadline and a 30 s watch deadline (a hung job fails its test, not the suite).
// A suite that needs server flags defines its own SetUpTestSuite calling StartServer(flags).
class ServerClientTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { StartServer({}); }
  static void StartServer(const std::vector<std::string>& flags) {
    server_ = new ServerProcess();
    const absl::Status started = server_->Start(flags);
    ASSERT_TRUE(started.ok()) << started;
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  void SetUp() override {
    ASSERT_NE(server_, nullptr);
    ASSERT_TRUE(server_->running());
    client::ClientOptions options;
    options.default_timeout = absl::Seconds(20);
    options.watch_timeout = absl::Seconds(30);
    auto client = client::PlannerClient::Connect(server_->target(), options);
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
  }

  inline static ServerProcess* server_ = nullptr;
  std::unique_ptr<client::PlannerClient> client_;
};

}  // namespace shardplan::testing

#endif  // SHARDPLAN_TESTS_INTEGRATION_CLIENT_CLIENT_TEST_SUPPORT_H_
