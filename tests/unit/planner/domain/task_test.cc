#include "planner/domain/task.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/domain/memory.h"
#include "planner/domain/plan.h"
#include "planner/domain/table.h"
#include "planner/domain/topology.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using test::kGiB;
using test::MakeTable;
using ::testing::ElementsAre;

TEST(CanonicalTaskTest, SortsTablesAndColocationGroups) {
  Task task;
  task.tables = {MakeTable("c", 1, 4), MakeTable("a", 2, 4), MakeTable("b", 3, 4)};
  task.colocate = {{"z", "y"}, {"c", "a"}};
  const Task canonical = CanonicalTask(task);
  ASSERT_EQ(canonical.tables.size(), 3u);
  EXPECT_EQ(canonical.tables[0].name, "a");
  EXPECT_EQ(canonical.tables[0].rows, 2);
  EXPECT_EQ(canonical.tables[1].name, "b");
  EXPECT_EQ(canonical.tables[2].name, "c");
  EXPECT_THAT(canonical.colocate, ElementsAre(ElementsAre("a", "c"), ElementsAre("y", "z")));
}

TEST(CanonicalTaskTest, OrderOfInputDoesNotMatter) {
  Task one;
  one.tables = {MakeTable("x", 1, 4), MakeTable("y", 2, 8)};
  one.colocate = {{"y", "x"}};
  Task two;
  two.tables = {MakeTable("y", 2, 8), MakeTable("x", 1, 4)};
  two.colocate = {{"x", "y"}};
  const Task a = CanonicalTask(one);
  const Task b = CanonicalTask(two);
  ASSERT_EQ(a.tables.size(), b.tables.size());
  for (size_t i = 0; i < a.tables.size(); ++i) EXPECT_EQ(a.tables[i].name, b.tables[i].name);
  EXPECT_EQ(a.colocate, b.colocate);
}

}  // namespace
}  // namespace shardplan
