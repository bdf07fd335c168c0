#include "server/model_reloader.h"

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/text_serializer.h"
#include "tests/integration/support/test_bundles.h"

namespace shardplan {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_bundles::FreshTempDir;
using testing_bundles::OverwriteBundleFile;
using testing_bundles::WriteTinyBundle;

std::string Text(const ServerMetrics& metrics) {
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
  std::string text = Text(metrics);
  EXPECT_THAT(text, HasSubstr("shardplan_models_loaded 2"));
  EXPECT_THAT(text, HasSubstr(R"(shardplan_model_reloads_total{result="refusals"} 2)"));
  EXPECT_THAT(text, HasSubstr("shardplan_model_load_failures_total 1"));
  EXPECT_THAT(text, HasSubstr("shardplan_models_refused 1"));
  EXPECT_THAT(text, HasSubstr(R"(name="tiny")"));

  fs::remove_all(root + "/tiny/2");
  fs::remove_all(root + "/tiny/1");
  absl::StatusOr<ModelReloadReport> report = reloader.ReloadNow();
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->removed, ElementsAre("tiny@1"));
  text = Text(metrics);
  EXPECT_THAT(text, HasSubstr("shardplan_models_loaded 1"));
  EXPECT_THAT(text, HasSubstr(R"(shardplan_model_reloads_total{result="ok"} 1)"));
  EXPECT_THAT(text, HasSubstr("shardplan_models_refused 0"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr(R"(name="tiny")")));
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

}  // namespace
}  // namespace shardplan
