#include "costmodels/artifacts/model_directory_loader.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "costmodels/artifacts/bundle_file.h"
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

// Before, a model directory that could not be listed dropped every version of it ("models
// removed"). Permission bits do not stop root, so besides chmod 000 (when it denies) the model
// directory is made unlistable by replacing it with a file and with a dangling symlink: what
// the loader sees then is a model directory that is there but cannot be read.
TEST_F(ModelDirectoryLoaderTest, AModelDirectoryThatCannotBeReadKeepsItsVersions) {
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "1").ok());
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "2").ok());
  ASSERT_TRUE(WriteTinyBundle(root_, "other", "1").ok());
  ASSERT_THAT(Reload().loaded, ElementsAre("other@1", "tiny@1", "tiny@2"));
  const std::string model_dir = root_ + "/tiny";
  const std::string aside = root_ + "/.tiny-aside";

  struct Way {
    std::string name;
    std::function<bool()> make;  // false: this way cannot make it unreadable here
    std::function<void()> undo;
    std::string reason;  // in the refusal
    std::string kind;
  };
  const std::vector<Way> ways = {
      {"chmod 000",
       [&] {
         fs::permissions(model_dir, fs::perms::none);
         return ::access(model_dir.c_str(), R_OK) != 0;  // root reads anyway
       },
       [&] { fs::permissions(model_dir, fs::perms::owner_all); },
       ": cannot list the directory: Permission denied", kLoadFailureUnreadable},
      {"replaced by a file",
       [&] {
         fs::rename(model_dir, aside);
         std::ofstream(model_dir) << "not a directory";
         return true;
       },
       [&] {
         fs::remove(model_dir);
         fs::rename(aside, model_dir);
       },
       ": is a regular file, not a directory", kLoadFailureFileType},
      {"a dangling symlink",
       [&] {
         fs::rename(model_dir, aside);
         fs::create_symlink(root_ + "/unmounted/tiny", model_dir);
         return true;
       },
       [&] {
         fs::remove(model_dir);
         fs::rename(aside, model_dir);
       },
       ": is a dangling symlink", kLoadFailureUnreadable},
  };
  int tried = 0;
  for (const Way& way : ways) {
    SCOPED_TRACE(way.name);
    if (!way.make()) {
      way.undo();
      continue;
    }
    ++tried;
    log_.clear();
    ModelReloadReport report = Reload();
    EXPECT_THAT(report.removed, IsEmpty());
    EXPECT_THAT(report.unchanged, ElementsAre("other@1"));
    ASSERT_EQ(report.refused.size(), 1u);
    EXPECT_EQ(report.refused[0].directory, model_dir);
    EXPECT_THAT(report.refused[0].reason, HasSubstr(model_dir + way.reason));
    EXPECT_EQ(report.refused[0].kind, way.kind);
    EXPECT_TRUE(report.refused[0].first_time);
    ASSERT_EQ(log_.size(), 1u);
    EXPECT_THAT(log_[0], HasSubstr("keeps serving"));
    EXPECT_EQ(registry_.Resolve("tiny@1")->model->id(), "tiny@1");
    EXPECT_EQ(registry_.Resolve("tiny")->model->id(), "tiny@2");
    EXPECT_EQ(Reload().refused.size(), 1u);  // still refused, still serving
    EXPECT_TRUE(registry_.Resolve("tiny@2").ok());

    way.undo();
    report = Reload();
    EXPECT_THAT(report.refused, IsEmpty());
    EXPECT_THAT(report.unchanged, ElementsAre("other@1", "tiny@1", "tiny@2"));
  }
  EXPECT_GE(tried, 2);
  // Really gone: removed, as ever.
  fs::remove_all(model_dir);
  EXPECT_THAT(Reload().removed, ElementsAre("tiny@1", "tiny@2"));
}

TEST_F(ModelDirectoryLoaderTest, AVersionDirectoryThatCannotBeReadKeepsServing) {
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "1").ok());
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "2").ok());
  Reload();
  fs::rename(Dir("tiny", "2"), root_ + "/tiny/.2-aside");
  fs::create_symlink(root_ + "/nowhere", Dir("tiny", "2"));
  ModelReloadReport report = Reload();
  EXPECT_THAT(report.removed, IsEmpty());
  ASSERT_EQ(report.refused.size(), 1u);
  EXPECT_EQ(report.refused[0].directory, Dir("tiny", "2"));
  EXPECT_THAT(report.refused[0].reason, HasSubstr("is a dangling symlink"));
  EXPECT_EQ(registry_.Resolve("tiny")->model->id(), "tiny@2");

  // Its manifest replaced by a FIFO: refused at once (a blocking open would hang the scan).
  fs::remove(Dir("tiny", "2"));
  fs::rename(root_ + "/tiny/.2-aside", Dir("tiny", "2"));
  const std::string manifest = Dir("tiny", "2") + "/manifest.json";
  fs::rename(manifest, root_ + "/manifest.aside");
  ASSERT_EQ(::mkfifo(manifest.c_str(), 0644), 0);
  report = Reload();
  EXPECT_THAT(report.removed, IsEmpty());
  ASSERT_EQ(report.refused.size(), 1u);
  EXPECT_THAT(report.refused[0].reason, HasSubstr(manifest + ": is a FIFO, not a regular file"));
  EXPECT_EQ(report.refused[0].kind, kLoadFailureFileType);
  EXPECT_EQ(registry_.Resolve("tiny")->model->id(), "tiny@2");

  // Oversized (sparse): refused before it is read, still serving.
  fs::remove(manifest);
  fs::rename(root_ + "/manifest.aside", manifest);
  ASSERT_EQ(::truncate(manifest.c_str(), off_t{1} << 30), 0);
  report = Reload();
  ASSERT_EQ(report.refused.size(), 1u);
  EXPECT_THAT(report.refused[0].reason, HasSubstr("1073741824 bytes, more than the 1048576"));
  EXPECT_EQ(report.refused[0].kind, kLoadFailureSize);
  EXPECT_EQ(registry_.Resolve("tiny")->model->id(), "tiny@2");

  // Gone: removed.
  fs::remove_all(Dir("tiny", "2"));
  EXPECT_THAT(Reload().removed, ElementsAre("tiny@2"));
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
