#include "server/cache_key.h"

#include <algorithm>
#include <string>

#include "gtest/gtest.h"
#include "tests/unit/server/server_test_util.h"
#include "wire/json_io.h"

namespace shardplan {
namespace {

using server_test::SmallTask;

CacheKeyInputs Inputs(const Task& task) {
  CacheKeyInputs inputs;
  inputs.task = &task;
  inputs.algorithm = "exhaustive";
  inputs.resolved_params = {{"max_placements", "1000000"}};
  inputs.seed = 7;
  inputs.model_id = "analytic@1";
  return inputs;
}


TEST(PlanCacheKeyTest, IsHexSha256AndDeterministic) {
  const Task task = SmallTask();
  const std::string key = PlanCacheKey(Inputs(task));
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(PlanCacheKey(Inputs(task)), key);
}

TEST(PlanCacheKeyTest, TheHardwareIsNotInTheKey) {
  // It only chooses the model, whose id and content the key holds already; a request that does
  // not name it keeps the key it always had.
  const Task task = SmallTask();
  Task named = task;
  named.topology.hardware = "rtx2080ti";
  EXPECT_EQ(PlanCacheKey(Inputs(named)), PlanCacheKey(Inputs(task)));
  CacheKeyInputs other_model = Inputs(named);
  other_model.model_id = "sim-rtx2080ti@5";
  EXPECT_NE(PlanCacheKey(other_model), PlanCacheKey(Inputs(task)));
}

TEST(PlanCacheKeyTest, TableOrderDoesNotMatter) {
  const Task task = SmallTask();
  Task reversed = task;
  std::reverse(reversed.tables.begin(), reversed.tables.end());
  EXPECT_EQ(PlanCacheKey(Inputs(reversed)), PlanCacheKey(Inputs(task)));
}

TEST(PlanCacheKeyTest, ColocationGroupOrderDoesNotMatter) {
  Task a = SmallTask();
  a.colocate = {{"t1", "t0"}, {"t3", "t2"}};
  Task b = SmallTask();
  b.colocate = {{"t2", "t3"}, {"t0", "t1"}};
  EXPECT_EQ(PlanCacheKey(Inputs(a)), PlanCacheKey(Inputs(b)));
}

TEST(PlanCacheKeyTest, JsonSpellingDoesNotMatter) {
  // Same task: key order, whitespace, int64 as string, 2 vs 2.0, table order.
  absl::StatusOr<Task> a = wire::ParseTaskJson(R"({
    "tables": [{"name": "a", "rows": 100, "dim": 8, "pooling_factor": 2},
               {"name": "b", "rows": 200, "dim": 16, "pooling_factor": 1.5}],
    "topology": {"num_devices": 2, "device_memory_gib": 1}})");
  absl::StatusOr<Task> b =
      wire::ParseTaskJson(R"({"topology":{"device_memory_gib":1.0,"num_devices":2},"tables":[)"
                    R"({"pooling_factor":1.5,"dim":16,"rows":"200","name":"b"},)"
                    R"({"dim":8,"name":"a","pooling_factor":2.0,"rows":"100"}]})");
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(PlanCacheKey(Inputs(*a)), PlanCacheKey(Inputs(*b)));
}

TEST(PlanCacheKeyTest, EveryPlanInputChangesIt) {
  const Task task = SmallTask();
  const std::string base = PlanCacheKey(Inputs(task));

  CacheKeyInputs algorithm = Inputs(task);
  algorithm.algorithm = "size_greedy";
  EXPECT_NE(PlanCacheKey(algorithm), base);

  CacheKeyInputs parameter = Inputs(task);
  parameter.resolved_params["max_placements"] = "1000001";
  EXPECT_NE(PlanCacheKey(parameter), base);

  CacheKeyInputs extra_parameter = Inputs(task);
  extra_parameter.resolved_params["beam_width"] = "4";
  EXPECT_NE(PlanCacheKey(extra_parameter), base);

  CacheKeyInputs seed = Inputs(task);
  seed.seed = 8;
  EXPECT_NE(PlanCacheKey(seed), base);

  CacheKeyInputs big_seed = Inputs(task);
  big_seed.seed = ~uint64_t{0};
  EXPECT_NE(PlanCacheKey(big_seed), base);

  CacheKeyInputs model = Inputs(task);
  model.model_id = "analytic@2";
  EXPECT_NE(PlanCacheKey(model), base);

  // A bundle's content: hot reload may replace a version's content under one name@version.
  CacheKeyInputs content = Inputs(task);
  content.model_content = std::string(64, 'a');
  EXPECT_NE(PlanCacheKey(content), base);
  CacheKeyInputs other_content = content;
  other_content.model_content = std::string(64, 'b');
  EXPECT_NE(PlanCacheKey(other_content), PlanCacheKey(content));
}

TEST(PlanCacheKeyTest, TaskContentChangesIt) {
  const Task task = SmallTask();
  const std::string base = PlanCacheKey(Inputs(task));
  Task rows = task;
  rows.tables[2].rows += 1;
  EXPECT_NE(PlanCacheKey(Inputs(rows)), base);
  Task capacity = task;
  capacity.topology.memory_bytes[1] -= 1024;
  EXPECT_NE(PlanCacheKey(Inputs(capacity)), base);
  Task batch = task;
  batch.batch_size = 1024;
  EXPECT_NE(PlanCacheKey(Inputs(batch)), base);
  Task renamed = task;
  renamed.tables[0].name = std::string("x");
  EXPECT_NE(PlanCacheKey(Inputs(renamed)), base);
}

TEST(PlanCacheKeyTest, APolicysContentChangesItAndNoPolicyLeavesItAsItWas) {
  const Task task = SmallTask();
  // The keys of requests without a policy, as every release before policies computed them
  // (pinned: plan stores and caches hold them).
  EXPECT_EQ(PlanCacheKey(Inputs(task)),
            "75b16e80d92ab61a07e8d39853398843ad276d68e8bdcd2e4dfde7ea98698448");
  CacheKeyInputs bundle = Inputs(task);
  bundle.model_content = std::string(64, 'a');
  EXPECT_EQ(PlanCacheKey(bundle),
            "1afdc61bfb66bd8b2e79c1beccdeb50716c68c65876e300c28f1cf5eae4803a1");

  CacheKeyInputs policy = Inputs(task);
  policy.resolved_params["policy"] = "p@1";
  const std::string named = PlanCacheKey(policy);
  policy.policy_content = std::string(64, 'c');
  const std::string with_content = PlanCacheKey(policy);
  EXPECT_NE(with_content, named);
  CacheKeyInputs replaced = policy;  // p@1 replaced in place by hot reload
  replaced.policy_content = std::string(64, 'd');
  EXPECT_NE(PlanCacheKey(replaced), with_content);
  // A policy's content never reads as a model's: the model's place is kept, even when "".
  CacheKeyInputs as_model = Inputs(task);
  as_model.resolved_params["policy"] = "p@1";
  as_model.model_content = std::string(64, 'c');
  EXPECT_NE(PlanCacheKey(as_model), with_content);
}

TEST(PlanCacheKeyTest, FieldBoundariesAreUnambiguous) {
  // Moving characters between adjacent fields must not collide.
  const Task task = SmallTask();
  // (std::string temporaries: GCC 12 warns falsely on assigning short literals, PR105329.)
  CacheKeyInputs a = Inputs(task);
  a.algorithm = std::string("ab");
  a.model_id = std::string("c");
  CacheKeyInputs b = Inputs(task);
  b.algorithm = std::string("a");
  b.model_id = std::string("bc");
  EXPECT_NE(PlanCacheKey(a), PlanCacheKey(b));
}

}  // namespace
}  // namespace shardplan
