// AlgorithmRegistry and the built-in algorithms' descriptions.

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/algorithm_registry.h"
#include "planner/plan_task.h"
#include "planner/validation.h"
#include "planner_test_util.h"

namespace shardplan {
namespace {

using test::kGiB;
using test::MakeTable;
using ::testing::ElementsAre;

std::vector<std::string> Names(const AlgorithmRegistry& registry) {
  std::vector<std::string> names;
  for (const Planner* planner : registry.List()) names.push_back(planner->info().name);
  return names;
}

TEST(BuiltinAlgorithmsTest, ListsEveryBaselineSortedByName) {
  const AlgorithmRegistry registry = BuiltinAlgorithms();
  EXPECT_THAT(Names(registry),
              ElementsAre("dim_greedy", "exhaustive", "lookup_greedy", "neuroshard", "random",
                          "size_greedy", "size_lookup_greedy", "torchrec"));
}

TEST(BuiltinAlgorithmsTest, InfoIsComplete) {
  const AlgorithmRegistry registry = BuiltinAlgorithms();
  for (const Planner* planner : registry.List()) {
    const AlgorithmInfo& info = planner->info();
    SCOPED_TRACE(info.name);
    EXPECT_FALSE(info.description.empty());
    EXPECT_EQ(info.description.find('\n'), std::string::npos) << "one line";
    if (info.name == "neuroshard" || info.name == "torchrec") {
      EXPECT_THAT(info.sharding_types,
                  ElementsAre(ShardingType::kTableWise, ShardingType::kColumnWise));
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
    if (info.name.find("greedy") != std::string::npos) {
      EXPECT_TRUE(info.params.empty());
    }
  }
}

// Every algorithm's plans on constrained tasks: algorithm_conformance_test.cc.

TEST(AlgorithmRegistryTest, UnknownNameListsTheKnownOnes) {
  const AlgorithmRegistry registry = BuiltinAlgorithms();
  EXPECT_STATUS(registry.Find("autoshard"), absl::StatusCode::kNotFound,
                "unknown algorithm \"autoshard\"; known: dim_greedy, exhaustive, lookup_greedy, "
                "neuroshard, random, size_greedy, size_lookup_greedy, torchrec");
  EXPECT_STATUS(registry.Find(""), absl::StatusCode::kNotFound, "unknown algorithm \"\"");
}

TEST(AlgorithmRegistryTest, FindReturnsTheRegisteredPlanner) {
  const AlgorithmRegistry registry = BuiltinAlgorithms();
  absl::StatusOr<const Planner*> planner = registry.Find("size_greedy");
  ASSERT_TRUE(planner.ok());
  EXPECT_EQ((*planner)->info().name, "size_greedy");
}

class NamedPlanner : public Planner {
 public:
  explicit NamedPlanner(std::string name) { info_.name = std::move(name); }
  const AlgorithmInfo& info() const override { return info_; }
  absl::StatusOr<Plan> Run(const Task&, const PlanningContext&) const override { return Plan(); }

 private:
  AlgorithmInfo info_;
};

TEST(AlgorithmRegistryTest, RegistersNewPlanners) {
  AlgorithmRegistry registry;
  EXPECT_TRUE(registry.List().empty());
  EXPECT_STATUS(registry.Find("x"), absl::StatusCode::kNotFound, "known: ");
  registry.Register(std::make_unique<NamedPlanner>("zeta"));
  registry.Register(std::make_unique<NamedPlanner>("alpha"));
  EXPECT_THAT(Names(registry), ElementsAre("alpha", "zeta"));
  ASSERT_TRUE(registry.Find("zeta").ok());
}

TEST(AlgorithmRegistryDeathTest, DuplicateNameIsAWiringBug) {
  AlgorithmRegistry registry;
  registry.Register(std::make_unique<NamedPlanner>("random"));
  EXPECT_DEATH(registry.Register(std::make_unique<NamedPlanner>("random")),
               "algorithm \"random\" registered twice");
}

}  // namespace
}  // namespace shardplan
