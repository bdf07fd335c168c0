#include "wire/task_proto.h"

#include <cmath>
#include <functional>
#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/domain/validation.h"
#include "tests/unit/support/proto_fields.h"
#include "tests/unit/support/task_protos.h"

namespace shardplan::wire {
namespace {

using test_support::SmallTaskProto;

constexpr int64_t kGiB = int64_t{1} << 30;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// Every element type of the API reaches the domain and comes back under its own name, with the
// size of TorchRec's type of that name.
TEST(TaskFromProtoTest, EveryElementTypeRoundTripsWithItsSize) {
  const std::map<std::string, int> bytes = {{"FP32", 4}, {"FP16", 2}, {"INT8", 1},
                                            {"BF16", 2}, {"UINT8", 1}, {"NFP8", 1}};
  const google::protobuf::EnumDescriptor& types = *v1::ElementType_descriptor();
  for (int i = 0; i < types.value_count(); ++i) {
    const google::protobuf::EnumValueDescriptor& value = *types.value(i);
    if (value.number() == v1::ELEMENT_TYPE_UNSPECIFIED) continue;
    SCOPED_TRACE(value.name());
    v1::Task proto = SmallTaskProto(1, 2);
    proto.mutable_tables(0)->set_element_type(static_cast<v1::ElementType>(value.number()));
    absl::StatusOr<Task> task = TaskFromProto(proto, TaskLimits{});
    ASSERT_TRUE(task.ok()) << task.status();
    EXPECT_EQ(ElementTypeName(task->tables[0].element_type), value.name());
    ASSERT_TRUE(bytes.count(value.name())) << "a new element type needs its size here";
    EXPECT_EQ(ElementBytes(task->tables[0].element_type), bytes.at(value.name()));
    EXPECT_EQ(TaskToProto(*task).tables(0).element_type(), value.number());
  }
}

TEST(TaskFromProtoTest, ConvertsEveryField) {
  v1::Task proto = SmallTaskProto(2, 3);
  v1::Table* t0 = proto.mutable_tables(0);
  for (int i = 0; i < 17; ++i) t0->add_access_bins(i == 0 ? 1.0 : 0.0);
  t0->set_element_type(v1::FP16);
  t0->add_allowed_sharding_types(v1::TABLE_WISE);
  t0->set_pinned_device(2);
  proto.mutable_topology()->set_devices_per_host(2);
  proto.mutable_topology()->set_inter_host_bandwidth_gibps(25);
  proto.mutable_topology()->set_hardware("rtx2080ti");
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
  EXPECT_EQ(task->topology.hardware, "rtx2080ti");
  EXPECT_EQ(TaskToProto(*task).topology().hardware(), "rtx2080ti");
  EXPECT_EQ(task->batch_size, 4096);
  EXPECT_EQ(task->colocate, (std::vector<std::vector<std::string>>{{"t0", "t1"}}));
  EXPECT_EQ(task->memory.optimizer_state_multiplier, 2);
  EXPECT_EQ(task->max_planning_time_ms, 1500);
}
TEST(TaskFromProtoTest, TorchRecsMemoryAccountingReservesStorageAndRoundTrips) {
  v1::Task proto = SmallTaskProto(2, 2);  // 16 GiB devices
  proto.mutable_memory()->set_storage_reservation(0.15);
  proto.mutable_memory()->set_optimizer(v1::ROWWISE_ADAGRAD);
  absl::StatusOr<Task> task = TaskFromProto(proto, TaskLimits{});
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_EQ(task->memory.storage_reservation, 0.15);
  EXPECT_EQ(task->memory.optimizer, Optimizer::kRowwiseAdagrad);
  // Plans use 85% of each device; the named capacity is kept for the round trip.
  EXPECT_EQ(task->topology.memory_bytes[0], static_cast<int64_t>(0.85 * 16 * kGiB));
  EXPECT_EQ(task->topology.named_memory_bytes()[0], 16 * kGiB);
  const v1::Task written = TaskToProto(*task);
  EXPECT_EQ(written.topology().device_memory_gib(), 16);
  EXPECT_EQ(written.memory().storage_reservation(), 0.15);
  EXPECT_EQ(written.memory().optimizer(), v1::ROWWISE_ADAGRAD);
  absl::StatusOr<Task> again = TaskFromProto(written, TaskLimits{});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->topology.memory_bytes, task->topology.memory_bytes);

  for (double bad : {1.0, -0.1, std::nan("")}) {  // ValidateTask refuses them
    v1::Task refused = proto;
    refused.mutable_memory()->set_storage_reservation(bad);
    absl::StatusOr<Task> kept = TaskFromProto(refused, TaskLimits{});
    ASSERT_TRUE(kept.ok()) << kept.status();
    EXPECT_EQ(kept->topology.memory_bytes[0], 16 * kGiB);
    EXPECT_THAT(std::string(ValidateTask(*kept).message()),
                StartsWith("memory.storage_reservation: must be a fraction in [0, 1)"));
  }
  v1::Task unknown = proto;
  unknown.mutable_memory()->set_optimizer(static_cast<v1::Optimizer>(9));
  absl::Status status = TaskFromProto(unknown, TaskLimits{}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), StartsWith("task.memory.optimizer: unknown"));
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
TEST(TaskFromProtoTest, AccessProfilesPoolingObjectiveAndBudget) {
  v1::Task proto = SmallTaskProto(2, 2);
  v1::AccessProfile* zipf = proto.mutable_tables(0)->mutable_access_profile();
  zipf->mutable_zipf()->set_exponent(1.0);
  zipf->mutable_zipf()->set_uniform_share(0.1);
  zipf->mutable_zipf()->set_active_rows(500);
  zipf->set_rows_in_rank_order(true);
  proto.mutable_tables(0)->set_pooling(v1::SEQUENCE);
  v1::AccessProfile::TopK* top_k =
      proto.mutable_tables(1)->mutable_access_profile()->mutable_top_k();
  top_k->add_top_counts(9);
  top_k->add_top_counts(4);
  top_k->set_tail_count(3);
  top_k->add_top_ids(17);
  top_k->add_top_ids(2);
  proto.set_objective(v1::INFERENCE);
  proto.mutable_replication_budget()->set_extra_gib_per_device(-0.5);

  absl::StatusOr<Task> task = TaskFromProto(proto, TaskLimits{});
  ASSERT_TRUE(task.ok()) << task.status();
  const Table& first = task->tables[0];
  ASSERT_TRUE(first.access_profile.zipf.has_value());
  EXPECT_EQ(first.access_profile.zipf->exponent, 1.0);
  EXPECT_EQ(first.access_profile.zipf->uniform_share, 0.1);
  EXPECT_EQ(first.access_profile.zipf->active_rows, 500);
  EXPECT_TRUE(first.access_profile.rows_in_rank_order);
  EXPECT_EQ(first.pooling, Pooling::kSequence);
  ASSERT_TRUE(task->tables[1].access_profile.top_k.has_value());
  EXPECT_EQ(task->tables[1].access_profile.top_k->top_counts, (std::vector<double>{9, 4}));
  EXPECT_EQ(task->tables[1].access_profile.top_k->tail_count, 3);
  EXPECT_EQ(task->tables[1].access_profile.top_k->top_ids, (std::vector<int64_t>{17, 2}));
  EXPECT_EQ(TaskToProto(*task).tables(1).access_profile().top_k().top_ids_size(), 2);
  EXPECT_EQ(task->tables[1].pooling, Pooling::kSum);
  EXPECT_EQ(task->objective, Objective::kInference);
  EXPECT_EQ(task->replication_budget.extra_bytes_per_device, -kGiB / 2);
  EXPECT_TRUE(ValidateTask(*task).ok());

  // A task that uses none of them writes none: its bytes, and so its cache key, are unchanged.
  absl::StatusOr<Task> plain = TaskFromProto(SmallTaskProto(2, 2), TaskLimits{});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(TaskToProto(*plain).SerializeAsString(),
            TaskToProto(*TaskFromProto(TaskToProto(*plain), TaskLimits{})).SerializeAsString());
  EXPECT_FALSE(TaskToProto(*plain).tables(0).has_access_profile());
  EXPECT_FALSE(TaskToProto(*plain).has_replication_budget());
  EXPECT_EQ(TaskToProto(*plain).objective(), v1::OBJECTIVE_UNSPECIFIED);
  EXPECT_EQ(TaskToProto(*plain).tables(0).pooling(), v1::POOLING_UNSPECIFIED);
}

TEST(TaskFromProtoTest, ProfileAndBudgetErrorsNameTheField) {
  v1::Task proto = SmallTaskProto(2, 2);
  proto.mutable_tables(1)->mutable_access_profile()->mutable_zipf()->set_exponent(-1);
  absl::StatusOr<Task> task = TaskFromProto(proto, TaskLimits{});
  ASSERT_TRUE(task.ok());
  EXPECT_THAT(std::string(ValidateTask(*task).message()),
              StartsWith("tables[1].access_profile.zipf.exponent: must be in [0, 3]"));

  proto = SmallTaskProto(2, 2);
  proto.mutable_replication_budget()->set_capacity_fraction(1.5);
  task = TaskFromProto(proto, TaskLimits{});
  ASSERT_TRUE(task.ok());
  EXPECT_THAT(std::string(ValidateTask(*task).message()),
              StartsWith("replication_budget.capacity_fraction: must be a fraction in [0, 1]"));

  proto = SmallTaskProto(2, 2);
  proto.mutable_replication_budget()->set_extra_gib_per_device(std::nan(""));
  EXPECT_THAT(std::string(TaskFromProto(proto, TaskLimits{}).status().message()),
              StartsWith("task.replication_budget.extra_gib_per_device: must be a finite"));

  proto = SmallTaskProto(2, 2);
  proto.mutable_tables(0)->set_pooling(static_cast<v1::Pooling>(9));
  EXPECT_THAT(std::string(TaskFromProto(proto, TaskLimits{}).status().message()),
              StartsWith("task.tables[0].pooling: unknown Pooling 9"));
  proto = SmallTaskProto(2, 2);
  proto.set_objective(static_cast<v1::Objective>(9));
  EXPECT_THAT(std::string(TaskFromProto(proto, TaskLimits{}).status().message()),
              StartsWith("task.objective: unknown Objective 9"));
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
TEST(TaskFromProtoTest, PhysicalFiguresMustBePlausible) {
  const auto error = [](const std::function<void(v1::Topology&)>& set) {
    v1::Task proto = SmallTaskProto(3, 2);
    set(*proto.mutable_topology());
    return TaskFromProto(proto, TaskLimits{}).status();
  };
  // Finite and positive, yet no link: its costs came out as 3.9e301 ms.
  absl::Status status = error([](v1::Topology& t) { t.set_inter_host_bandwidth_gibps(1e-300); });
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "task.topology.inter_host_bandwidth_gibps: 1e-300 GiB/s is not a plausible value "
            "(0.000976562 to 100000 GiB/s)");
  EXPECT_THAT(
      std::string(error([](v1::Topology& t) { t.set_intra_host_bandwidth_gibps(1e9); }).message()),
      StartsWith("task.topology.intra_host_bandwidth_gibps: 1e+09 GiB/s"));
  EXPECT_THAT(
      std::string(error([](v1::Topology& t) { t.set_all_reduce_bandwidth_gibps(1e-6); }).message()),
      StartsWith("task.topology.all_reduce_bandwidth_gibps: "));
  EXPECT_THAT(
      std::string(error([](v1::Topology& t) { t.set_device_memory_gib(1e-300); }).message()),
      StartsWith("task.topology.device_memory_gib: 1e-300 GiB is not a plausible value"));
  EXPECT_THAT(std::string(error([](v1::Topology& t) {
                            t.add_per_device_memory_gib(16);
                            t.add_per_device_memory_gib(1e7);
                          }).message()),
              StartsWith("task.topology.per_device_memory_gib[1]: 1e+07 GiB"));
  // Zero bandwidths are the defaults; real clusters pass.
  EXPECT_TRUE(error([](v1::Topology& t) {
                t.set_intra_host_bandwidth_gibps(0);
                t.set_inter_host_bandwidth_gibps(12.5);
                t.set_device_memory_gib(80);
              }).ok());
}

TEST(TaskFromProtoTest, FetchCostsConvertAndMustBePlausible) {
  v1::Task proto = SmallTaskProto(3, 2);
  proto.mutable_topology()->set_intra_host_latency_us(1.5);
  proto.mutable_topology()->set_inter_host_latency_us(6);
  for (const double cost : {0.0, 2.0, 3.0, 0.0}) proto.mutable_topology()->add_fetch_cost_us(cost);
  absl::StatusOr<Task> task = TaskFromProto(proto, TaskLimits{});
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_EQ(task->topology.intra_host_latency_us, 1.5);
  EXPECT_EQ(task->topology.inter_host_latency_us, 6);
  EXPECT_THAT(task->topology.fetch_cost_us, ::testing::ElementsAre(0, 2, 3, 0));

  proto.mutable_topology()->set_fetch_cost_us(2, 1e9);
  EXPECT_THAT(std::string(TaskFromProto(proto, TaskLimits{}).status().message()),
              StartsWith("task.topology.fetch_cost_us[2]: 1e+09 us is not a plausible value"));
  proto.mutable_topology()->clear_fetch_cost_us();
  proto.mutable_topology()->set_inter_host_latency_us(2e6);
  EXPECT_THAT(std::string(TaskFromProto(proto, TaskLimits{}).status().message()),
              StartsWith("task.topology.inter_host_latency_us: 2e+06 us"));
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

// Driven by the proto's descriptor: a Task field added to the API and forgotten by the
// conversion fails here by name. Each field in turn gets a non-default value in a valid task.
TEST(TaskFromProtoTest, EveryFieldSurvivesTheDomainAndBack) {
  for (const test_support::FieldPath& path : test_support::LeafFields(*v1::Task::descriptor())) {
    v1::Task proto = SmallTaskProto(2, 2);
    test_support::SetNonDefault(proto, path);
    absl::StatusOr<Task> task = TaskFromProto(proto, TaskLimits{}, "");
    ASSERT_TRUE(task.ok()) << path.name << ": " << task.status();
    EXPECT_EQ(test_support::ValueAt(TaskToProto(*task), path), test_support::ValueAt(proto, path))
        << path.name;
  }
}

}  // namespace
}  // namespace shardplan::wire
