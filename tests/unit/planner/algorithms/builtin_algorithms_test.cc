#include "planner/algorithms/builtin_algorithms.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/domain/validation.h"
#include "planner/framework/algorithm_registry.h"
#include "planner/framework/plan_task.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using test::kGiB;
using test::MakeTable;
using ::testing::ElementsAre;

TEST(BuiltinAlgorithmsTest, ListsEveryBaselineSortedByName) {
  const AlgorithmRegistry registry = BuiltinAlgorithms();
  EXPECT_THAT(test::AlgorithmNames(registry),
              ElementsAre("access_greedy", "autoshard", "dim_greedy", "dreamshard", "exhaustive",
                          "flexshard", "lookup_greedy", "memory_greedy", "neuroshard", "oper",
                          "random", "size_greedy", "size_lookup_greedy", "torchrec"));
}

TEST(BuiltinAlgorithmsTest, InfoIsComplete) {
  const AlgorithmRegistry registry = BuiltinAlgorithms();
  for (const Algorithm* planner : registry.List()) {
    const AlgorithmInfo& info = planner->info();
    SCOPED_TRACE(info.name);
    EXPECT_FALSE(info.description.empty());
    EXPECT_EQ(info.description.find('\n'), std::string::npos) << "one line";
    if (info.name == "torchrec" || info.name == "neuroshard") {
      EXPECT_THAT(info.sharding_types,
                  ElementsAre(ShardingType::kTableWise, ShardingType::kColumnWise,
                              ShardingType::kRowWise, ShardingType::kTableRowWise,
                              ShardingType::kDataParallel));
    } else if (info.name == "flexshard" || info.name == "oper" ||
               info.name == "memory_greedy" || info.name == "access_greedy") {
      EXPECT_THAT(info.sharding_types, ElementsAre(ShardingType::kRowWise));
    } else {
      EXPECT_THAT(info.sharding_types, ElementsAre(ShardingType::kTableWise));
    }
    EXPECT_EQ(info.uses_cost_model, info.name == "exhaustive" || info.name == "neuroshard");
    for (const ParamSpec& spec : info.params) {
      EXPECT_FALSE(spec.description.empty()) << spec.name;
    }
    // Every default resolves, and the resolved spelling equals the declared one.
    absl::StatusOr<ParamValues> defaults = ResolveParams(info.params, {});
    ASSERT_TRUE(defaults.ok()) << defaults.status();
    for (const ParamSpec& spec : info.params) {
      EXPECT_EQ(defaults->values().at(spec.name), spec.default_value);
    }
    // TorchRec's greedy baselines have no parameters (OPER's take its partition threshold).
    if (info.name.find("greedy") != std::string::npos && info.name != "memory_greedy" &&
        info.name != "access_greedy") {
      EXPECT_TRUE(info.params.empty());
    }
  }
}

}  // namespace
}  // namespace shardplan
