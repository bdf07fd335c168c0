// Trained policies end to end (docs/policies.md): the real server loads a shipped DreamShard
// policy bundle from its models directory, lists it, plans with it, records the exact version,
// picks up a new version on ReloadModels (keyless requests move to it, a job key keeps its
// plan) and drops a version whose directory is gone.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/server/server_test_support.h"

namespace shardplan::integration {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kPolicy[] = "dreamshard-sim-rtx2080ti";

class PolicyReloadTest : public ModelsServerTest {
 protected:
  // Publishes the shipped policy's version 1 as `version` of root_ (the same weights; the
  // manifest names the version and, when given, another creation time).
  void Publish(const std::string& version, const std::string& created = "") {
    const fs::path from = fs::path(SHARDPLAN_MODELS_DIR) / kPolicy / "1";
    const fs::path staging = fs::path(root_) / kPolicy / ("." + version + ".tmp");
    fs::create_directories(staging.parent_path());
    fs::copy(from, staging, fs::copy_options::recursive);
    std::ifstream in(staging / "manifest.json");
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::json manifest = nlohmann::json::parse(text.str());
    manifest["version"] = version;
    if (!created.empty()) manifest["created"] = created;
    std::ofstream(staging / "manifest.json", std::ios::trunc) << manifest.dump(2) << "\n";
    fs::rename(staging, fs::path(root_) / kPolicy / version);  // as the writer does: atomically
  }

  static v1::PlanRequest DreamShardRequest(const std::string& job_key = "") {
    v1::PlanRequest request;
    *request.mutable_task() = SmallTask(8, 4);
    request.set_algorithm("dreamshard");
    request.set_job_key(job_key);
    return request;
  }

  v1::PlanResponse PlanOk(const v1::PlanRequest& request) {
    v1::PlanResponse response;
    grpc::Status status = Plan(request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }
};

TEST_F(PolicyReloadTest, ServesListsPinsAndReloadsAPolicy) {
  Publish("1");
  Start();

  v1::ListModelsResponse list;
  ASSERT_TRUE(stub_->ListModels(Context().get(), v1::ListModelsRequest(), &list).ok());
  ASSERT_EQ(list.models_size(), 2);  // analytic@1, the policy
  const v1::ModelInfo& policy = list.models(1);
  EXPECT_EQ(policy.name(), kPolicy);
  EXPECT_EQ(policy.kind(), "policy");
  EXPECT_EQ(policy.algorithm(), "dreamshard");
  EXPECT_EQ(policy.hardware_profile(), "sim-rtx2080ti");
  EXPECT_GT(policy.data_size(), 0);
  EXPECT_TRUE(policy.is_latest());
  EXPECT_FALSE(policy.is_default());
  EXPECT_EQ(MetricValue(Scrape(), "shardplan_policies_loaded"), 1);

  const v1::PlanResponse keyed = PlanOk(DreamShardRequest("train/run-1"));
  EXPECT_EQ(keyed.plan().parameters().at("policy"), "dreamshard-sim-rtx2080ti@1");
  EXPECT_THAT(keyed.plan().selection(), HasSubstr("policy: dreamshard-sim-rtx2080ti@1"));
  const v1::PlanResponse keyless = PlanOk(DreamShardRequest());
  EXPECT_EQ(keyless.plan().parameters().at("policy"), "dreamshard-sim-rtx2080ti@1");

  // A new version: keyless requests move to it, the job key keeps its plan.
  // Newer than version 1 (a bundle may not claim a future time).
  Publish("2", absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone()));
  v1::ReloadModelsResponse reload = Reload();
  EXPECT_THAT(reload.policies_loaded(), ElementsAre("dreamshard-sim-rtx2080ti@2"));
  EXPECT_THAT(reload.policies_unchanged(), ElementsAre("dreamshard-sim-rtx2080ti@1"));
  EXPECT_EQ(reload.refused_size(), 0);
  const v1::PlanResponse moved = PlanOk(DreamShardRequest());
  EXPECT_EQ(moved.plan().parameters().at("policy"), "dreamshard-sim-rtx2080ti@2");
  EXPECT_FALSE(moved.cache_hit());
  EXPECT_NE(moved.plan().request_hash(), keyless.plan().request_hash());
  const v1::PlanResponse pinned = PlanOk(DreamShardRequest("train/run-1"));
  EXPECT_TRUE(pinned.from_store());
  EXPECT_EQ(pinned.plan().parameters().at("policy"), "dreamshard-sim-rtx2080ti@1");
  EXPECT_EQ(pinned.plan().request_hash(), keyed.plan().request_hash());
  v1::PlanRequest exact = DreamShardRequest();
  (*exact.mutable_parameters())["policy"] = "dreamshard-sim-rtx2080ti@1";
  EXPECT_EQ(PlanOk(exact).plan().parameters().at("policy"), "dreamshard-sim-rtx2080ti@1");

  // Its directory gone: dropped; a request naming it is told what is loaded.
  fs::remove_all(fs::path(root_) / kPolicy / "2");
  reload = Reload();
  EXPECT_THAT(reload.policies_removed(), ElementsAre("dreamshard-sim-rtx2080ti@2"));
  v1::PlanRequest gone = DreamShardRequest();
  (*gone.mutable_parameters())["policy"] = "dreamshard-sim-rtx2080ti@2";
  v1::PlanResponse response;
  grpc::Status status = Plan(gone, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("parameters.policy"));
  EXPECT_EQ(MetricValue(Scrape(), "shardplan_policies_loaded"), 1);
}

TEST_F(PolicyReloadTest, WithoutAPolicyTheAlgorithmIsAPreconditionError) {
  Start();
  v1::PlanResponse response;
  grpc::Status status = Plan(DreamShardRequest(), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(),
              HasSubstr("parameters.policy: no policy of algorithm dreamshard is loaded"));
}

}  // namespace
}  // namespace shardplan::integration
