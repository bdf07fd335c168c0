#include "server/proto_conversion.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/server/server_test_util.h"

namespace shardplan {
namespace {

using server_test::kGiB;
using server_test::SmallTaskProto;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(TaskFromProtoTest, ConvertsEveryField) {
  v1::Task proto = SmallTaskProto(2, 3);
  v1::Table* t0 = proto.mutable_tables(0);
  for (int i = 0; i < 17; ++i) t0->add_access_bins(i == 0 ? 1.0 : 0.0);
  t0->set_element_type(v1::FP16);
  t0->add_allowed_sharding_types(v1::TABLE_WISE);
  t0->set_pinned_device(2);
  proto.mutable_topology()->set_devices_per_host(2);
  proto.mutable_topology()->set_inter_host_bandwidth_gibps(25);
  proto.set_batch_size(4096);
  proto.add_colocate()->add_tables("t0");
  proto.mutable_colocate(0)->add_tables("t1");
  proto.mutable_memory()->set_optimizer_state_multiplier(2);
  proto.set_max_planning_time_ms(1500);

  absl::StatusOr<Task> task = TaskFromProto(proto, TaskLimits{});
  ASSERT_TRUE(task.ok()) << task.status();
  ASSERT_EQ(task->tables.size(), 2u);
  const Table& table = task->tables[0];
  EXPECT_EQ(table.name, "t0");
  EXPECT_EQ(table.rows, 1000);
  EXPECT_EQ(table.dim, 8);
  EXPECT_EQ(table.access_bins.size(), 17u);
  EXPECT_EQ(table.element_type, ElementType::kFp16);
  EXPECT_EQ(table.allowed_sharding_types, std::vector<ShardingType>{ShardingType::kTableWise});
  EXPECT_EQ(table.pinned_device, 2);
  EXPECT_FALSE(task->tables[1].pinned_device.has_value());
  EXPECT_EQ(task->topology.num_devices(), 3);
  EXPECT_EQ(task->topology.memory_bytes[0], 16 * kGiB);
  EXPECT_EQ(task->topology.devices_per_host, 2);
  EXPECT_EQ(task->topology.inter_host_bandwidth_gibps, 25);
  EXPECT_EQ(task->topology.intra_host_bandwidth_gibps, kDefaultIntraHostBandwidthGiBps);
  EXPECT_EQ(task->batch_size, 4096);
  EXPECT_EQ(task->colocate, (std::vector<std::vector<std::string>>{{"t0", "t1"}}));
  EXPECT_EQ(task->memory.optimizer_state_multiplier, 2);
  EXPECT_EQ(task->max_planning_time_ms, 1500);
}

TEST(TaskFromProtoTest, DefaultsApply) {
  absl::StatusOr<Task> task = TaskFromProto(SmallTaskProto(), TaskLimits{});
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_EQ(task->batch_size, kDefaultBatchSize);
  EXPECT_EQ(task->tables[0].element_type, ElementType::kFp32);
}

TEST(TaskFromProtoTest, HeterogeneousCapacities) {
  v1::Task proto = SmallTaskProto(2, 0);
  proto.mutable_topology()->add_per_device_memory_gib(8);
  proto.mutable_topology()->add_per_device_memory_gib(16);
  absl::StatusOr<Task> task = TaskFromProto(proto, TaskLimits{});
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_EQ(task->topology.memory_bytes, (std::vector<int64_t>{8 * kGiB, 16 * kGiB}));
}

TEST(TaskFromProtoTest, ErrorsNameTheField) {
  {
    v1::Task proto = SmallTaskProto(3, 2);
    proto.mutable_tables(2)->set_element_type(static_cast<v1::ElementType>(77));
    absl::Status status = TaskFromProto(proto, TaskLimits{}).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(status.message()), StartsWith("task.tables[2].element_type: "));
  }
  {
    v1::Task proto = SmallTaskProto(3, 2);
    proto.mutable_tables(1)->add_allowed_sharding_types(v1::COLUMN_WISE);
    proto.mutable_tables(1)->add_allowed_sharding_types(v1::SHARDING_TYPE_UNSPECIFIED);
    absl::Status status = TaskFromProto(proto, TaskLimits{}).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(status.message()),
                StartsWith("task.tables[1].allowed_sharding_types[1]: "));
  }
  {
    v1::Task proto = SmallTaskProto(3, 2);
    proto.mutable_topology()->add_per_device_memory_gib(8);  // 1 entry for 2 devices
    absl::Status status = TaskFromProto(proto, TaskLimits{}).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(status.message()), StartsWith("task.topology.per_device_memory_gib"));
  }
  {
    v1::Task proto = SmallTaskProto(3, 2);
    proto.mutable_topology()->set_device_memory_gib(-1);
    absl::Status status = TaskFromProto(proto, TaskLimits{}).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(status.message()), StartsWith("task.topology.device_memory_gib: "));
  }
  {
    v1::Task proto = SmallTaskProto(3, 2);
    proto.mutable_memory()->set_io_buffer_multiplier(-0.5);
    absl::Status status = TaskFromProto(proto, TaskLimits{}).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(status.message()), StartsWith("task.memory.io_buffer_multiplier: "));
  }
  {
    v1::Task proto = SmallTaskProto(3, 2);
    proto.set_max_planning_time_ms(-5);
    absl::Status status = TaskFromProto(proto, TaskLimits{}).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(status.message()), StartsWith("task.max_planning_time_ms: "));
  }
}

TEST(TaskFromProtoTest, LimitsAreCheckedBeforeAllocating) {
  TaskLimits limits;
  limits.max_tables = 3;
  limits.max_devices = 8;
  absl::Status tables = TaskFromProto(SmallTaskProto(4, 2), limits).status();
  EXPECT_EQ(tables.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(tables.message()), StartsWith("task.tables: 4 tables exceed"));

  v1::Task huge = SmallTaskProto(2, 2);
  huge.mutable_topology()->set_num_devices(2000000000);  // would be 16 GB of capacities
  absl::Status devices = TaskFromProto(huge, limits).status();
  EXPECT_EQ(devices.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(devices.message()), StartsWith("task.topology.num_devices: "));
}

TEST(PlanningRequestFromProtoTest, CopiesEveryField) {
  v1::PlanRequest proto;
  *proto.mutable_task() = SmallTaskProto(2, 3);
  proto.set_algorithm("random");
  (*proto.mutable_parameters())["respect_memory"] = "false";
  proto.set_seed(42);
  proto.set_model("analytic@1");
  proto.set_bypass_cache(true);

  absl::StatusOr<PlanningRequest> request = PlanningRequestFromProto(proto, TaskLimits{});
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ(request->task.tables.size(), 2u);
  EXPECT_EQ(request->task.topology.num_devices(), 3);
  EXPECT_EQ(request->algorithm, "random");
  EXPECT_EQ(request->params, (std::map<std::string, std::string>{{"respect_memory", "false"}}));
  EXPECT_EQ(request->seed, 42u);
  EXPECT_EQ(request->model, "analytic@1");
  EXPECT_TRUE(request->bypass_cache);
}

TEST(PlanningRequestFromProtoTest, TaskErrorsPassThrough) {
  v1::PlanRequest proto;
  *proto.mutable_task() = SmallTaskProto(2, 3);
  TaskLimits limits;
  limits.max_tables = 1;
  absl::StatusOr<PlanningRequest> request = PlanningRequestFromProto(proto, limits);
  EXPECT_EQ(request.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(request.status().message()), StartsWith("task.tables: "));
}

TEST(PlanShardsFromProtoTest, ReadsShardsOnly) {
  v1::Plan proto;
  v1::TableSharding* table = proto.add_tables();
  table->set_table("t0");
  table->set_sharding_type(v1::COLUMN_WISE);
  for (int i = 0; i < 2; ++i) {
    v1::Shard* shard = table->add_shards();
    shard->set_device(i);
    shard->set_row_count(1000);
    shard->set_column_offset(4 * i);
    shard->set_column_count(4);
  }
  proto.set_cost_ms(123);  // ignored: figures are recomputed
  absl::StatusOr<Plan> plan = PlanShardsFromProto(proto);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->tables.size(), 1u);
  EXPECT_EQ(plan->tables[0].sharding_type, ShardingType::kColumnWise);
  ASSERT_EQ(plan->tables[0].shards.size(), 2u);
  EXPECT_EQ(plan->tables[0].shards[1].device, 1);
  EXPECT_EQ(plan->tables[0].shards[1].column_offset, 4);
  EXPECT_EQ(plan->cost_ms, 0);
}

TEST(PlanShardsFromProtoTest, ErrorsNameTheField) {
  v1::Plan proto;
  proto.add_tables()->set_table("t0");
  absl::Status status = PlanShardsFromProto(proto).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), StartsWith("plan.tables[0].sharding_type: "));

  proto.mutable_tables(0)->set_sharding_type(v1::TABLE_WISE);
  status = PlanShardsFromProto(proto).status();
  EXPECT_THAT(std::string(status.message()), StartsWith("plan.tables[0].shards: "));
}

TEST(PlanToProtoTest, CopiesEveryFigure) {
  Plan plan;
  plan.tables.push_back({"t0", ShardingType::kTableWise, {Shard{1, 0, 10, 0, 8}}});
  plan.devices.push_back(DeviceCost{0, 1, 2, 3, 4, 5.0, 6.0, 7.0, 18.0});
  plan.cost_ms = 18;
  plan.bottleneck_device = 0;
  plan.algorithm = "size_greedy";
  plan.parameters = {{"a", "1"}};
  plan.seed = 99;
  plan.cost_model = "analytic@1";
  plan.stats.column_splits = {"t0"};
  plan.stats.candidates_evaluated = 12;
  plan.stats.anytime_result = true;
  plan.request_hash = "abc";
  v1::Plan proto;
  PlanToProto(plan, &proto);
  ASSERT_EQ(proto.tables_size(), 1);
  EXPECT_EQ(proto.tables(0).sharding_type(), v1::TABLE_WISE);
  EXPECT_EQ(proto.tables(0).shards(0).device(), 1);
  EXPECT_EQ(proto.tables(0).shards(0).row_count(), 10);
  EXPECT_EQ(proto.devices(0).compute_ms(), 5.0);
  EXPECT_EQ(proto.devices(0).total_ms(), 18.0);
  EXPECT_EQ(proto.cost_ms(), 18);
  EXPECT_EQ(proto.parameters().at("a"), "1");
  EXPECT_EQ(proto.seed(), 99u);
  EXPECT_EQ(proto.cost_model(), "analytic@1");
  EXPECT_EQ(proto.cost_kind(), "simulated");
  EXPECT_EQ(proto.column_splits(0), "t0");
  EXPECT_EQ(proto.stats().candidates_evaluated(), 12);
  EXPECT_TRUE(proto.stats().anytime_result());
  EXPECT_EQ(proto.request_hash(), "abc");

  // And back: the shards survive the round trip.
  absl::StatusOr<Plan> back = PlanShardsFromProto(proto);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->tables[0].shards[0].row_count, 10);
}

TEST(AlgorithmInfoToProtoTest, FormatsBoundsByType) {
  AlgorithmInfo info;
  info.name = "exhaustive";
  info.params.push_back(
      ParamSpec{"max_placements", ParamType::kInt, "1000000", "d", 1.0, 100000000.0});
  info.params.push_back(ParamSpec{"alpha", ParamType::kDouble, "0.5", "d", 0.1, std::nullopt});
  info.sharding_types = {ShardingType::kTableWise};
  v1::AlgorithmInfo proto;
  AlgorithmInfoToProto(info, true, &proto);
  EXPECT_EQ(proto.parameters(0).type(), "int");
  EXPECT_EQ(proto.parameters(0).min_value(), "1");
  EXPECT_EQ(proto.parameters(0).max_value(), "100000000");
  EXPECT_EQ(proto.parameters(1).type(), "double");
  EXPECT_EQ(proto.parameters(1).min_value(), "0.1");
  EXPECT_EQ(proto.parameters(1).max_value(), "");
  EXPECT_TRUE(proto.is_default());
  EXPECT_EQ(proto.sharding_types(0), v1::TABLE_WISE);
}

TEST(JobSnapshotToProtoTest, CarriesStateErrorAndTimes) {
  JobSnapshot job;
  job.id = "abc";
  job.state = JobState::kFailed;
  job.error = absl::FailedPreconditionError("table t1 fits nowhere");
  job.progress = "failed";
  job.submitted_unix_ms = 1;
  job.started_unix_ms = 2;
  job.finished_unix_ms = 3;
  v1::JobStatus proto;
  JobSnapshotToProto(job, &proto);
  EXPECT_EQ(proto.job_id(), "abc");
  EXPECT_EQ(proto.state(), v1::FAILED);
  EXPECT_EQ(proto.error_code(), static_cast<int>(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(proto.error_message(), HasSubstr("t1"));
  EXPECT_FALSE(proto.has_result());
  EXPECT_EQ(proto.finished_unix_ms(), 3);

  JobSnapshot done;
  done.state = JobState::kSucceeded;
  auto result = std::make_shared<PlanningResult>();
  result->plan.algorithm = "x";
  result->cache_hit = true;
  done.result = result;
  JobSnapshotToProto(done, &proto);
  EXPECT_EQ(proto.state(), v1::SUCCEEDED);
  EXPECT_EQ(proto.result().plan().algorithm(), "x");
  EXPECT_TRUE(proto.result().cache_hit());
}

}  // namespace
}  // namespace shardplan
