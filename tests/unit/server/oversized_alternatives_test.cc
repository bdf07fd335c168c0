#include "server/oversized_alternatives.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/algorithms/builtin_algorithms.h"
#include "tests/unit/server/server_test_util.h"

namespace shardplan {
namespace {

using server_test::kGiB;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// A 30 GiB dim-4 table beside two small ones on eight 16 GiB devices.
Task HugeTableOnlyTask() {
  Task task = server_test::SmallTask(2, 8);
  Table huge;
  huge.name = "huge";
  huge.rows = 30 * kGiB / 16;
  huge.dim = 4;
  huge.pooling_factor = 1.0;
  task.tables.push_back(huge);
  return task;
}

class OversizedAlternativesTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(RegisterBuiltinModels(models_).ok()); }
  AlgorithmRegistry algorithms_ = BuiltinAlgorithms();
  ModelRegistry models_;
};

TEST_F(OversizedAlternativesTest, NamesTheAlgorithmsTheirHoldingTypesAndTheModels) {
  const std::string alternatives = OversizedAlternatives(HugeTableOnlyTask(), algorithms_, models_);
  EXPECT_THAT(alternatives, StartsWith("these would plan it: "));
  EXPECT_THAT(
      alternatives,
      HasSubstr("--algorithm torchrec (ROW_WISE, TABLE_ROW_WISE) under --model analytic@1"));
  // Whole-table planners hold no such table.
  EXPECT_THAT(alternatives, ::testing::Not(HasSubstr("size_greedy")));
}

TEST_F(OversizedAlternativesTest, NothingWhenNoTableIsOversizedOrNothingHoldsIt) {
  EXPECT_EQ(OversizedAlternatives(server_test::SmallTask(4, 2), algorithms_, models_), "");
  Task excluded = HugeTableOnlyTask();
  excluded.tables.back().allowed_sharding_types = {ShardingType::kTableWise};
  EXPECT_EQ(OversizedAlternatives(excluded, algorithms_, models_),
            "no loaded algorithm and model would plan it");
}

}  // namespace
}  // namespace shardplan
