// AlgorithmRegistry and the built-in algorithms' descriptions.

#include "planner/framework/algorithm_registry.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/algorithms/builtin_algorithms.h"
#include "planner/domain/validation.h"
#include "planner/framework/plan_task.h"
#include "tests/unit/planner/planner_test_util.h"
#include "tests/unit/support/fake_policy_algorithm.h"

namespace shardplan {
namespace {

using test::kGiB;
using test::MakeTable;
using ::testing::ElementsAre;

// Every algorithm's plans on constrained tasks: algorithm_conformance_test.cc.

TEST(AlgorithmRegistryTest, UnknownNameListsTheKnownOnes) {
  const AlgorithmRegistry registry = BuiltinAlgorithms();
  EXPECT_STATUS(registry.Find("nonesuch"), absl::StatusCode::kNotFound,
                "unknown algorithm \"nonesuch\"; known: access_greedy, autoshard, dim_greedy, "
                "dreamshard, exhaustive, flexshard, lookup_greedy, memory_greedy, neuroshard, "
                "oper, random, size_greedy, size_lookup_greedy, torchrec");
  EXPECT_STATUS(registry.Find(""), absl::StatusCode::kNotFound, "unknown algorithm \"\"");
}

TEST(AlgorithmRegistryTest, FindReturnsTheRegisteredPlanner) {
  const AlgorithmRegistry registry = BuiltinAlgorithms();
  absl::StatusOr<const Algorithm*> planner = registry.Find("size_greedy");
  ASSERT_TRUE(planner.ok());
  EXPECT_EQ((*planner)->info().name, "size_greedy");
}

class NamedPlanner : public Algorithm {
 public:
  explicit NamedPlanner(std::string name, std::vector<ParamSpec> params = {}) {
    info_.name = std::move(name);
    info_.params = std::move(params);
  }
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
  EXPECT_THAT(test::AlgorithmNames(registry), ElementsAre("alpha", "zeta"));
  ASSERT_TRUE(registry.Find("zeta").ok());
}

TEST(AlgorithmRegistryTest, CheckPolicyAsksThePolicysAlgorithm) {
  AlgorithmRegistry registry;
  registry.Register(std::make_unique<NamedPlanner>("plain"));
  registry.Register(std::make_unique<test_support::FakePolicyAlgorithm>());
  EXPECT_TRUE(registry.CheckPolicy(test_support::MakeFakePolicy("p", "1", 1)).ok());
  Policy broken = test_support::MakeFakePolicy("p", "2", 1);
  broken.tensors.clear();
  EXPECT_STATUS(registry.CheckPolicy(broken), absl::StatusCode::kFailedPrecondition,
                "policy p@2: tensor \"shift\" of shape [1] is missing");
  EXPECT_STATUS(registry.CheckPolicy(test_support::MakeFakePolicy("p", "3", 1, "hw", "plain")),
                absl::StatusCode::kFailedPrecondition,
                "policy p@3: algorithm plain uses no policy");
  EXPECT_STATUS(registry.CheckPolicy(test_support::MakeFakePolicy("p", "4", 1, "hw", "nope")),
                absl::StatusCode::kFailedPrecondition,
                "policy p@4: algorithm \"nope\" is unknown to this build (algorithms that use a "
                "policy: fake_policy)");
}

TEST(AlgorithmRegistryDeathTest, DuplicateNameIsAWiringBug) {
  AlgorithmRegistry registry;
  registry.Register(std::make_unique<NamedPlanner>("random"));
  EXPECT_DEATH(registry.Register(std::make_unique<NamedPlanner>("random")),
               "algorithm \"random\" registered twice");
}

TEST(AlgorithmRegistryDeathTest, ADottedParameterNameIsAWiringBug) {
  // Dotted keys of a plan's parameters are the algorithm's report (FlexShard's "tier.dp.rows").
  AlgorithmRegistry registry;
  ParamSpec dotted;
  dotted.name = "tier.rows";
  EXPECT_DEATH(registry.Register(std::make_unique<NamedPlanner>("dots", std::vector{dotted})),
               "algorithm \"dots\" declares parameter \"tier.rows\" with a '.'");
}

}  // namespace
}  // namespace shardplan
