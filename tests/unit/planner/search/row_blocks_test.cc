#include "planner/search/row_blocks.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace shardplan {
namespace {

std::vector<int64_t> Counts(const std::vector<RowBlock>& blocks) {
  std::vector<int64_t> counts;
  int64_t offset = 0;
  for (const RowBlock& block : blocks) {
    EXPECT_EQ(block.offset, offset);
    offset += block.count;
    counts.push_back(block.count);
  }
  return counts;
}

TEST(RowBlocksTest, EvenBlocksAsTorchRecCutsThem) {
  EXPECT_EQ(Counts(EvenRowBlocks(10, 4)), (std::vector<int64_t>{3, 3, 3, 1}));
  EXPECT_EQ(Counts(EvenRowBlocks(5, 4)), (std::vector<int64_t>{2, 2, 1, 0}));
  EXPECT_EQ(Counts(EvenRowBlocks(0, 2)), (std::vector<int64_t>{0, 0}));
}

TEST(RowBlocksTest, RowWiseBlocksAreEvenOnEqualDevicesElseByMemory) {
  const std::vector<int64_t> equal = {8, 8, 8, 8};
  EXPECT_EQ(Counts(RowWiseBlocks(10, equal)), Counts(EvenRowBlocks(10, 4)));
  const std::vector<int64_t> unequal = {8, 8, 16};
  EXPECT_EQ(Counts(RowWiseBlocks(10, unequal)), (std::vector<int64_t>{2, 2, 6}));
  EXPECT_EQ(Counts(RowWiseBlocks(10, unequal)), Counts(MemoryProportionalRowBlocks(10, unequal)));
}

}  // namespace
}  // namespace shardplan
