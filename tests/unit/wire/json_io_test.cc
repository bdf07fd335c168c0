#include "wire/json_io.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using ::nlohmann::json;
using test::kGiB;
using ::testing::ElementsAre;
using ::testing::Pair;
using wire::ParseTaskJson;

// The JSON the writers produce, as values the tests can look into.
json TaskToJson(const Task& task) { return json::parse(wire::TaskToJson(task)); }
json PlanToJson(const Plan& plan) { return json::parse(wire::PlanToJson(plan)); }
absl::StatusOr<Task> TaskFromJson(const json& value) { return ParseTaskJson(value.dump()); }
absl::StatusOr<Plan> PlanFromJson(const json& value) { return wire::ParsePlanJson(value.dump()); }

Task FullTask() {
  Task task;
  Table a = test::MakeTable("a", 1000, 64, 2.5);
  a.access_bins.assign(kNumAccessBins, 0.0);
  a.access_bins[0] = 0.75;
  a.access_bins[16] = 0.25;
  a.element_type = ElementType::kFp16;
  a.allowed_sharding_types = {ShardingType::kTableWise, ShardingType::kColumnWise};
  a.pinned_device = 1;
  Table b = test::MakeTable("b", int64_t{1} << 40, 4, 0.0);
  b.element_type = ElementType::kInt8;
  task.tables = {a, b};
  task.topology.memory_bytes = {4 * kGiB, kGiB / 2, 3 * kGiB};
  task.topology.devices_per_host = 2;
  task.topology.intra_host_bandwidth_gibps = 300;
  task.topology.inter_host_bandwidth_gibps = 25;
  task.batch_size = 4096;
  task.colocate = {{"a", "b"}};
  task.memory.optimizer_state_multiplier = 2;
  task.memory.io_buffer_multiplier = 0.125;
  task.max_planning_time_ms = 1500;
  return task;
}

void ExpectSameTask(const Task& got, const Task& want) {
  ASSERT_EQ(got.tables.size(), want.tables.size());
  for (size_t i = 0; i < want.tables.size(); ++i) {
    const Table& g = got.tables[i];
    const Table& w = want.tables[i];
    EXPECT_EQ(g.name, w.name);
    EXPECT_EQ(g.rows, w.rows);
    EXPECT_EQ(g.dim, w.dim);
    EXPECT_EQ(g.pooling_factor, w.pooling_factor);
    EXPECT_EQ(g.access_bins, w.access_bins);
    EXPECT_EQ(g.element_type, w.element_type);
    EXPECT_EQ(g.allowed_sharding_types, w.allowed_sharding_types);
    EXPECT_EQ(g.pinned_device, w.pinned_device);
  }
  EXPECT_EQ(got.topology.memory_bytes, want.topology.memory_bytes);
  EXPECT_EQ(got.topology.devices_per_host, want.topology.devices_per_host);
  EXPECT_EQ(got.topology.intra_host_bandwidth_gibps, want.topology.intra_host_bandwidth_gibps);
  EXPECT_EQ(got.topology.inter_host_bandwidth_gibps, want.topology.inter_host_bandwidth_gibps);
  EXPECT_EQ(got.batch_size, want.batch_size);
  EXPECT_EQ(got.colocate, want.colocate);
  EXPECT_EQ(got.memory.optimizer_state_multiplier, want.memory.optimizer_state_multiplier);
  EXPECT_EQ(got.memory.io_buffer_multiplier, want.memory.io_buffer_multiplier);
  EXPECT_EQ(got.max_planning_time_ms, want.max_planning_time_ms);
}

TEST(TaskJsonTest, RoundTrip) {
  const Task task = FullTask();
  const json written = TaskToJson(task);
  absl::StatusOr<Task> read = TaskFromJson(written);
  ASSERT_TRUE(read.ok()) << read.status();
  ExpectSameTask(*read, task);
  EXPECT_EQ(TaskToJson(*read), written);
  // Through text too.
  absl::StatusOr<Task> parsed = ParseTaskJson(written.dump(2));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ExpectSameTask(*parsed, task);
}

TEST(TaskJsonTest, RoundTripUniformCapacities) {
  Task task = FullTask();
  task.topology.memory_bytes = {16 * kGiB, 16 * kGiB};
  const json written = TaskToJson(task);
  EXPECT_EQ(written["topology"]["num_devices"], 2);
  EXPECT_EQ(written["topology"]["device_memory_gib"], 16.0);
  EXPECT_EQ(written["topology"]["per_device_memory_gib"], json::array());
  absl::StatusOr<Task> read = TaskFromJson(written);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->topology.memory_bytes, task.topology.memory_bytes);
}

TEST(TaskJsonTest, WritesSnakeCaseEnumNamesAndNumbers) {
  const json written = TaskToJson(FullTask());
  const json& a = written["tables"][0];
  EXPECT_EQ(a["element_type"], "FP16");
  EXPECT_EQ(a["allowed_sharding_types"], json({"TABLE_WISE", "COLUMN_WISE"}));
  EXPECT_EQ(a["pooling_factor"], 2.5);
  EXPECT_EQ(a["pinned_device"], 1);
  // proto3 JSON writes 64-bit integers as decimal strings (exact in any JSON reader).
  EXPECT_EQ(written["tables"][1]["rows"], "1099511627776");
  EXPECT_FALSE(written["tables"][1].contains("pinned_device"));
  EXPECT_EQ(written["topology"]["per_device_memory_gib"], json({4.0, 0.5, 3.0}));
  EXPECT_EQ(written["colocate"], json::parse(R"([{"tables": ["a", "b"]}])"));
  EXPECT_EQ(written["memory"]["optimizer_state_multiplier"], 2.0);
  EXPECT_EQ(written["batch_size"], "4096");
  EXPECT_EQ(written["max_planning_time_ms"], "1500");
}

TEST(TaskJsonTest, ParsesAHandWrittenFile) {
  absl::StatusOr<Task> task = ParseTaskJson(R"({
    "tables": [
      {"name": "t0", "rows": "1000000", "dim": 64, "pooling_factor": 12.5,
       "element_type": "FP32", "allowed_sharding_types": ["TABLE_WISE"], "pinned_device": 0},
      {"name": "t1", "rows": 200, "dim": 16, "elementType": 2, "poolingFactor": 1}
    ],
    "topology": {"num_devices": 2, "device_memory_gib": 4},
    "colocate": [{"tables": ["t0", "t1"]}],
    "maxPlanningTimeMs": "250"
  })");
  ASSERT_TRUE(task.ok()) << task.status();
  ASSERT_EQ(task->tables.size(), 2u);
  EXPECT_EQ(task->tables[0].rows, 1000000);
  EXPECT_EQ(task->tables[0].pooling_factor, 12.5);
  EXPECT_EQ(task->tables[0].element_type, ElementType::kFp32);
  EXPECT_THAT(task->tables[0].allowed_sharding_types, ElementsAre(ShardingType::kTableWise));
  EXPECT_EQ(task->tables[0].pinned_device, 0);
  EXPECT_EQ(task->tables[1].element_type, ElementType::kFp16);
  EXPECT_EQ(task->tables[1].pooling_factor, 1.0);
  EXPECT_FALSE(task->tables[1].pinned_device.has_value());
  EXPECT_THAT(task->topology.memory_bytes, ElementsAre(4 * kGiB, 4 * kGiB));
  EXPECT_EQ(task->topology.intra_host_bandwidth_gibps, kDefaultIntraHostBandwidthGiBps);
  EXPECT_EQ(task->batch_size, kDefaultBatchSize);
  EXPECT_THAT(task->colocate, ElementsAre(ElementsAre("t0", "t1")));
  EXPECT_EQ(task->max_planning_time_ms, 250);
}

TEST(TaskJsonTest, MissingAndNullFieldsTakeProtoDefaults) {
  absl::StatusOr<Task> task =
      ParseTaskJson(R"({"tables": [{"name": "x", "pinned_device": null, "access_bins": null}],
                        "batch_size": 0, "memory": null})");
  ASSERT_TRUE(task.ok()) << task.status();
  const Table& table = task->tables[0];
  EXPECT_EQ(table.rows, 0);
  EXPECT_EQ(table.dim, 0);
  EXPECT_EQ(table.pooling_factor, 0.0);
  EXPECT_TRUE(table.access_bins.empty());
  EXPECT_EQ(table.element_type, ElementType::kFp32);
  EXPECT_FALSE(table.pinned_device.has_value());
  EXPECT_EQ(task->topology.num_devices(), 0);  // ValidateTask rejects it by name
  EXPECT_EQ(task->batch_size, kDefaultBatchSize);
  EXPECT_EQ(task->memory.optimizer_state_multiplier, 0.0);
  EXPECT_EQ(task->max_planning_time_ms, 0);

  absl::StatusOr<Task> empty = ParseTaskJson("{}");
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(empty->tables.empty());
}

TEST(TaskJsonTest, ElementTypeUnspecifiedIsFp32) {
  absl::StatusOr<Task> task =
      ParseTaskJson(R"({"tables": [{"name": "x", "element_type": "ELEMENT_TYPE_UNSPECIFIED"},
                                   {"name": "y", "element_type": 0},
                                   {"name": "z", "element_type": "INT8"}]})");
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_EQ(task->tables[0].element_type, ElementType::kFp32);
  EXPECT_EQ(task->tables[1].element_type, ElementType::kFp32);
  EXPECT_EQ(task->tables[2].element_type, ElementType::kInt8);
}

TEST(TaskJsonTest, IntegersAsFloatsAndStrings) {
  absl::StatusOr<Task> task = ParseTaskJson(R"({"tables": [{"name": "x", "rows": 1e3, "dim": "8"}],
                        "batch_size": "-5"})");
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_EQ(task->tables[0].rows, 1000);
  EXPECT_EQ(task->tables[0].dim, 8);
  EXPECT_EQ(task->batch_size, -5);  // a value error, for ValidateTask
}

TEST(TaskJsonTest, ErrorsNameTheFieldPath) {
  struct Case {
    const char* json;
    const char* message;
  };
  const Case cases[] = {
      {R"({"tables": [{}, {}, {"rows": "ten"}]})",
       "tables[2].rows: expected an integer, got \"ten\""},
      {R"({"tables": [{"rows": 2.5}]})", "tables[0].rows: expected an integer, got 2.5"},
      {R"({"tables": [{"dim": 3000000000}]})",
       "tables[0].dim: 3000000000 is out of range [-2147483648, 2147483647]"},
      {R"({"tables": [{"rows": "99999999999999999999"}]})", "tables[0].rows: "},
      {R"({"tables": [{"name": 7}]})", "tables[0].name: expected a string, got 7"},
      {R"({"tables": [{"pooling_factor": true}]})",
       "tables[0].pooling_factor: expected a number, got true"},
      {R"({"tables": [{"access_bins": 0.5}]})", "tables[0].access_bins: expected an array"},
      {R"({"tables": [{"access_bins": [0.5, "x"]}]})",
       "tables[0].access_bins[1]: expected a number, got \"x\""},
      {R"({"tables": [{"element_type": "FP64"}]})",
       "tables[0].element_type: unknown ElementType \"FP64\" (expected one of "
       "ELEMENT_TYPE_UNSPECIFIED, FP32, FP16, INT8, BF16, UINT8, NFP8)"},
      {R"({"tables": [{"element_type": 9}]})", "tables[0].element_type: unknown ElementType 9"},
      {R"({"tables": [{"allowed_sharding_types": ["SHARDING_TYPE_UNSPECIFIED"]}]})",
       "tables[0].allowed_sharding_types[0]: must be set"},
      {R"({"tables": [{"pool": 1}]})", "tables[0].pool: unknown field (known: name, rows"},
      {R"({"tables": [{"pooling_factor": 1, "poolingFactor": 2}]})",
       // nlohmann keeps keys sorted, so the camelCase spelling comes first.
       "tables[0].pooling_factor: given twice, as \"poolingFactor\" and as \"pooling_factor\""},
      {R"({"tables": {}})", "tables: expected an array, got an object"},
      {R"({"tables": [5]})", "tables[0]: expected an object, got 5"},
      {R"({"topology": {"num_devices": 4, "per_device_memory_gib": [1, 2, 3]}})",
       "topology.per_device_memory_gib: has 3 entries but topology.num_devices is 4"},
      {R"({"topology": {"num_devices": 2}})",
       "topology.device_memory_gib: must be positive, got 0"},
      {R"({"topology": {"numDevices": 1, "deviceMemoryGib": 1, "gpus": 8}})",
       "topology.gpus: unknown field"},
      {R"({"colocate": [{"tables": ["a", 1]}]})",
       "colocate[0].tables[1]: expected a string, got 1"},
      {R"({"colocate": [["a"]]})", "colocate[0]: expected an object, got an array"},
      {R"({"memory": {"adam": 2}})", "memory.adam: unknown field"},
      {R"({"batchSize": []})", "batch_size: expected an integer, got an array"},
      {R"({"task": {}})", "task: unknown field (known: tables, topology"},
      {R"([])", "JSON document: expected an object, got an array"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.json);
    EXPECT_STATUS(ParseTaskJson(c.json), absl::StatusCode::kInvalidArgument, c.message);
  }
}

TEST(TaskJsonTest, SyntaxErrorsDoNotThrow) {
  absl::StatusOr<Task> task = ParseTaskJson(R"({"tables": [)");
  EXPECT_STATUS(task, absl::StatusCode::kInvalidArgument, "invalid JSON: ");
  EXPECT_STATUS(ParseTaskJson(""), absl::StatusCode::kInvalidArgument, "invalid JSON");
}

Plan FullPlan() {
  Plan plan;
  TableSharding a;
  a.table = "a";
  a.sharding_type = ShardingType::kColumnWise;
  a.shards = {Shard{1, 0, 1000, 0, 32}, Shard{2, 0, 1000, 32, 32}};
  TableSharding b;
  b.table = "b";
  b.shards = {Shard{0, 0, int64_t{1} << 40, 0, 4}};
  plan.tables = {a, b};
  DeviceCost d0;
  d0.device = 0;
  d0.memory_bytes = int64_t{1} << 42;
  d0.memory_capacity_bytes = int64_t{1} << 43;
  d0.dim_sum = 4;
  d0.num_shards = 1;
  d0.compute_ms = 1.25;
  d0.forward_comm_ms = 0.1;
  d0.backward_comm_ms = 0.2;
  d0.total_ms = 1.55;
  plan.devices = {d0};
  plan.cost_ms = 1.55;
  plan.bottleneck_device = 0;
  plan.algorithm = "neuroshard";
  plan.parameters = {{"beam_width", "4"}, {"max_splits", "2"}};
  plan.seed = 18446744073709551615ull;
  plan.cost_model = "analytic@1";
  plan.cost_kind = "simulated";
  plan.stats.column_splits = {"a"};
  plan.stats.planning_time_ms = 12.5;
  plan.stats.cost_model_calls = 100;
  plan.stats.cost_cache_hits = 40;
  plan.stats.cost_cache_misses = 60;
  plan.stats.candidates_evaluated = 7;
  plan.stats.anytime_result = true;
  return plan;
}

void ExpectSamePlan(const Plan& got, const Plan& want) {
  ASSERT_EQ(got.tables.size(), want.tables.size());
  for (size_t k = 0; k < want.tables.size(); ++k) {
    EXPECT_EQ(got.tables[k].table, want.tables[k].table);
    EXPECT_EQ(got.tables[k].sharding_type, want.tables[k].sharding_type);
    ASSERT_EQ(got.tables[k].shards.size(), want.tables[k].shards.size());
    for (size_t s = 0; s < want.tables[k].shards.size(); ++s) {
      const Shard& g = got.tables[k].shards[s];
      const Shard& w = want.tables[k].shards[s];
      EXPECT_EQ(g.device, w.device);
      EXPECT_EQ(g.row_offset, w.row_offset);
      EXPECT_EQ(g.row_count, w.row_count);
      EXPECT_EQ(g.column_offset, w.column_offset);
      EXPECT_EQ(g.column_count, w.column_count);
    }
  }
  ASSERT_EQ(got.devices.size(), want.devices.size());
  for (size_t d = 0; d < want.devices.size(); ++d) {
    const DeviceCost& g = got.devices[d];
    const DeviceCost& w = want.devices[d];
    EXPECT_EQ(g.device, w.device);
    EXPECT_EQ(g.memory_bytes, w.memory_bytes);
    EXPECT_EQ(g.memory_capacity_bytes, w.memory_capacity_bytes);
    EXPECT_EQ(g.dim_sum, w.dim_sum);
    EXPECT_EQ(g.num_shards, w.num_shards);
    EXPECT_EQ(g.compute_ms, w.compute_ms);
    EXPECT_EQ(g.forward_comm_ms, w.forward_comm_ms);
    EXPECT_EQ(g.backward_comm_ms, w.backward_comm_ms);
    EXPECT_EQ(g.total_ms, w.total_ms);
  }
  EXPECT_EQ(got.cost_ms, want.cost_ms);
  EXPECT_EQ(got.bottleneck_device, want.bottleneck_device);
  EXPECT_EQ(got.algorithm, want.algorithm);
  EXPECT_EQ(got.parameters, want.parameters);
  EXPECT_EQ(got.seed, want.seed);
  EXPECT_EQ(got.cost_model, want.cost_model);
  EXPECT_EQ(got.cost_kind, want.cost_kind);
  EXPECT_EQ(got.stats.column_splits, want.stats.column_splits);
  EXPECT_EQ(got.stats.planning_time_ms, want.stats.planning_time_ms);
  EXPECT_EQ(got.stats.cost_model_calls, want.stats.cost_model_calls);
  EXPECT_EQ(got.stats.cost_cache_hits, want.stats.cost_cache_hits);
  EXPECT_EQ(got.stats.cost_cache_misses, want.stats.cost_cache_misses);
  EXPECT_EQ(got.stats.candidates_evaluated, want.stats.candidates_evaluated);
  EXPECT_EQ(got.stats.anytime_result, want.stats.anytime_result);
}

TEST(PlanJsonTest, RoundTrip) {
  const Plan plan = FullPlan();
  const json written = PlanToJson(plan);
  absl::StatusOr<Plan> read = PlanFromJson(written);
  ASSERT_TRUE(read.ok()) << read.status();
  ExpectSamePlan(*read, plan);
  absl::StatusOr<Plan> reparsed = PlanFromJson(json::parse(written.dump()));
  ASSERT_TRUE(reparsed.ok()) << reparsed.status();
  ExpectSamePlan(*reparsed, plan);
}

TEST(PlanJsonTest, WritesTheProtoShape) {
  const json written = PlanToJson(FullPlan());
  EXPECT_EQ(written["tables"][0]["sharding_type"], "COLUMN_WISE");
  EXPECT_EQ(written["tables"][0]["shards"][1],
            json::parse(R"({"device": 2, "row_offset": "0", "row_count": "1000",
                            "column_offset": 32, "column_count": 32})"));
  EXPECT_EQ(written["devices"][0]["memory_bytes"], "4398046511104");
  EXPECT_EQ(written["parameters"], json::parse(R"({"beam_width": "4", "max_splits": "2"})"));
  EXPECT_EQ(written["seed"], "18446744073709551615");
  EXPECT_EQ(written["cost_kind"], "simulated");
  EXPECT_EQ(written["stats"]["anytime_result"], true);
  for (const char* key :
       {"tables", "devices", "cost_ms", "bottleneck_device", "algorithm", "parameters", "seed",
        "cost_model", "cost_kind", "column_splits", "stats"}) {
    EXPECT_TRUE(written.contains(key)) << key;
  }
}

TEST(PlanJsonTest, NonFiniteNumbersUseProtoSpellings) {
  Plan plan = FullPlan();
  plan.cost_ms = std::numeric_limits<double>::infinity();
  plan.devices[0].compute_ms = std::nan("");
  const json written = PlanToJson(plan);
  EXPECT_EQ(written["cost_ms"], "Infinity");
  EXPECT_EQ(written["devices"][0]["compute_ms"], "NaN");
  absl::StatusOr<Plan> read = PlanFromJson(written);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_TRUE(std::isinf(read->cost_ms));
  EXPECT_TRUE(std::isnan(read->devices[0].compute_ms));
}

TEST(PlanJsonTest, ParsesCamelCaseAndStrings) {
  absl::StatusOr<Plan> plan = PlanFromJson(json::parse(R"({
    "tables": [{"table": "t", "shardingType": "TABLE_WISE",
                "shards": [{"device": 1, "rowCount": "100", "columnCount": 8}]}],
    "seed": "42", "costMs": "2.5", "bottleneckDevice": 1,
    "stats": {"candidatesEvaluated": "3", "anytimeResult": true}
  })"));
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->tables.size(), 1u);
  EXPECT_EQ(plan->tables[0].sharding_type, ShardingType::kTableWise);
  EXPECT_EQ(plan->tables[0].shards[0].device, 1);
  EXPECT_EQ(plan->tables[0].shards[0].row_count, 100);
  EXPECT_EQ(plan->tables[0].shards[0].row_offset, 0);
  EXPECT_EQ(plan->seed, 42u);
  EXPECT_EQ(plan->cost_ms, 2.5);
  EXPECT_EQ(plan->stats.candidates_evaluated, 3);
  EXPECT_TRUE(plan->stats.anytime_result);
  EXPECT_EQ(plan->cost_kind, "");  // the proto default when absent
}

TEST(PlanJsonTest, ErrorsNameTheFieldPath) {
  struct Case {
    const char* json;
    const char* message;
  };
  const Case cases[] = {
      {R"({"tables": [{"table": "t", "shards": []}]})",
       "tables[0].sharding_type: must be set (SHARDING_TYPE_UNSPECIFIED is not a sharding type)"},
      {R"({"tables": [{"table": "t", "sharding_type": "SIDEWAYS"}]})",
       "tables[0].sharding_type: unknown ShardingType \"SIDEWAYS\""},
      {R"({"tables": [{"table": "t", "sharding_type": 1, "shards": [{"device": "x"}]}]})",
       "tables[0].shards[0].device: expected an integer, got \"x\""},
      {R"({"tables": [{"table": "t", "sharding_type": 1, "shards": [{"rows": 1}]}]})",
       "tables[0].shards[0].rows: unknown field"},
      {R"({"parameters": {"beam_width": 4}})", "parameters.beam_width: expected a string, got 4"},
      {R"({"parameters": []})", "parameters: expected an object"},
      {R"({"seed": -1})", "seed: must not be negative, got -1"},
      {R"({"seed": "x"})", "seed: expected an unsigned integer, got \"x\""},
      {R"({"stats": {"anytime_result": 1}})", "stats.anytime_result: expected true or false"},
      {R"({"devices": [{"total": 1}]})", "devices[0].total: unknown field"},
      {R"({"plan": {}})", "plan: unknown field"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.json);
    EXPECT_STATUS(PlanFromJson(json::parse(c.json)), absl::StatusCode::kInvalidArgument, c.message);
  }
}


}  // namespace
}  // namespace shardplan
