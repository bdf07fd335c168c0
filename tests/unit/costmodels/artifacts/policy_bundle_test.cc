#include "costmodels/artifacts/policy_bundle.h"

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/unit/costmodels/artifacts/bundle_test_util.h"

namespace shardplan {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing_bundle::MakeTempDir;
using testing_bundle::ReadFile;
using testing_bundle::WriteFile;

Policy TestPolicy(const std::string& version = "1") {
  Policy policy;
  policy.name = "autoshard-sim-rtx2080ti";
  policy.version = version;
  policy.algorithm = "autoshard";
  policy.architecture = "autoshard-1";
  policy.hardware_profile = "sim-rtx2080ti";
  policy.tensors["t_fc_0.weight"] = {{2, 3}, {0.5f, -1.25f, 3.0e-7f, 2.0f, 0.0f, -0.1f}};
  policy.tensors["t_fc_0.bias"] = {{2}, {0.25f, -0.75f}};
  policy.constants["feature_mean.rows"] = 4107458.123456789;
  policy.constants["ablate.pooling_factor"] = 0.0;
  return policy;
}

PolicyBundleInfo TestInfo() {
  PolicyBundleInfo info;
  info.description = "test policy";
  info.created = "2026-11-26T08:00:00Z";
  info.seed = 18446744073709551557ull;
  info.hyperparameters = {{"learning_rate", "0.001"}, {"total_steps", "100000"}};
  info.training.data = "90 tasks of 80 tables";
  info.training.data_sha256 = std::string(64, 'a');
  info.training.tasks = 90;
  info.training.episodes = 1250;
  info.training.updates = 125;
  info.training.wall_seconds = 61.5;
  info.training.curve_metric = "degree of balance";
  info.training.curve = {{80, 0.25}, {160, 0.5}};
  return info;
}

TEST(PolicyBundleTest, RoundTripsEverything) {
  const std::string root = MakeTempDir();
  const Policy policy = TestPolicy();
  ASSERT_TRUE(WritePolicyBundle(root, TestInfo(), policy).ok());
  auto loaded = ReadPolicyBundle(root + "/autoshard-sim-rtx2080ti/1");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const Policy& read = *loaded->policy;
  EXPECT_EQ(read.id(), "autoshard-sim-rtx2080ti@1");
  EXPECT_EQ(read.algorithm, "autoshard");
  EXPECT_EQ(read.architecture, "autoshard-1");
  EXPECT_EQ(read.hardware_profile, "sim-rtx2080ti");
  ASSERT_EQ(read.tensors.size(), 2u);
  EXPECT_EQ(read.tensors.at("t_fc_0.weight").shape, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(read.tensors.at("t_fc_0.weight").data, policy.tensors.at("t_fc_0.weight").data);
  EXPECT_EQ(read.constants, policy.constants);  // doubles exactly
  EXPECT_EQ(read.content_sha256.size(), 64u);
  EXPECT_EQ(loaded->info.seed, TestInfo().seed);
  EXPECT_EQ(loaded->info.hyperparameters, TestInfo().hyperparameters);
  EXPECT_EQ(loaded->info.training.episodes, 1250);
  ASSERT_EQ(loaded->info.training.curve.size(), 2u);
  EXPECT_EQ(loaded->info.training.curve[1].value, 0.5);
}

TEST(PolicyBundleTest, VersionsAreImmutableAndContentIdentifiesThem) {
  const std::string root = MakeTempDir();
  ASSERT_TRUE(WritePolicyBundle(root, TestInfo(), TestPolicy("1")).ok());
  EXPECT_EQ(WritePolicyBundle(root, TestInfo(), TestPolicy("1")).code(),
            absl::StatusCode::kAlreadyExists);
  Policy other = TestPolicy("2");
  other.tensors["t_fc_0.bias"].data[0] = 9.0f;
  ASSERT_TRUE(WritePolicyBundle(root, TestInfo(), other).ok());
  auto one = ReadPolicyBundle(root + "/autoshard-sim-rtx2080ti/1");
  auto two = ReadPolicyBundle(root + "/autoshard-sim-rtx2080ti/2");
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_NE(one->policy->content_sha256, two->policy->content_sha256);
}

TEST(PolicyBundleTest, WriteRefusesWhatCannotBeRead) {
  const std::string root = MakeTempDir();
  Policy bad_name = TestPolicy();
  bad_name.name = "../escape";
  EXPECT_THAT(WritePolicyBundle(root, TestInfo(), bad_name).message(), HasSubstr("invalid"));
  Policy bad_shape = TestPolicy();
  bad_shape.tensors["t_fc_0.bias"].shape = {3};
  EXPECT_THAT(WritePolicyBundle(root, TestInfo(), bad_shape).message(),
              HasSubstr("'t_fc_0.bias' has 2 values for shape [3]"));
  Policy no_algorithm = TestPolicy();
  no_algorithm.algorithm.clear();
  EXPECT_EQ(WritePolicyBundle(root, TestInfo(), no_algorithm).code(),
            absl::StatusCode::kInvalidArgument);
  Policy nan_constant = TestPolicy();
  nan_constant.constants["x"] = std::nan("");
  EXPECT_THAT(WritePolicyBundle(root, TestInfo(), nan_constant).message(),
              HasSubstr("constant 'x' is not finite"));
  EXPECT_FALSE(fs::exists(root + "/autoshard-sim-rtx2080ti/1"));
}

class PolicyBundleDamageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = MakeTempDir();
    ASSERT_TRUE(WritePolicyBundle(root_, TestInfo(), TestPolicy()).ok());
    dir_ = root_ + "/autoshard-sim-rtx2080ti/1";
    manifest_ = nlohmann::json::parse(ReadFile(dir_ + "/manifest.json"));
  }
  absl::Status ReadWithManifest(const nlohmann::json& manifest) {
    WriteFile(dir_ + "/manifest.json", manifest.dump(2));
    return ReadPolicyBundle(dir_).status();
  }
  std::string root_, dir_;
  nlohmann::json manifest_;
};

TEST_F(PolicyBundleDamageTest, RefusesWithTheFileAndTheReason) {
  nlohmann::json m = manifest_;
  m["kind"] = "neural";
  EXPECT_THAT(ReadWithManifest(m).message(), HasSubstr("kind 'neural' is not 'policy'"));
  m = manifest_;
  m["format_version"] = 2;
  EXPECT_THAT(ReadWithManifest(m).message(), HasSubstr("format_version 2 is not supported"));
  m = manifest_;
  m["version"] = "7";
  EXPECT_THAT(ReadWithManifest(m).message(), HasSubstr("lives in the directory of"));
  m = manifest_;
  m["tensors"]["t_fc_0.bias"] = {3};
  EXPECT_THAT(ReadWithManifest(m).message(), HasSubstr("policy.weights"));
  m = manifest_;
  m["weights"] = "../other.weights";
  EXPECT_THAT(ReadWithManifest(m).message(), HasSubstr("expected 'policy.weights'"));
  m = manifest_;
  m["constants"]["x"] = "one";
  EXPECT_THAT(ReadWithManifest(m).message(), HasSubstr("'constants.x' must be a finite number"));
  m = manifest_;
  m["created"] = "9999";
  EXPECT_THAT(ReadWithManifest(m).message(), HasSubstr("'created' is not an RFC 3339 time"));
  m["created"] = "9999-01-01T00:00:00Z";
  EXPECT_THAT(ReadWithManifest(m).message(), HasSubstr("lies in the future"));
  m = manifest_;
  m.erase("training");
  EXPECT_THAT(ReadWithManifest(m).message(), HasSubstr("field 'training' is missing"));
  WriteFile(dir_ + "/manifest.json", manifest_.dump(2));
  ASSERT_TRUE(ReadPolicyBundle(dir_).ok());
}

TEST_F(PolicyBundleDamageTest, CreationTimesAreReadInUtc) {
  nlohmann::json m = manifest_;
  m["created"] = "2026-11-26T09:30:00+01:00";  // the newest is chosen by this text: one clock
  ASSERT_TRUE(ReadWithManifest(m).ok());
  EXPECT_EQ(ReadPolicyBundle(dir_)->info.created, "2026-11-26T08:30:00Z");
}

TEST_F(PolicyBundleDamageTest, RefusesWeightsThatDoNotMatchTheManifest) {
  std::string weights = ReadFile(dir_ + "/policy.weights");
  weights[weights.size() - 1] ^= 0x40;  // same size, another checksum
  WriteFile(dir_ + "/policy.weights", weights);
  EXPECT_THAT(ReadPolicyBundle(dir_).status().message(), HasSubstr("SHA-256 mismatch"));
  fs::remove(dir_ + "/policy.weights");
  EXPECT_THAT(ReadPolicyBundle(dir_).status().message(), HasSubstr("weights file is missing"));
  EXPECT_EQ(ReadPolicyBundle(root_ + "/nothing/1").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace shardplan
