#include "server/plan_cache.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

std::shared_ptr<const Plan> PlanWithTables(int tables, const std::string& tag = "") {
  auto plan = std::make_shared<Plan>();
  for (int i = 0; i < tables; ++i) {
    plan->tables.push_back(TableSharding{
        absl::StrCat("table_", i, tag), ShardingType::kTableWise, {Shard{0, 0, 100, 0, 8}}});
  }
  plan->algorithm = "size_greedy";
  return plan;
}

// The bytes one entry of `plan` under a 64-character key takes in the cache.
int64_t EntryBytes(const std::shared_ptr<const Plan>& plan) {
  PlanCache probe(int64_t{1} << 40);
  probe.Insert(std::string(64, 'k'), plan);
  return probe.bytes();
}

std::string Key(int i) {
  std::string key = std::to_string(i);
  return std::string(64 - key.size(), '0') + key;
}

TEST(ApproximatePlanBytesTest, GrowsWithContent) {
  EXPECT_GT(ApproximatePlanBytes(*PlanWithTables(10)), ApproximatePlanBytes(*PlanWithTables(1)));
  Plan plan = *PlanWithTables(1);
  const int64_t before = ApproximatePlanBytes(plan);
  plan.parameters["beam_width"] = "4";
  EXPECT_GT(ApproximatePlanBytes(plan), before);
}

TEST(PlanCacheTest, LookupFindsWhatWasInserted) {
  PlanCache cache(1 << 20);
  EXPECT_EQ(cache.Lookup(Key(1)), nullptr);
  auto plan = PlanWithTables(3);
  cache.Insert(Key(1), plan);
  EXPECT_EQ(cache.Lookup(Key(1)), plan);
  EXPECT_EQ(cache.entries(), 1);
  EXPECT_GT(cache.bytes(), ApproximatePlanBytes(*plan));
}

TEST(PlanCacheTest, EvictsLeastRecentlyUsedToStayWithinBudget) {
  auto plan = PlanWithTables(4);
  const int64_t entry = EntryBytes(plan);
  PlanCache cache(3 * entry);  // room for exactly three
  EXPECT_EQ(cache.Insert(Key(1), plan), 0);
  EXPECT_EQ(cache.Insert(Key(2), plan), 0);
  EXPECT_EQ(cache.Insert(Key(3), plan), 0);
  EXPECT_EQ(cache.bytes(), 3 * entry);
  ASSERT_NE(cache.Lookup(Key(1)), nullptr);  // 1 is now the most recent; 2 the least

  EXPECT_EQ(cache.Insert(Key(4), plan), 1);
  EXPECT_EQ(cache.entries(), 3);
  EXPECT_LE(cache.bytes(), cache.capacity_bytes());
  EXPECT_EQ(cache.Lookup(Key(2)), nullptr);
  EXPECT_NE(cache.Lookup(Key(1)), nullptr);
  EXPECT_NE(cache.Lookup(Key(3)), nullptr);
  EXPECT_NE(cache.Lookup(Key(4)), nullptr);
}

TEST(PlanCacheTest, ABigEntryEvictsSeveralSmallOnes) {
  auto small = PlanWithTables(1);
  auto big = PlanWithTables(40);
  const int64_t small_entry = EntryBytes(small);
  PlanCache cache(EntryBytes(big) + small_entry);
  for (int i = 0; i < 10; ++i) cache.Insert(Key(i), small);
  ASSERT_GT(cache.entries(), 3);
  cache.Insert(Key(100), big);
  EXPECT_LE(cache.bytes(), cache.capacity_bytes());
  EXPECT_NE(cache.Lookup(Key(100)), nullptr);
  EXPECT_LE(cache.entries(), 2);
  EXPECT_NE(cache.Lookup(Key(9)), nullptr);  // the most recent small one survives
}

TEST(PlanCacheTest, ReplacingAKeyUpdatesItsBytes) {
  PlanCache cache(1 << 20);
  cache.Insert(Key(1), PlanWithTables(1));
  const int64_t small = cache.bytes();
  auto bigger = PlanWithTables(20);
  cache.Insert(Key(1), bigger);
  EXPECT_EQ(cache.entries(), 1);
  EXPECT_GT(cache.bytes(), small);
  EXPECT_EQ(cache.Lookup(Key(1)), bigger);
  cache.Insert(Key(1), PlanWithTables(1));
  EXPECT_EQ(cache.bytes(), small);
}

TEST(PlanCacheTest, APlanLargerThanTheBudgetIsNotStored) {
  auto big = PlanWithTables(100);
  PlanCache cache(EntryBytes(big) - 1);
  cache.Insert(Key(1), PlanWithTables(1));
  cache.Insert(Key(2), big);
  EXPECT_EQ(cache.Lookup(Key(2)), nullptr);
  EXPECT_NE(cache.Lookup(Key(1)), nullptr);  // nothing was evicted for it
}

TEST(PlanCacheTest, ZeroCapacityStoresNothing) {
  PlanCache cache(0);
  cache.Insert(Key(1), PlanWithTables(1));
  EXPECT_EQ(cache.Lookup(Key(1)), nullptr);
  EXPECT_EQ(cache.entries(), 0);
  EXPECT_EQ(cache.bytes(), 0);
}

}  // namespace
}  // namespace shardplan
