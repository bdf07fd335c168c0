// Model hot reload while clients plan: the clients use the default model and a bundle that
// stays ("stable"), while the versions of another bundle ("churn") are added, replaced in place,
// corrupted and removed, and ReloadModels runs from the test and from a thread of its own at the
// same time. No client request fails, and every change is in effect once its reload returned.
// (model_reload_test.cc covers the reload of the model the clients use themselves.)
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
using ::testing::Contains;
using ::testing::Not;
using ::testing::UnorderedElementsAre;
using testing_bundles::FreshTempDir;
using testing_bundles::OverwriteBundleFile;
using testing_bundles::WriteTinyBundle;

class HotReloadTest : public ModelsServerTest {
 protected:
  // Plans a quick request under `model`.
  grpc::Status PlanWith(const std::string& model, v1::PlanResponse* response) {
    v1::PlanRequest request = QuickRequest();
    request.set_model(model);
    return Plan(request, response);
  }

  std::string Version(int v) const { return std::to_string(v); }
  std::string Directory(int v) const { return absl::StrCat(root_, "/churn/", v); }
};

TEST_F(HotReloadTest, ChangingOtherBundlesUnderLoadFailsNoRequestAndTakesEffect) {
  ASSERT_TRUE(WriteTinyBundle(root_, "stable", "1").ok());
  ASSERT_TRUE(WriteTinyBundle(root_, "churn", "1", /*seed=*/11).ok());
  Start();

  std::atomic<bool> stop{false};
  std::atomic<int> plans{0};
  std::mutex mu;
  std::vector<std::string> failures;
  std::set<std::string> seen;
  std::vector<std::thread> threads;
  for (int c = 0; c < 4; ++c) {
    threads.emplace_back([&, c] {
      auto stub = v1::PlannerService::NewStub(server_.Channel());
      const std::string models[] = {"", "stable", "stable@1"};
      for (uint64_t i = 0; !stop; ++i) {
        v1::PlanRequest request = QuickRequest(/*seed=*/i % 16 * 4 + c);  // hits and misses
        request.set_model(models[(i + c) % 3]);
        v1::PlanResponse response;
        grpc::Status status = stub->Plan(Context().get(), request, &response);
        std::lock_guard<std::mutex> lock(mu);
        if (!status.ok()) {
          failures.push_back(absl::StrCat(request.model(), ": ", status.error_message()));
        } else {
          ++plans;
          seen.insert(response.plan().cost_model());
        }
      }
    });
  }
  // Reloads racing the test's own, and the directory changes half done.
  std::atomic<int> background_reloads{0};
  threads.emplace_back([&] {
    auto admin = v1::AdminService::NewStub(server_.Channel());
    while (!stop) {
      v1::ReloadModelsResponse response;
      grpc::Status status =
          admin->ReloadModels(Context().get(), v1::ReloadModelsRequest(), &response);
      std::lock_guard<std::mutex> lock(mu);
      if (!status.ok()) failures.push_back("ReloadModels: " + status.error_message());
      ++background_reloads;
    }
  });

  v1::PlanResponse response;
  for (int v = 2; v <= 6; ++v) {
    // Added: served as the latest version.
    ASSERT_TRUE(WriteTinyBundle(root_, "churn", Version(v), /*seed=*/10 + v).ok());
    Reload();
    ASSERT_TRUE(PlanWith("churn", &response).ok());
    EXPECT_EQ(response.plan().cost_model(), "churn@" + Version(v));

    // Replaced in place (same version, other weights): its cached plans are not served again.
    ASSERT_TRUE(PlanWith("churn@" + Version(v - 1), &response).ok());
    const double old_cost = response.plan().cost_ms();
    fs::remove_all(Directory(v - 1));
    ASSERT_TRUE(WriteTinyBundle(root_, "churn", Version(v - 1), /*seed=*/100 + v).ok());
    Reload();
    ASSERT_TRUE(PlanWith("churn@" + Version(v - 1), &response).ok());
    EXPECT_FALSE(response.cache_hit()) << "churn@" << v - 1 << " replaced";
    EXPECT_NE(response.plan().cost_ms(), old_cost) << "churn@" << v - 1 << " replaced";

    // Removed: no longer served.
    if (v >= 3) {
      fs::remove_all(Directory(v - 2));
      Reload();
      grpc::Status gone = PlanWith("churn@" + Version(v - 2), &response);
      EXPECT_EQ(gone.error_code(), grpc::StatusCode::NOT_FOUND) << "churn@" << v - 2;
      EXPECT_THAT(ListedIds(), Not(Contains("churn@" + Version(v - 2))));
    }
  }
  // A corrupt version is refused while everything else keeps serving.
  // Corrupted before it appears (a rename), so that the background reloads never see it whole.
  const std::string staging = FreshTempDir("faults-staging");
  ASSERT_TRUE(WriteTinyBundle(staging, "churn", "7").ok());
  ASSERT_TRUE(OverwriteBundleFile(staging, "churn", "7", "compute.weights", "garbage").ok());
  fs::rename(staging + "/churn/7", Directory(7));
  fs::remove_all(staging);
  Reload();
  ASSERT_TRUE(PlanWith("churn", &response).ok());
  EXPECT_EQ(response.plan().cost_model(), "churn@6");

  // Some planning after the last change too; the bound only stops a broken server's test.
  const int before = plans;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (plans < before + 20 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stop = true;
  for (std::thread& thread : threads) thread.join();

  EXPECT_THAT(failures, ::testing::IsEmpty());
  EXPECT_GT(plans, 20);
  EXPECT_GT(background_reloads, 0);
  EXPECT_EQ(seen, (std::set<std::string>{"analytic@1", "stable@1"}));
  EXPECT_THAT(ListedIds(), UnorderedElementsAre("analytic@1", "churn@5", "churn@6", "stable@1"));
}

}  // namespace
}  // namespace shardplan::integration
