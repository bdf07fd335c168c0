#include "costmodels/artifacts/model_directory_loader.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "costmodels/artifacts/model_bundle.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/support/test_bundles.h"

namespace shardplan {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing_bundles::FreshTempDir;
using testing_bundles::OverwriteBundleFile;
using testing_bundles::WriteTinyBundle;

class ModelDirectoryLoaderTest : public ::testing::Test {
 protected:
  ModelDirectoryLoaderTest()
      : root_(FreshTempDir("loader")),
        loader_(root_, &registry_, [this](const std::string& line) { log_.push_back(line); }) {
    EXPECT_TRUE(RegisterBuiltinModels(registry_).ok());
  }
  ~ModelDirectoryLoaderTest() override { fs::remove_all(root_); }

  ModelReloadReport Reload() {
    absl::StatusOr<ModelReloadReport> report = loader_.Reload();
    EXPECT_TRUE(report.ok()) << report.status();
    return report.ok() ? *report : ModelReloadReport{};
  }

  std::string Dir(const std::string& name, const std::string& version) const {
    return ModelBundleDirectory(root_, name, version);
  }

  const std::string root_;
  ModelRegistry registry_;
  std::vector<std::string> log_;
  ModelDirectoryLoader loader_;
};

TEST_F(ModelDirectoryLoaderTest, AMissingRootIsEmpty) {
  ModelDirectoryLoader loader(root_ + "/nope", &registry_);
  absl::StatusOr<ModelReloadReport> report = loader.Reload();
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->loaded, IsEmpty());
  EXPECT_THAT(report->refused, IsEmpty());
  EXPECT_EQ(registry_.size(), 1u);  // analytic@1
}

TEST_F(ModelDirectoryLoaderTest, ARootThatIsAFileIsAnError) {
  const std::string file = root_ + "/plain";
  std::ofstream(file) << "x";
  ModelDirectoryLoader loader(file, &registry_);
  absl::StatusOr<ModelReloadReport> report = loader.Reload();
  EXPECT_EQ(report.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(report.status().message()), HasSubstr(file));
}

TEST_F(ModelDirectoryLoaderTest, LoadsNewVersionsThenLeavesThemAlone) {
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "1").ok());
  ModelReloadReport report = Reload();
  EXPECT_THAT(report.loaded, ElementsAre("tiny@1"));
  EXPECT_THAT(report.refused, IsEmpty());
  absl::StatusOr<ResolvedModel> v1 = registry_.Resolve("tiny");
  ASSERT_TRUE(v1.ok()) << v1.status();
  EXPECT_EQ(v1->manifest.kind, "neural");
  EXPECT_EQ(v1->manifest.hardware_profile, "test-profile");
  EXPECT_EQ(v1->manifest.content_sha256.size(), 64u);
  EXPECT_EQ(v1->model->id(), "tiny@1");

  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "2", /*seed=*/2).ok());
  report = Reload();
  EXPECT_THAT(report.loaded, ElementsAre("tiny@2"));
  EXPECT_THAT(report.unchanged, ElementsAre("tiny@1"));
  EXPECT_EQ(registry_.Resolve("tiny")->manifest.version, "2");  // latest
  EXPECT_EQ(registry_.Resolve("tiny@1")->model, v1->model);    // not read again

  report = Reload();
  EXPECT_THAT(report.loaded, IsEmpty());
  EXPECT_THAT(report.unchanged, ElementsAre("tiny@1", "tiny@2"));
  EXPECT_THAT(log_, IsEmpty());
}

TEST_F(ModelDirectoryLoaderTest, RefusesACorruptVersionAndKeepsServingTheOthers) {
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "1").ok());
  Reload();
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "2").ok());
  ASSERT_TRUE(OverwriteBundleFile(root_, "tiny", "2", "compute.weights", "garbage").ok());

  ModelReloadReport report = Reload();
  EXPECT_THAT(report.loaded, IsEmpty());
  ASSERT_EQ(report.refused.size(), 1u);
  EXPECT_EQ(report.refused[0].directory, Dir("tiny", "2"));
  EXPECT_THAT(report.refused[0].reason, HasSubstr("compute.weights"));
  EXPECT_TRUE(report.refused[0].first_time);
  EXPECT_EQ(registry_.Resolve("tiny")->manifest.version, "1");
  EXPECT_EQ(registry_.Resolve("tiny@2").status().code(), absl::StatusCode::kNotFound);

  // Refused again for the same reason: reported, but logged only once.
  report = Reload();
  ASSERT_EQ(report.refused.size(), 1u);
  EXPECT_FALSE(report.refused[0].first_time);
  ASSERT_EQ(log_.size(), 1u);
  EXPECT_THAT(log_[0], HasSubstr(Dir("tiny", "2")));
  EXPECT_THAT(log_[0], HasSubstr("compute.weights"));

  // Repaired (rewritten): loaded on the next scan.
  fs::remove_all(Dir("tiny", "2"));
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "2").ok());
  report = Reload();
  EXPECT_THAT(report.loaded, ElementsAre("tiny@2"));
  EXPECT_THAT(report.refused, IsEmpty());
}

TEST_F(ModelDirectoryLoaderTest, AChangedBundleIsReloadedAndACorruptedOneKeepsTheOldContent) {
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "1").ok());
  Reload();
  const std::shared_ptr<const CostModel> first = registry_.Resolve("tiny@1")->model;
  const std::string manifest = Dir("tiny", "1") + "/manifest.json";

  // A manifest whose bytes changed (still valid) is read again: new content, same id.
  std::ofstream(manifest, std::ios::app) << "\n";
  ModelReloadReport report = Reload();
  EXPECT_THAT(report.loaded, ElementsAre("tiny@1"));
  const std::shared_ptr<const CostModel> second = registry_.Resolve("tiny@1")->model;
  EXPECT_NE(second, first);

  // Then corrupted: refused, and the content loaded before keeps serving.
  ASSERT_TRUE(OverwriteBundleFile(root_, "tiny", "1", "manifest.json", "{not json").ok());
  report = Reload();
  ASSERT_EQ(report.refused.size(), 1u);
  EXPECT_THAT(report.refused[0].reason, HasSubstr("manifest.json"));
  EXPECT_THAT(report.removed, IsEmpty());
  EXPECT_EQ(registry_.Resolve("tiny@1")->model, second);
  ASSERT_EQ(log_.size(), 1u);
  EXPECT_THAT(log_[0], HasSubstr("previous content keeps serving"));
}

TEST_F(ModelDirectoryLoaderTest, RemovesVersionsWhoseDirectoryIsGone) {
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "1").ok());
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "2").ok());
  ASSERT_TRUE(WriteTinyBundle(root_, "other", "1").ok());
  EXPECT_THAT(Reload().loaded, ElementsAre("other@1", "tiny@1", "tiny@2"));
  absl::StatusOr<ResolvedModel> held = registry_.Resolve("tiny@2");  // an in-flight request
  ASSERT_TRUE(held.ok());

  fs::remove_all(Dir("tiny", "2"));
  fs::remove_all(root_ + "/other");
  ModelReloadReport report = Reload();
  EXPECT_THAT(report.removed, ElementsAre("other@1", "tiny@2"));
  EXPECT_THAT(report.unchanged, ElementsAre("tiny@1"));
  EXPECT_EQ(registry_.Resolve("tiny")->manifest.version, "1");
  EXPECT_EQ(registry_.Resolve("other").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(held->model->id(), "tiny@2");  // still usable
  EXPECT_EQ(registry_.size(), 2u);         // analytic@1, tiny@1
}

TEST_F(ModelDirectoryLoaderTest, IgnoresHiddenEntriesAndPlainFiles) {
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "1").ok());
  // A writer's temporary directory half way, a hidden model name, stray files.
  fs::create_directories(root_ + "/tiny/.2.tmp-12345");
  std::ofstream(root_ + "/tiny/.2.tmp-12345/compute.weights") << "partial";
  fs::create_directories(root_ + "/.trash/1");
  std::ofstream(root_ + "/README") << "notes";
  std::ofstream(root_ + "/tiny/NOTES") << "notes";

  ModelReloadReport report = Reload();
  EXPECT_THAT(report.loaded, ElementsAre("tiny@1"));
  EXPECT_THAT(report.refused, IsEmpty());
  EXPECT_EQ(registry_.size(), 2u);
}

TEST_F(ModelDirectoryLoaderTest, ABundleMayNotShadowABuiltIn) {
  ASSERT_TRUE(WriteTinyBundle(root_, "analytic", "1").ok());
  ASSERT_TRUE(WriteTinyBundle(root_, "analytic", "2").ok());
  ModelReloadReport report = Reload();
  EXPECT_THAT(report.loaded, ElementsAre("analytic@2"));  // a new version of the name is fine
  ASSERT_EQ(report.refused.size(), 1u);
  EXPECT_THAT(report.refused[0].reason, HasSubstr("built-in"));
  EXPECT_EQ(registry_.Resolve("analytic@1")->manifest.kind, "analytic");
}

TEST_F(ModelDirectoryLoaderTest, ABundleInTheWrongDirectoryIsRefused) {
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "1").ok());
  fs::rename(Dir("tiny", "1"), root_ + "/tiny/7");
  ModelReloadReport report = Reload();
  EXPECT_THAT(report.loaded, IsEmpty());
  ASSERT_EQ(report.refused.size(), 1u);
  EXPECT_EQ(report.refused[0].directory, root_ + "/tiny/7");
}

TEST_F(ModelDirectoryLoaderTest, ConcurrentReloadsAndResolvesAgree) {
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "1").ok());
  Reload();
  std::atomic<bool> failed{false};
  std::atomic<bool> done{false};
  std::thread reader([&] {
    while (!done) {
      absl::StatusOr<ResolvedModel> model = registry_.Resolve("tiny");
      if (!model.ok() || model->model == nullptr) failed = true;
    }
  });
  std::vector<std::thread> reloaders;
  for (int t = 0; t < 3; ++t) {
    reloaders.emplace_back([&, t] {
      for (int i = 0; i < 4; ++i) {
        if (t == 0) WriteTinyBundle(root_, "tiny", std::to_string(2 + i)).IgnoreError();
        if (!loader_.Reload().ok()) failed = true;
      }
    });
  }
  for (std::thread& t : reloaders) t.join();
  done = true;
  reader.join();
  EXPECT_FALSE(failed);
  EXPECT_THAT(Reload().unchanged, ElementsAre("tiny@1", "tiny@2", "tiny@3", "tiny@4", "tiny@5"));
}

}  // namespace
}  // namespace shardplan
