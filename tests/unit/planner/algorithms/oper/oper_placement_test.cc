#include "planner/algorithms/oper/oper_placement.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan::oper {
namespace {

using ::testing::ElementsAre;

// The partitions OperPartitionsTest cuts by hand: lookups 40, 20 (access-bounded, 16 bytes
// each), then 20, 10, 7, 3 (memory-bounded, 32 bytes each); 16 bytes a fetch.
std::vector<Partition> HandCutPartitions() {
  const auto make = [](int64_t begin, int64_t end, double lookups, PartitionBound bound) {
    return Partition{.table = 0,
                     .rank_begin = begin,
                     .rank_end = end,
                     .lookups = lookups,
                     .bytes = (end - begin) * 16,
                     .fetch_bytes = 16,
                     .bound = bound};
  };
  using B = PartitionBound;
  return {make(0, 1, 40, B::kAccess), make(1, 2, 20, B::kAccess), make(2, 4, 20, B::kMemory),
          make(4, 6, 10, B::kMemory), make(6, 8, 7, B::kMemory),  make(8, 10, 3, B::kMemory)};
}

// The hand-cut partitions (of a 10-row table "t") placed by `rule` on devices of `capacities`.
absl::StatusOr<Placement> PlaceHandCut(PlacementRule rule, std::vector<int64_t> capacities) {
  static const Table* const kTable = new Table(test::MakeTable("t", 10, 4));
  return PlacePartitions({{.table = kTable, .curve = nullptr, .lookups_per_device = 100}},
                         HandCutPartitions(), capacities, rule);
}

TEST(OperPlacementTest, OperPlacesHotPartitionsByLookupsThenColdOnesByMemory) {
  absl::StatusOr<Placement> placement = PlaceHandCut(PlacementRule::kOper, {1000, 1000});
  ASSERT_TRUE(placement.ok()) << placement.status();
  // 40 -> 0, 20 -> 1; then 32-byte partitions by memory: 0 (16 = 16, the lower), 1, 0, 1.
  EXPECT_THAT(placement->owner, ElementsAre(0, 1, 0, 1, 0, 1));
  EXPECT_THAT(placement->memory_bytes, ElementsAre(80, 80));
  // Eq. 2: lookups x 16 bytes x 2 requesters.
  EXPECT_THAT(placement->lookup_bytes, ElementsAre(67 * 32, 33 * 32));
  EXPECT_DOUBLE_EQ(DegreeOfBalance(placement->lookup_bytes), 33.0 / 67.0);
}

TEST(OperPlacementTest, TheBaselinesPlaceByOneCriterion) {
  absl::StatusOr<Placement> memory = PlaceHandCut(PlacementRule::kMemoryGreedy, {1000, 1000});
  ASSERT_TRUE(memory.ok());
  // Largest first: the four 32-byte partitions alternate, then the two 16-byte ones.
  EXPECT_THAT(memory->owner, ElementsAre(0, 1, 0, 1, 0, 1));
  absl::StatusOr<Placement> access = PlaceHandCut(PlacementRule::kAccessGreedy, {1000, 1000});
  ASSERT_TRUE(access.ok());
  // Hottest first: 40 -> 0, 20 -> 1, 20 -> 1 (20 < 40), 10 -> 0 (tie), 7 -> 1, 3 -> 1.
  EXPECT_THAT(access->owner, ElementsAre(0, 1, 1, 0, 1, 1));
  EXPECT_DOUBLE_EQ(DegreeOfBalance(access->lookup_bytes), 1.0);
}

TEST(OperPlacementTest, FullDevicesAreSkippedAndAPartitionThatFitsNoneIsNamed) {
  // Device 0 holds 40 bytes: the 40-lookup partition (16), then nothing of 32 bytes.
  absl::StatusOr<Placement> placement = PlaceHandCut(PlacementRule::kOper, {40, 1000});
  ASSERT_TRUE(placement.ok());
  EXPECT_THAT(placement->owner, ElementsAre(0, 1, 1, 1, 1, 1));
  EXPECT_STATUS(PlaceHandCut(PlacementRule::kOper, {40, 40}), absl::StatusCode::kFailedPrecondition,
                "table \"t\"'s partition of ranks [2, 4) needs 0.00 GiB (32 bytes), but the most "
                "free memory on any device is 0.00 GiB (24 bytes)");
}

}  // namespace
}  // namespace shardplan::oper
