// ModelDirectoryLoader and policy bundles (docs/policies.md): loaded beside the cost models into
// a PolicyRegistry, vetted by the caller's check, hot-replaced, removed, and kept serving when a
// new content is broken.

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "costmodels/artifacts/bundle_file.h"
#include "costmodels/artifacts/model_bundle.h"
#include "costmodels/artifacts/model_directory_loader.h"
#include "costmodels/artifacts/policy_bundle.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/framework/algorithm_registry.h"
#include "tests/integration/support/test_bundles.h"
#include "tests/unit/support/fake_policy_algorithm.h"

namespace shardplan {
namespace {

namespace fs = std::filesystem;
using test_support::FakePolicyAlgorithm;
using test_support::MakeFakePolicy;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing_bundles::FreshTempDir;
using testing_bundles::OverwriteBundleFile;
using testing_bundles::WriteTinyBundle;

AlgorithmRegistry FakeAlgorithms() {
  AlgorithmRegistry algorithms;
  algorithms.Register(std::make_unique<FakePolicyAlgorithm>());
  return algorithms;
}

// Writes `policy` as a bundle under `root`, trained (it says) on 40 tasks with a short curve.
absl::Status WritePolicy(const std::string& root, const Policy& policy,
                         const std::string& created = "2026-11-26T09:00:00Z") {
  PolicyBundleInfo info;
  info.description = "a fake policy for " + policy.hardware_profile;
  info.created = created;
  info.seed = 7;
  info.training.data = "40 tasks of the test generator";
  info.training.tasks = 40;
  info.training.episodes = 400;
  info.training.curve_metric = "degree of balance";
  info.training.curve = {{200, 0.5}, {400, 0.75}};
  return WritePolicyBundle(root, info, policy);
}

class PolicyLoadingTest : public ::testing::Test {
 protected:
  PolicyLoadingTest()
      : root_(FreshTempDir("policy_loader")),
        loader_(
            root_, &models_, [this](const std::string& line) { log_.push_back(line); }, &policies_,
            [this](const Policy& policy) { return algorithms_.CheckPolicy(policy); }) {
    EXPECT_TRUE(RegisterBuiltinModels(models_).ok());
  }
  ~PolicyLoadingTest() override { fs::remove_all(root_); }

  ModelReloadReport Reload() {
    absl::StatusOr<ModelReloadReport> report = loader_.Reload();
    EXPECT_TRUE(report.ok()) << report.status();
    return report.ok() ? *report : ModelReloadReport{};
  }

  // The shift of the policy the registry serves as `spec`; -1 when it serves none.
  int ServedShift(const std::string& spec) const {
    absl::StatusOr<ResolvedPolicy> policy = policies_.Resolve(spec, "fake_policy", "");
    return policy.ok() ? static_cast<int>(policy->policy->tensors.at("shift").data[0]) : -1;
  }

  const std::string root_;
  const AlgorithmRegistry algorithms_ = FakeAlgorithms();
  ModelRegistry models_;
  PolicyRegistry policies_;
  std::vector<std::string> log_;
  ModelDirectoryLoader loader_;
};

TEST_F(PolicyLoadingTest, LoadsPolicyBundlesBesideModelsThenLeavesThemAlone) {
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "1").ok());
  ASSERT_TRUE(WritePolicy(root_, MakeFakePolicy("fake-sim", "1", 2, "sim-rtx2080ti")).ok());
  ModelReloadReport report = Reload();
  EXPECT_THAT(report.loaded, ElementsAre("tiny@1"));
  EXPECT_THAT(report.policies_loaded, ElementsAre("fake-sim@1"));
  EXPECT_THAT(report.refused, IsEmpty());
  EXPECT_EQ(models_.Resolve("fake-sim").status().code(), absl::StatusCode::kNotFound);

  absl::StatusOr<ResolvedPolicy> loaded = policies_.Resolve("fake-sim@1", "fake_policy", "");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const PolicyManifest& manifest = loaded->manifest;
  EXPECT_EQ(manifest.algorithm, "fake_policy");
  EXPECT_EQ(manifest.architecture, "fake-1");
  EXPECT_EQ(manifest.hardware_profile, "sim-rtx2080ti");
  EXPECT_EQ(manifest.created, "2026-11-26T09:00:00Z");
  EXPECT_EQ(manifest.description, "a fake policy for sim-rtx2080ti");
  EXPECT_EQ(manifest.training_tasks, 40);
  EXPECT_EQ(manifest.training_episodes, 400);
  EXPECT_EQ(manifest.seed, 7u);
  EXPECT_EQ(manifest.curve_metric, "degree of balance");
  EXPECT_EQ(manifest.final_metric, 0.75);
  EXPECT_EQ(manifest.content_sha256.size(), 64u);
  EXPECT_EQ(loaded->policy->content_sha256, manifest.content_sha256);
  EXPECT_EQ(ServedShift("fake-sim"), 2);

  ASSERT_TRUE(WritePolicy(root_, MakeFakePolicy("fake-sim", "2", 3, "sim-rtx2080ti")).ok());
  report = Reload();
  EXPECT_THAT(report.policies_loaded, ElementsAre("fake-sim@2"));
  EXPECT_THAT(report.policies_unchanged, ElementsAre("fake-sim@1"));
  EXPECT_THAT(report.unchanged, ElementsAre("tiny@1"));
  EXPECT_EQ(ServedShift("fake-sim"), 3);  // the latest
  // Not read again: the very object loaded first.
  EXPECT_EQ(policies_.Resolve("fake-sim@1", "fake_policy", "")->policy, loaded->policy);
  EXPECT_THAT(log_, IsEmpty());
}

TEST_F(PolicyLoadingTest, APolicyItsAlgorithmCannotRunIsRefused) {
  Policy wrong = MakeFakePolicy("fake-sim", "1", 1);
  wrong.architecture = "fake-2";
  ASSERT_TRUE(WritePolicy(root_, wrong).ok());
  for (int i = 0; i < 2; ++i) {
    ModelReloadReport report = Reload();
    EXPECT_THAT(report.policies_loaded, IsEmpty());
    ASSERT_EQ(report.refused.size(), 1u);
    EXPECT_EQ(report.refused[0].directory, ModelBundleDirectory(root_, "fake-sim", "1"));
    EXPECT_THAT(report.refused[0].reason,
                HasSubstr("policy fake-sim@1: architecture \"fake-2\" is not fake-1"));
    EXPECT_EQ(report.refused[0].kind, kLoadFailureInvalid);
    EXPECT_EQ(report.refused[0].first_time, i == 0);
  }
  EXPECT_EQ(policies_.size(), 0u);
  ASSERT_EQ(log_.size(), 1u);  // logged once
  EXPECT_THAT(log_[0], HasSubstr("architecture"));
}

TEST_F(PolicyLoadingTest, APolicyOfAnUnknownAlgorithmIsRefused) {
  ASSERT_TRUE(WritePolicy(root_, MakeFakePolicy("x", "1", 1, "sim-a", "nope")).ok());
  ModelReloadReport report = Reload();
  ASSERT_EQ(report.refused.size(), 1u);
  EXPECT_THAT(report.refused[0].reason,
              HasSubstr("policy x@1: algorithm \"nope\" is unknown to this build (algorithms "
                        "that use a policy: fake_policy)"));
  EXPECT_EQ(policies_.size(), 0u);
}

TEST_F(PolicyLoadingTest, AReplacedVersionServesItsNewContentAndHoldersKeepTheOld) {
  ASSERT_TRUE(WritePolicy(root_, MakeFakePolicy("p", "1", 1)).ok());
  Reload();
  absl::StatusOr<ResolvedPolicy> held = policies_.Resolve("p@1", "fake_policy", "");
  ASSERT_TRUE(held.ok()) << held.status();
  // Replaced in place (an operator's mistake, or a re-export): same name@version, new content.
  fs::remove_all(ModelBundleDirectory(root_, "p", "1"));
  ASSERT_TRUE(WritePolicy(root_, MakeFakePolicy("p", "1", 2), "2026-11-26T10:00:00Z").ok());
  ModelReloadReport report = Reload();
  EXPECT_THAT(report.policies_loaded, ElementsAre("p@1"));
  absl::StatusOr<ResolvedPolicy> replaced = policies_.Resolve("p@1", "fake_policy", "");
  ASSERT_TRUE(replaced.ok()) << replaced.status();
  EXPECT_NE(replaced->manifest.content_sha256, held->manifest.content_sha256);
  EXPECT_EQ(ServedShift("p@1"), 2);
  EXPECT_EQ(held->policy->tensors.at("shift").data[0], 1.0f);  // a request in flight
}

TEST_F(PolicyLoadingTest, RemovesAPolicyWhoseDirectoryIsGone) {
  ASSERT_TRUE(WritePolicy(root_, MakeFakePolicy("p", "1", 1)).ok());
  ASSERT_TRUE(WritePolicy(root_, MakeFakePolicy("p", "2", 2)).ok());
  Reload();
  absl::StatusOr<ResolvedPolicy> held = policies_.Resolve("p@2", "fake_policy", "");
  ASSERT_TRUE(held.ok()) << held.status();
  fs::remove_all(ModelBundleDirectory(root_, "p", "2"));
  ModelReloadReport report = Reload();
  EXPECT_THAT(report.policies_removed, ElementsAre("p@2"));
  EXPECT_THAT(report.policies_unchanged, ElementsAre("p@1"));
  EXPECT_THAT(report.removed, IsEmpty());
  EXPECT_EQ(ServedShift("p"), 1);
  EXPECT_EQ(held->policy->id(), "p@2");  // still usable
  fs::remove_all(root_ + "/p");
  EXPECT_THAT(Reload().policies_removed, ElementsAre("p@1"));
  EXPECT_EQ(policies_.size(), 0u);
}

TEST_F(PolicyLoadingTest, ABrokenNewContentKeepsTheOldOneServing) {
  ASSERT_TRUE(WritePolicy(root_, MakeFakePolicy("p", "1", 1)).ok());
  Reload();
  const std::shared_ptr<const Policy> first = policies_.Resolve("p@1", "fake_policy", "")->policy;
  // A manifest that changed into something unreadable: refused, the old content serves on.
  ASSERT_TRUE(OverwriteBundleFile(root_, "p", "1", "manifest.json", "{not json").ok());
  ModelReloadReport report = Reload();
  ASSERT_EQ(report.refused.size(), 1u);
  EXPECT_THAT(report.refused[0].reason, HasSubstr("manifest.json"));
  EXPECT_THAT(report.policies_removed, IsEmpty());
  EXPECT_EQ(policies_.Resolve("p@1", "fake_policy", "")->policy, first);
  ASSERT_EQ(log_.size(), 1u);
  EXPECT_THAT(log_[0], HasSubstr("previous content keeps serving"));

  // A new version whose weights are damaged is refused; p@1 stays the latest.
  ASSERT_TRUE(WritePolicy(root_, MakeFakePolicy("p", "2", 2)).ok());
  ASSERT_TRUE(OverwriteBundleFile(root_, "p", "2", "policy.weights", "garbage").ok());
  report = Reload();
  EXPECT_THAT(report.policies_loaded, IsEmpty());
  ASSERT_EQ(report.refused.size(), 2u);
  EXPECT_EQ(report.refused[1].directory, ModelBundleDirectory(root_, "p", "2"));
  EXPECT_EQ(ServedShift("p"), 1);
}

TEST(PolicyLoadingWithoutARegistryTest, PolicyBundlesAreRefusedAndModelsLoad) {
  const std::string root = FreshTempDir("policy_loader_none");
  ModelRegistry models;
  ModelDirectoryLoader loader(root, &models);
  ASSERT_TRUE(WriteTinyBundle(root, "tiny", "1").ok());
  ASSERT_TRUE(WritePolicy(root, MakeFakePolicy("p", "1", 1)).ok());
  absl::StatusOr<ModelReloadReport> report = loader.Reload();
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->loaded, ElementsAre("tiny@1"));
  EXPECT_THAT(report->policies_loaded, IsEmpty());
  ASSERT_EQ(report->refused.size(), 1u);
  EXPECT_EQ(report->refused[0].directory, ModelBundleDirectory(root, "p", "1"));
  fs::remove_all(root);
}

}  // namespace
}  // namespace shardplan
