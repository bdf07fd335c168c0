#include "planner/domain/topology.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/domain/memory.h"
#include "planner/domain/plan.h"
#include "planner/domain/table.h"
#include "planner/domain/task.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

using test::kGiB;
using test::MakeTable;
using ::testing::ElementsAre;

TEST(TopologyTest, LocalWorldSizeResolvesZero) {
  Topology topology;
  topology.memory_bytes = {1, 1, 1, 1};
  EXPECT_EQ(topology.local_world_size(), 4);
  EXPECT_TRUE(topology.single_host());
  topology.devices_per_host = 2;
  EXPECT_EQ(topology.local_world_size(), 2);
  EXPECT_FALSE(topology.single_host());
  topology.devices_per_host = 8;
  EXPECT_TRUE(topology.single_host());
}

TEST(MakeTopologyTest, UniformCapacities) {
  absl::StatusOr<Topology> topology = MakeTopology(4, 4.0, {}, 0, 0, 0);
  ASSERT_TRUE(topology.ok()) << topology.status();
  EXPECT_THAT(topology->memory_bytes, ElementsAre(4 * kGiB, 4 * kGiB, 4 * kGiB, 4 * kGiB));
  EXPECT_EQ(topology->devices_per_host, 0);
  EXPECT_EQ(topology->intra_host_bandwidth_gibps, kDefaultIntraHostBandwidthGiBps);
  EXPECT_EQ(topology->inter_host_bandwidth_gibps, kDefaultInterHostBandwidthGiBps);
}

TEST(MakeTopologyTest, PerDeviceCapacitiesOverride) {
  absl::StatusOr<Topology> topology = MakeTopology(3, 16.0, {1.0, 0.5, 2.25}, 2, 100, 10);
  ASSERT_TRUE(topology.ok()) << topology.status();
  EXPECT_THAT(topology->memory_bytes, ElementsAre(kGiB, kGiB / 2, 9 * kGiB / 4));
  EXPECT_EQ(topology->devices_per_host, 2);
  EXPECT_EQ(topology->intra_host_bandwidth_gibps, 100);
  EXPECT_EQ(topology->inter_host_bandwidth_gibps, 10);
}

TEST(MakeTopologyTest, PerDeviceListGivesTheCountWhenNumDevicesIsZero) {
  absl::StatusOr<Topology> topology = MakeTopology(0, 0, {1.0, 2.0}, 0, 0, 0);
  ASSERT_TRUE(topology.ok()) << topology.status();
  EXPECT_EQ(topology->num_devices(), 2);
}

TEST(MakeTopologyTest, NoDevicesIsLeftToValidation) {
  absl::StatusOr<Topology> topology = MakeTopology(0, 0, {}, 0, 0, 0);
  ASSERT_TRUE(topology.ok()) << topology.status();
  EXPECT_EQ(topology->num_devices(), 0);
}

TEST(MakeTopologyTest, RoundsGiBToTheNearestByte) {
  // 2^-31 GiB is half a byte: llround rounds half away from zero.
  absl::StatusOr<Topology> topology = MakeTopology(1, 1.0 + std::ldexp(1.0, -31), {}, 0, 0, 0);
  ASSERT_TRUE(topology.ok()) << topology.status();
  EXPECT_EQ(topology->memory_bytes[0], kGiB + 1);
}

TEST(MakeTopologyTest, CountMismatchNamesBothFields) {
  EXPECT_STATUS(MakeTopology(4, 0, {1, 2, 3}, 0, 0, 0), absl::StatusCode::kInvalidArgument,
                "topology.per_device_memory_gib: has 3 entries but topology.num_devices is 4");
}

TEST(MakeTopologyTest, RejectsBadValuesByField) {
  EXPECT_STATUS(MakeTopology(-1, 4, {}, 0, 0, 0), absl::StatusCode::kInvalidArgument,
                "topology.num_devices: must be at least 1, got -1");
  EXPECT_STATUS(MakeTopology(2, 0, {}, 0, 0, 0), absl::StatusCode::kInvalidArgument,
                "topology.device_memory_gib: must be positive, got 0");
  EXPECT_STATUS(MakeTopology(2, -1, {}, 0, 0, 0), absl::StatusCode::kInvalidArgument,
                "topology.device_memory_gib: must be positive");
  EXPECT_STATUS(MakeTopology(2, std::numeric_limits<double>::infinity(), {}, 0, 0, 0),
                absl::StatusCode::kInvalidArgument, "topology.device_memory_gib: must be finite");
  EXPECT_STATUS(MakeTopology(2, 1e12, {}, 0, 0, 0), absl::StatusCode::kInvalidArgument,
                "topology.device_memory_gib: 1e+12 GiB is too large");
  EXPECT_STATUS(MakeTopology(2, 0, {1.0, std::nan("")}, 0, 0, 0),
                absl::StatusCode::kInvalidArgument,
                "topology.per_device_memory_gib[1]: must be finite");
  EXPECT_STATUS(MakeTopology(2, 1, {}, -1, 0, 0), absl::StatusCode::kInvalidArgument,
                "topology.devices_per_host: must be >= 0");
  EXPECT_STATUS(MakeTopology(2, 1, {}, int64_t{1} << 21, 0, 0), absl::StatusCode::kInvalidArgument,
                "topology.devices_per_host: must be at most 1048576, got 2097152");
  EXPECT_STATUS(MakeTopology(2, 1, {}, 0, -5, 0), absl::StatusCode::kInvalidArgument,
                "topology.intra_host_bandwidth_gibps");
  EXPECT_STATUS(MakeTopology(2, 1, {}, 0, 0, std::nan("")), absl::StatusCode::kInvalidArgument,
                "topology.inter_host_bandwidth_gibps");
}

TEST(MakeTopologyTest, RefusesAbsurdDeviceCountsBeforeAllocating) {
  EXPECT_STATUS(MakeTopology(int64_t{1} << 40, 1, {}, 0, 0, 0),
                absl::StatusCode::kResourceExhausted, "topology.num_devices: 1099511627776");
}

}  // namespace
}  // namespace shardplan
