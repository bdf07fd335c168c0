#include "client/cli/catalog_format.h"

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

shardplan::v1::ListModelsResponse ModelsAndAPolicy() {
  shardplan::v1::ListModelsResponse response;
  shardplan::v1::ModelInfo* model = response.add_models();
  model->set_name("neuroshard-sim-rtx2080ti");
  model->set_version("5");
  model->set_kind("neural");
  model->set_hardware_profile("sim-rtx2080ti");
  model->set_backend("sim");
  model->set_data_size(100000);
  model->add_device_counts(4);
  model->set_is_latest(true);
  (*model->mutable_test_mse())["compute"] = 0.25;
  shardplan::v1::ModelInfo* policy = response.add_models();
  policy->set_name("autoshard-sim-rtx2080ti");
  policy->set_version("1");
  policy->set_kind("policy");
  policy->set_algorithm("autoshard");
  policy->set_hardware_profile("sim-rtx2080ti");
  policy->set_data_size(40);
  policy->set_is_latest(true);
  policy->set_created("2026-11-26T09:00:00Z");
  policy->set_description("AutoShard's LSTM policy trained on the simulated RTX 2080 Ti");
  return response;
}

void ExpectFits(const std::string& text) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    EXPECT_LE(line.size(), 100u) << line;
  }
}

TEST(FormatModelsTextTest, ListsPoliciesWithTheirAlgorithm) {
  const std::string text = FormatModelsText(ModelsAndAPolicy(), /*long_view=*/false);
  ExpectFits(text);
  EXPECT_THAT(text, HasSubstr("policy                   version  algorithm  latest  trained on"));
  EXPECT_THAT(text,
              HasSubstr("autoshard-sim-rtx2080ti  1        autoshard  *       sim-rtx2080ti"));
  EXPECT_THAT(text, HasSubstr("trained policies of the learned planners"));
  shardplan::v1::ListModelsResponse models_only = ModelsAndAPolicy();
  models_only.mutable_models()->RemoveLast();
  EXPECT_THAT(FormatModelsText(models_only, false), Not(HasSubstr("policy")));
}

TEST(FormatModelsTextTest, TheLongViewShowsWhatAPolicyHas) {
  const std::string text = FormatModelsText(ModelsAndAPolicy(), /*long_view=*/true);
  ExpectFits(text);
  const std::string policy = text.substr(text.find("autoshard-sim-rtx2080ti@1"));
  EXPECT_THAT(policy, HasSubstr("  algorithm:    autoshard\n"));
  EXPECT_THAT(policy, HasSubstr("  trained on:   sim-rtx2080ti\n"));
  EXPECT_THAT(policy, HasSubstr("  data:         40 training tasks\n"));
  EXPECT_THAT(policy, Not(HasSubstr("test mse")));
  EXPECT_THAT(policy, Not(HasSubstr("devices")));
}

TEST(FormatReloadTextTest, CountsPoliciesApart) {
  shardplan::v1::ReloadModelsResponse response;
  response.add_loaded("m@2");
  response.add_policies_loaded("p@1");
  response.add_policies_unchanged("p@0");
  const std::string text = FormatReloadText(response);
  EXPECT_THAT(text, HasSubstr("loaded    p@1 (policy)\n"));
  EXPECT_THAT(text, HasSubstr("1 loaded, 0 unchanged, 0 removed, 0 refused; policies: 1 loaded, "
                              "1 unchanged, 0 removed\n"));
  shardplan::v1::ReloadModelsResponse models_only;
  models_only.add_loaded("m@2");
  EXPECT_THAT(FormatReloadText(models_only), HasSubstr("0 refused\n"));
}

}  // namespace
}  // namespace shardplan::cli
