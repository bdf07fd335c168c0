#include "planner/algorithms/alis/label_alignment.h"

#include "gtest/gtest.h"
#include "tests/unit/planner/algorithms/alis/alis_test_util.h"

namespace shardplan::alis {
namespace {

using test::OneTable;
using test::Row;

TEST(LabelAlignmentTest, RenamesAPermutedPlanBack) {
  RowShardMap reference = OneTable(12, 3);
  RowShardMap permuted = OneTable(12, 3);
  for (int64_t row = 0; row < 12; ++row) {
    reference.Assign(Row(row), row % 3);
    permuted.Assign(Row(row), (row + 1) % 3);  // same partition, other names
  }
  permuted.Assign(Row(0), 2);  // and one row elsewhere
  const int64_t stay = AlignShardLabels(reference, permuted);
  EXPECT_EQ(stay, 11);
  for (int64_t row = 1; row < 12; ++row) EXPECT_EQ(permuted.ShardOf(Row(row)), row % 3);
}

}  // namespace
}  // namespace shardplan::alis
