// Model bundles end to end: the real server loads a models directory, serves name@version and
// name (latest), records the exact version in every plan, and picks up new, corrupt and removed
// bundles through AdminService/ReloadModels and through its poll, also under load.
#include <atomic>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "shardplan/v1/admin.grpc.pb.h"
#include "tests/integration/server/server_test_support.h"
#include "tests/integration/support/test_bundles.h"

namespace shardplan::integration {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing_bundles::OverwriteBundleFile;
using testing_bundles::WriteTinyBundle;

class ModelReloadTest : public ModelsServerTest {
 protected:
  // The cost_model the plan of a quick request under `model` records; "" on failure.
  std::string PlannedWith(const std::string& model, uint64_t seed = 0) {
    v1::PlanRequest request = QuickRequest(seed);
    request.set_model(model);
    v1::PlanResponse response;
    grpc::Status status = Plan(request, &response);
    EXPECT_TRUE(status.ok()) << model << ": " << status.error_message();
    return response.plan().cost_model();
  }
};

TEST_F(ModelReloadTest, ServesEveryVersionAndListsTheirManifests) {
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "1").ok());
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "2", /*seed=*/2).ok());
  Start();

  v1::ListModelsResponse list;
  ASSERT_TRUE(stub_->ListModels(Context().get(), v1::ListModelsRequest(), &list).ok());
  ASSERT_EQ(list.models_size(), 3);  // analytic@1, tiny@1, tiny@2
  const v1::ModelInfo& latest = list.models(2);
  EXPECT_EQ(latest.name(), "tiny");
  EXPECT_EQ(latest.version(), "2");
  EXPECT_EQ(latest.kind(), "neural");
  EXPECT_EQ(latest.hardware_profile(), "test-profile");
  EXPECT_EQ(latest.backend(), "sim");
  EXPECT_EQ(latest.data_size(), 1234);
  EXPECT_EQ(latest.test_mse().at("compute"), 0.25);
  EXPECT_FALSE(latest.created().empty());
  EXPECT_TRUE(latest.is_latest());
  EXPECT_FALSE(latest.is_default());
  EXPECT_FALSE(list.models(1).is_latest());
  EXPECT_TRUE(list.models(0).is_default());  // analytic stays the default

  EXPECT_EQ(PlannedWith("tiny@1"), "tiny@1");
  EXPECT_EQ(PlannedWith("tiny"), "tiny@2");  // the exact version, not the spec
  EXPECT_EQ(PlannedWith(""), "analytic@1");

  const std::string metrics = Scrape();
  EXPECT_EQ(MetricValue(metrics, "shardplan_models_loaded"), 3);
  EXPECT_THAT(metrics, HasSubstr(R"(name="tiny",version="2")"));
}

TEST_F(ModelReloadTest, DefaultModelMayNameABundle) {
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "1").ok());
  Start({"--default_model=tiny"});
  EXPECT_EQ(PlannedWith(""), "tiny@1");
}

TEST_F(ModelReloadTest, ReloadModelsServesANewVersion) {
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "1").ok());
  Start();
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "2", /*seed=*/2).ok());
  EXPECT_THAT(ListedIds(), ElementsAre("analytic@1", "tiny@1"));  // no poll

  v1::ReloadModelsResponse report = Reload();
  EXPECT_THAT(report.loaded(), ElementsAre("tiny@2"));
  EXPECT_THAT(report.unchanged(), ElementsAre("tiny@1"));
  EXPECT_EQ(report.refused_size(), 0) << report.refused(0).reason();
  EXPECT_EQ(PlannedWith("tiny"), "tiny@2");
  EXPECT_EQ(PlannedWith("tiny@1"), "tiny@1");

  fs::remove_all(root_ + "/tiny/2");
  report = Reload();
  EXPECT_THAT(report.removed(), ElementsAre("tiny@2"));
  EXPECT_EQ(PlannedWith("tiny"), "tiny@1");
  EXPECT_THAT(std::string(Scrape()), HasSubstr(R"(shardplan_model_reloads_total{result="ok"})"));
}

TEST_F(ModelReloadTest, PollingServesANewVersion) {
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "1").ok());
  Start({"--model_reload_interval_s=1"});
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "2", /*seed=*/2).ok());
  // Waits for a poll by watching ListModels; the bound only stops a broken server's test.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::vector<std::string> ids = ListedIds();
  while (ids.size() < 3 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ids = ListedIds();
  }
  EXPECT_THAT(ids, ElementsAre("analytic@1", "tiny@1", "tiny@2"));
  EXPECT_EQ(PlannedWith("tiny"), "tiny@2");
}

TEST_F(ModelReloadTest, ACorruptBundleIsRefusedAndOlderVersionsKeepServing) {
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "1").ok());
  Start();
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "2").ok());
  ASSERT_TRUE(OverwriteBundleFile(root_, "tiny", "2", "compute.weights", "garbage").ok());

  v1::ReloadModelsResponse report = Reload();
  EXPECT_THAT(report.loaded(), IsEmpty());
  ASSERT_EQ(report.refused_size(), 1);
  EXPECT_EQ(fs::path(report.refused(0).directory()), fs::path(root_) / "tiny" / "2");
  EXPECT_THAT(report.refused(0).reason(), HasSubstr("compute.weights"));
  EXPECT_EQ(AwaitMetric(R"(shardplan_model_load_failures_total{reason="size"})", 1), 1);
  EXPECT_EQ(MetricValue(Scrape(), "shardplan_models_refused"), 1);
  EXPECT_EQ(PlannedWith("tiny"), "tiny@1");

  v1::PlanRequest request = QuickRequest();
  request.set_model("tiny@2");
  v1::PlanResponse response;
  grpc::Status status = Plan(request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("tiny"));
}

TEST_F(ModelReloadTest, ACorruptBundleDoesNotStopTheStart) {
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "1").ok());
  ASSERT_TRUE(OverwriteBundleFile(root_, "tiny", "1", "manifest.json", "{").ok());
  Start();
  EXPECT_THAT(ListedIds(), ElementsAre("analytic@1"));
  EXPECT_THAT(server_.log(), HasSubstr("manifest.json"));
  EXPECT_EQ(PlannedWith(""), "analytic@1");
}

TEST_F(ModelReloadTest, WithoutAModelsDirReloadIsAPreconditionError) {
  StartServer({"--models_dir="});
  admin_ = v1::AdminService::NewStub(server_.Channel());
  v1::ReloadModelsResponse response;
  grpc::Status status = admin_->ReloadModels(Context().get(), v1::ReloadModelsRequest(), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("models_dir"));
  EXPECT_EQ(PlannedWith(""), "analytic@1");
}

// Clients plan continuously with "tiny" and "tiny@1" while versions are added, reloaded and
// removed: no request fails, and every plan records a version that existed when it ran.
TEST_F(ModelReloadTest, HotReloadUnderConcurrentRequests) {
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "1").ok());
  Start({"--model_reload_interval_s=0.05"});  // the poll races the explicit reloads too
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0}, plans{0};
  std::mutex seen_mu;
  std::set<std::string> seen;
  std::vector<std::string> errors;
  std::vector<std::thread> clients;
  for (int c = 0; c < 4; ++c) {
    clients.emplace_back([&, c] {
      auto stub = v1::PlannerService::NewStub(server_.Channel());
      for (uint64_t i = 0; !stop; ++i) {
        v1::PlanRequest request = QuickRequest(/*seed=*/i * 4 + c);  // mostly cache misses
        const bool pinned = (i + c) % 2 == 0;
        request.set_model(pinned ? "tiny@1" : "tiny");
        v1::PlanResponse response;
        grpc::Status status = stub->Plan(Context().get(), request, &response);
        std::lock_guard<std::mutex> lock(seen_mu);
        if (!status.ok() || (pinned && response.plan().cost_model() != "tiny@1")) {
          ++failures;
          errors.push_back(status.ok() ? response.plan().cost_model() : status.error_message());
          continue;
        }
        ++plans;
        seen.insert(response.plan().cost_model());
      }
    });
  }
  for (int v = 2; v <= 8; ++v) {
    ASSERT_TRUE(WriteTinyBundle(root_, "tiny", std::to_string(v), v).ok());
    v1::ReloadModelsResponse report = Reload();
    EXPECT_EQ(report.refused_size(), 0) << report.refused(0).reason();
    if (v >= 4) fs::remove_all(root_ + "/tiny/" + std::to_string(v - 2));  // removal too
    Reload();
  }
  // Some planning after the last change as well.
  const int before = plans;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (plans < before + 20 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stop = true;
  for (std::thread& client : clients) client.join();

  EXPECT_EQ(failures, 0) << (errors.empty() ? "" : errors[0]);
  EXPECT_GT(plans, 20);
  for (const std::string& id : seen) {
    EXPECT_TRUE(id == "tiny@1" || (id.rfind("tiny@", 0) == 0 && std::stoi(id.substr(5)) <= 8))
        << id;
  }
  EXPECT_EQ(PlannedWith("tiny"), "tiny@8");
  EXPECT_THAT(ListedIds(), ElementsAre("analytic@1", "tiny@1", "tiny@7", "tiny@8"));
}

}  // namespace
}  // namespace shardplan::integration
