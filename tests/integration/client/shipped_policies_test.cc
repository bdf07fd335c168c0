// The learned planners through the real server with the policies shipped in models/: every one
// plans the examples and its plan records the exact policy version; a new policy version written
// while the server runs is served without a restart, while a job's keyed plan stays pinned to
// the version it was planned with (docs/policies.md).
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "costmodels/artifacts/policy_bundle.h"
#include "gtest/gtest.h"
#include "tests/integration/client/client_test_support.h"

namespace shardplan::testing {
namespace {

namespace fs = std::filesystem;

// Keep in step with the bundles in models/ (docs/policies.md lists them).
const std::vector<std::string>& ShippedPolicies() {
  static const auto* shipped =
      new std::vector<std::string>{"autoshard-sim-rtx2080ti@1", "autoshard-sim-h100-sxm@1",
                                   "dreamshard-sim-rtx2080ti@1", "dreamshard-sim-h100-sxm@1"};
  return *shipped;
}

std::string PolicyOf(const shardplan::v1::Plan& plan) {
  auto it = plan.parameters().find("policy");
  return it == plan.parameters().end() ? "" : it->second;
}

class ShippedPoliciesTest : public ServerClientTest {
 protected:
  static void SetUpTestSuite() {
    StartServer({"--models_dir", SHARDPLAN_MODELS_DIR, "--model_reload_interval_s=0"});
  }
};

TEST_F(ShippedPoliciesTest, EveryPolicyPlansTheExamplesAndThePlanRecordsIt) {
  for (const std::string example : {"task_4dev.json", "task_8dev.json"}) {
    const shardplan::v1::Task task = ExampleTask(example);
    for (const std::string& id : ShippedPolicies()) {
      SCOPED_TRACE(absl::StrCat(example, " with ", id));
      const std::string algorithm = id.substr(0, id.find('-'));
      const std::string profile =
          id.substr(algorithm.size() + 1, id.find('@') - algorithm.size() - 1);
      shardplan::v1::PlanRequest request;
      *request.mutable_task() = task;
      request.set_algorithm(algorithm);
      request.set_model(profile);  // the default policy: the newest trained on its profile
      auto response = client_->Plan(request);
      ASSERT_TRUE(response.ok()) << response.status();
      const shardplan::v1::Plan& plan = response->plan();
      EXPECT_EQ(plan.algorithm(), algorithm);
      EXPECT_EQ(PolicyOf(plan), id);
      EXPECT_EQ(plan.tables_size(), task.tables_size());
      EXPECT_GT(plan.cost_ms(), 0.0);
      // Named exactly, the same policy gives the same plan.
      (*request.mutable_parameters())["policy"] = id;
      auto named = client_->Plan(request);
      ASSERT_TRUE(named.ok()) << named.status();
      EXPECT_EQ(named->plan().tables_size(), plan.tables_size());
      for (int t = 0; t < plan.tables_size(); ++t) {
        EXPECT_EQ(named->plan().tables(t).shards(0).device(), plan.tables(t).shards(0).device());
      }
    }
  }
}

TEST_F(ShippedPoliciesTest, AnUnknownPolicyIsRefusedNamingTheParameter) {
  shardplan::v1::PlanRequest request;
  *request.mutable_task() = ExampleTask("task_4dev.json");
  request.set_algorithm("autoshard");
  (*request.mutable_parameters())["policy"] = "autoshard-sim-rtx2080ti@99";
  auto response = client_->Plan(request);
  ASSERT_FALSE(response.ok());
  EXPECT_NE(response.status().message().find("parameters.policy"), std::string::npos)
      << response.status();
  (*request.mutable_parameters())["policy"] = "dreamshard-sim-rtx2080ti@1";
  response = client_->Plan(request);
  ASSERT_FALSE(response.ok());
  EXPECT_NE(response.status().message().find("parameters.policy"), std::string::npos)
      << response.status();
}

// A server of its own on a copy of models/, where the test writes version 2 of a policy.
class PolicyHotReloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = ::testing::TempDir() + "/policy_hot_reload_models";
    fs::remove_all(root_);
    fs::copy(SHARDPLAN_MODELS_DIR, root_, fs::copy_options::recursive);
    ASSERT_TRUE(server_.Start({"--models_dir", root_, "--model_reload_interval_s=0"}).ok());
    client::ClientOptions options;
    options.default_timeout = absl::Seconds(20);
    auto client = client::PlannerClient::Connect(server_.target(), options);
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
  }
  void TearDown() override { fs::remove_all(root_); }

  // Version 2 of `name`: version 1's weights with one bias moved, so it may place differently
  // and its content differs whatever it places.
  void WriteVersion2(const std::string& name) {
    auto v1 = ReadPolicyBundle(root_ + "/" + name + "/1");
    ASSERT_TRUE(v1.ok()) << v1.status();
    Policy v2 = *v1->policy;
    v2.version = "2";
    for (auto& [tensor_name, tensor] : v2.tensors) {
      if (tensor_name.ends_with(".bias")) {
        tensor.data[0] += 0.5f;
        break;
      }
    }
    PolicyBundleInfo info = v1->info;
    info.created.clear();  // now: newer than version 1
    info.description = "version 2, written by the test";
    ASSERT_TRUE(WritePolicyBundle(root_, info, v2).ok());
  }

  ServerProcess server_;
  std::string root_;
  std::unique_ptr<client::PlannerClient> client_;
};

TEST_F(PolicyHotReloadTest, ANewVersionServesWithoutARestartAndKeyedPlansStayPinned) {
  shardplan::v1::PlanRequest request;
  *request.mutable_task() = ExampleTask("task_8dev.json");
  request.set_algorithm("autoshard");
  request.set_model("sim-rtx2080ti");
  shardplan::v1::PlanRequest keyed = request;
  keyed.set_job_key("training-job-7");
  auto first = client_->Plan(keyed);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(PolicyOf(first->plan()), "autoshard-sim-rtx2080ti@1");

  WriteVersion2("autoshard-sim-rtx2080ti");
  auto reloaded = client_->ReloadModels();
  ASSERT_TRUE(reloaded.ok()) << reloaded.status();

  // A new request gets the new version: a new plan, not the cached one of version 1.
  auto fresh = client_->Plan(request);
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  EXPECT_EQ(PolicyOf(fresh->plan()), "autoshard-sim-rtx2080ti@2");
  EXPECT_FALSE(fresh->cache_hit());
  // The job resuming with its key gets the plan it had, of version 1.
  auto resumed = client_->Plan(keyed);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_TRUE(resumed->from_store());
  EXPECT_EQ(PolicyOf(resumed->plan()), "autoshard-sim-rtx2080ti@1");
  // Pinned by name, version 1 still serves.
  (*request.mutable_parameters())["policy"] = "autoshard-sim-rtx2080ti@1";
  auto pinned = client_->Plan(request);
  ASSERT_TRUE(pinned.ok()) << pinned.status();
  EXPECT_EQ(PolicyOf(pinned->plan()), "autoshard-sim-rtx2080ti@1");
}

}  // namespace
}  // namespace shardplan::testing
