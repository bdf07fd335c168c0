#include "planner/search/shard_cost_cache.h"

#include <algorithm>
#include <limits>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/domain/evaluation.h"
#include "planner/domain/validation.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using test::kGiB;
using test::MakeTable;
using ::testing::ElementsAre;

TEST(ShardCostCacheTest, KeyIsTheMultisetNotTheOrder) {
  const Task task = test::MakeTask(
      {MakeTable("a", 100, 16), MakeTable("b", 200, 32), MakeTable("c", 300, 8)}, 2, kGiB);
  const test::NonAdditiveModel model;
  const ShardCostCache cache(model, task, /*enabled=*/true);
  const CostContext context = CostContext::For(task);
  const ShardView a{&task.tables[0], 100, 16}, b{&task.tables[1], 200, 32},
      c{&task.tables[2], 300, 8}, a8{&task.tables[0], 100, 8};
  const std::vector<ShardView> orders[] = {{a, b, c}, {c, b, a}, {b, a, c}};
  const double first = cache.ComputeCost(context, orders[0]);
  for (const auto& order : orders) EXPECT_DOUBLE_EQ(cache.ComputeCost(context, order), first);
  EXPECT_EQ(cache.misses(), 1);
  EXPECT_EQ(cache.hits(), 3);  // the three orders after the first lookup
  EXPECT_EQ(model.compute_calls.load(), 1);
  // Another width of the same table is another key.
  const std::vector<ShardView> narrower = {a8, b, c};
  EXPECT_NE(cache.ComputeCost(context, narrower), first);
  EXPECT_EQ(cache.misses(), 2);
}
TEST(ShardCostCacheTest, MultiplicityIsPartOfTheKey) {
  // Equal halves of one table are two equal pairs; the multiset must keep both.
  const Task task =
      test::MakeTask({MakeTable("a", 100, 16), MakeTable("b", 200, 16)}, 1, kGiB);
  const test::NonAdditiveModel model;
  const ShardCostCache cache(model, task, /*enabled=*/true);
  const CostContext context = CostContext::For(task);
  const ShardView a{&task.tables[0], 100, 8}, b{&task.tables[1], 200, 8};
  const std::vector<std::vector<ShardView>> sets = {{a}, {a, a}, {a, a, b}, {a, b, b}, {b, a, a}};
  for (const auto& set : sets) cache.ComputeCost(context, set);
  EXPECT_EQ(cache.misses(), 4);  // {b, a, a} is {a, a, b}
  EXPECT_EQ(cache.hits(), 1);
  EXPECT_EQ(model.compute_calls.load(), 4);
}
TEST(ShardCostCacheTest, DisabledCallsTheModelEveryTime) {
  const Task task = test::MakeTask({MakeTable("a", 100, 16)}, 1, kGiB);
  const test::NonAdditiveModel model;
  const ShardCostCache cache(model, task, /*enabled=*/false);
  const ShardView a{&task.tables[0], 100, 16};
  for (int i = 0; i < 3; ++i) cache.ComputeCost(CostContext::For(task), {&a, 1});
  EXPECT_EQ(cache.hits(), 0);
  EXPECT_EQ(cache.misses(), 3);
  EXPECT_EQ(model.compute_calls.load(), 3);
}
TEST(ShardCostCacheTest, CountsDoNotDependOnThreadTiming) {
  const Task task = test::MakeTask({MakeTable("a", 100, 16), MakeTable("b", 100, 8)}, 1, kGiB);
  test::NonAdditiveModel model;
  model.compute_sleep_us = 200;  // widen the window in which threads race for one key
  const ShardCostCache cache(model, task, /*enabled=*/true);
  const ShardView a{&task.tables[0], 100, 16}, b{&task.tables[1], 100, 8};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        const std::vector<ShardView> shards = i % 2 ? std::vector{a, b} : std::vector{b};
        cache.ComputeCost(CostContext::For(task), shards);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(cache.misses(), 2);
  EXPECT_EQ(cache.hits(), 78);
  EXPECT_EQ(model.compute_calls.load(), 2);
}

}  // namespace
}  // namespace shardplan
