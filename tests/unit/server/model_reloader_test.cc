#include "server/model_reloader.h"

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "costmodels/artifacts/policy_bundle.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/framework/algorithm_registry.h"
#include "prometheus/text_serializer.h"
#include "tests/integration/support/test_bundles.h"
#include "tests/unit/support/fake_policy_algorithm.h"

namespace shardplan {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_bundles::FreshTempDir;
using testing_bundles::OverwriteBundleFile;
using testing_bundles::WriteTinyBundle;

std::string ReloaderMetricsText(const ServerMetrics& metrics) {
  return prometheus::TextSerializer().Serialize(metrics.registry()->Collect());
}

TEST(ModelReloaderTest, WithoutADirectoryReloadIsRefused) {
  ModelRegistry registry;
  ServerMetrics metrics;
  ModelReloader reloader("", &registry, &metrics);
  EXPECT_FALSE(reloader.enabled());
  absl::StatusOr<ModelReloadReport> report = reloader.ReloadNow();
  EXPECT_EQ(report.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("models_dir"));
  reloader.StartPolling(std::chrono::milliseconds(1));  // a no-op
  reloader.Stop();
}

TEST(ModelReloaderTest, ReloadKeepsTheModelMetricsRight) {
  const std::string root = FreshTempDir("reloader");
  ModelRegistry registry;
  ASSERT_TRUE(RegisterBuiltinModels(registry).ok());
  ServerMetrics metrics;
  ModelReloader reloader(root, &registry, &metrics);
  ASSERT_TRUE(WriteTinyBundle(root, "tiny", "1").ok());
  ASSERT_TRUE(WriteTinyBundle(root, "tiny", "2").ok());
  ASSERT_TRUE(OverwriteBundleFile(root, "tiny", "2", "compute.weights", "junk").ok());

  for (int i = 0; i < 2; ++i) {  // the same refusal twice counts once
    absl::StatusOr<ModelReloadReport> report = reloader.ReloadNow();
    ASSERT_TRUE(report.ok()) << report.status();
  }
  std::string text = ReloaderMetricsText(metrics);
  EXPECT_THAT(text, HasSubstr("shardplan_models_loaded 2"));
  EXPECT_THAT(text, HasSubstr(R"(shardplan_model_reloads_total{result="refusals"} 2)"));
  // "junk" is not the size the architecture implies.
  EXPECT_THAT(text, HasSubstr(R"(shardplan_model_load_failures_total{reason="size"} 1)"));
  EXPECT_THAT(text, HasSubstr(R"(shardplan_model_load_failures_total{reason="invalid"} 0)"));
  EXPECT_THAT(text, HasSubstr("shardplan_models_refused 1"));
  EXPECT_THAT(text, HasSubstr(R"(name="tiny")"));

  fs::remove_all(root + "/tiny/2");
  fs::remove_all(root + "/tiny/1");
  absl::StatusOr<ModelReloadReport> report = reloader.ReloadNow();
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->removed, ElementsAre("tiny@1"));
  text = ReloaderMetricsText(metrics);
  EXPECT_THAT(text, HasSubstr("shardplan_models_loaded 1"));
  EXPECT_THAT(text, HasSubstr(R"(shardplan_model_reloads_total{result="ok"} 1)"));
  EXPECT_THAT(text, HasSubstr("shardplan_models_refused 0"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr(R"(name="tiny")")));
  fs::remove_all(root);
}

TEST(ModelReloaderTest, ReloadServesPoliciesAndKeepsTheirMetricsRight) {
  const std::string root = FreshTempDir("reloader_policies");
  AlgorithmRegistry algorithms;
  algorithms.Register(std::make_unique<test_support::FakePolicyAlgorithm>());
  ModelRegistry registry;
  ASSERT_TRUE(RegisterBuiltinModels(registry).ok());
  PolicyRegistry policies;
  ServerMetrics metrics;
  ModelReloader::Options options;
  options.policies = &policies;
  options.check_policy = [&](const Policy& policy) { return algorithms.CheckPolicy(policy); };
  ModelReloader reloader(root, &registry, &metrics, options);
  PolicyBundleInfo info;
  info.created = "2026-11-26T09:00:00Z";
  ASSERT_TRUE(
      WritePolicyBundle(root, info, test_support::MakeFakePolicy("p", "1", 1, "sim-a")).ok());
  absl::StatusOr<ModelReloadReport> report = reloader.ReloadNow();
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->policies_loaded, ElementsAre("p@1"));
  std::string text = ReloaderMetricsText(metrics);
  EXPECT_THAT(text, HasSubstr("shardplan_models_loaded 1"));
  EXPECT_THAT(text, HasSubstr("shardplan_policies_loaded 1"));
  EXPECT_THAT(text, HasSubstr(R"(shardplan_model_info{default="false",hardware_profile="sim-a",)"
                              R"(kind="policy",name="p",version="1"} 1)"));
  EXPECT_EQ(policies.size(), 1u);

  fs::remove_all(root + "/p");
  report = reloader.ReloadNow();
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->policies_removed, ElementsAre("p@1"));
  text = ReloaderMetricsText(metrics);
  EXPECT_THAT(text, HasSubstr("shardplan_policies_loaded 0"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr(R"(kind="policy")")));
  reloader.Stop();
  fs::remove_all(root);
}

TEST(ModelReloaderTest, PollingFindsNewBundlesAndStops) {
  const std::string root = FreshTempDir("poller");
  ModelRegistry registry;
  ServerMetrics metrics;
  ModelReloader reloader(root, &registry, &metrics);
  reloader.StartPolling(std::chrono::milliseconds(10));
  ASSERT_TRUE(WriteTinyBundle(root, "tiny", "1").ok());
  // Waits for the poll, without asserting how long it takes.
  for (int i = 0; i < 3000 && !registry.Resolve("tiny@1").ok(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(registry.Resolve("tiny@1").ok());
  reloader.Stop();
  reloader.Stop();  // idempotent
  fs::remove_all(root);
}

// A scan that never returns (a hung network filesystem) must not hold up the server's shutdown:
// Stop abandons it after Options::stop_wait, the ReloadNow waiting for it is answered
// UNAVAILABLE, and the scan, when it does return, changes nothing.
TEST(ModelReloaderTest, StopAbandonsAHungScan) {
  const std::string root = FreshTempDir("hung");
  ASSERT_TRUE(WriteTinyBundle(root, "tiny", "1").ok());
  ModelRegistry registry;
  ServerMetrics metrics;
  // Shared with the scan thread, which outlives this test's frame when abandoned.
  struct Gate {
    std::mutex mu;
    std::condition_variable cv;
    bool entered = false;
    bool open = false;
  };
  auto gate = std::make_shared<Gate>();
  ModelReloader::Options options;
  options.stop_wait = std::chrono::milliseconds(100);
  options.before_scan = [gate] {
    std::unique_lock<std::mutex> lock(gate->mu);
    gate->entered = true;
    gate->cv.notify_all();
    gate->cv.wait(lock, [&] { return gate->open; });
  };
  auto reloader = std::make_unique<ModelReloader>(root, &registry, &metrics, options);

  std::promise<absl::Status> reloaded;
  std::thread caller([&] { reloaded.set_value(reloader->ReloadNow().status()); });
  {
    std::unique_lock<std::mutex> lock(gate->mu);
    ASSERT_TRUE(gate->cv.wait_for(lock, std::chrono::seconds(60), [&] { return gate->entered; }));
  }
  // Stop returns although the scan hangs; the bound only stops a broken test.
  std::future<void> stopped = std::async(std::launch::async, [&] { reloader->Stop(); });
  ASSERT_EQ(stopped.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  std::future<absl::Status> answer = reloaded.get_future();
  ASSERT_EQ(answer.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  const absl::Status status = answer.get();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("stopped before the scan finished"));
  caller.join();
  EXPECT_EQ(reloader->ReloadNow().status().code(), absl::StatusCode::kUnavailable);
  reloader.reset();  // the registry and metrics stay; the scan thread must not touch them

  {
    std::lock_guard<std::mutex> lock(gate->mu);
    gate->open = true;
  }
  gate->cv.notify_all();
  // The abandoned scan reads the bundle and must not add it. No signal says it has finished,
  // so this checks for a while rather than forever.
  for (int i = 0; i < 20; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_FALSE(registry.Resolve("tiny@1").ok());
  }
  EXPECT_EQ(registry.size(), 0u);
  fs::remove_all(root);
}

// Concurrent ReloadNow calls each get a scan that started after they asked.
TEST(ModelReloaderTest, ConcurrentReloadsEachSeeTheirChange) {
  const std::string root = FreshTempDir("concurrent");
  ModelRegistry registry;
  ServerMetrics metrics;
  ModelReloader reloader(root, &registry, &metrics);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int v = 1; v <= 3; ++v) {
        const std::string version = std::to_string(t * 10 + v);
        ASSERT_TRUE(WriteTinyBundle(root, "tiny", version).ok());
        ASSERT_TRUE(reloader.ReloadNow().ok());
        EXPECT_TRUE(registry.Resolve("tiny@" + version).ok()) << version;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(registry.size(), 12u);
  fs::remove_all(root);
}

}  // namespace
}  // namespace shardplan
