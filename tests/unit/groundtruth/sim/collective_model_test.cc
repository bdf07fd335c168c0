#include "groundtruth/sim/collective_model.h"

#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/groundtruth/sim/sim_test_tables.h"

namespace shardplan {
namespace {

using sim_test::Hosts;
using sim_test::Profile;
using ::testing::Each;
using ::testing::ElementsAre;

// h100-sxm: NVLink 450 GB/s and a 50 GB/s NIC share per device, at link efficiency 0.70 in the
// all-to-all and 370 / 450 in the rings (the published ~370 GB/s ring bus bandwidth); NCCL's
// ring latencies 8.4 us base, 3.4 us per NVLink step, 9.6 us per network step.
constexpr double kRingEfficiency = 370.0 / 450.0;
constexpr double kNvlink = 450e6 * kRingEfficiency;  // bytes per ms, in a ring
constexpr double kNic = 50e6 * kRingEfficiency;
constexpr double kAllToAllNic = 50e6 * 0.70;
constexpr double kMiB = 1024.0 * 1024.0;

double Ring(Collective collective, const Topology& topology, std::vector<int32_t> group,
            double bytes, const char* profile = "h100-sxm") {
  const HardwareProfile p = Profile(profile);
  return RingCollectiveMs(p, DeviceLinks(p, topology), collective, group, bytes);
}

TEST(SimCollectiveModelTest, RingReduceScatterAndAllGatherInOneHost) {
  // 4 devices, 3 steps over NVLink; each moves 3/4 of the tensor.
  const double expected = (8.4 + 3 * 3.4) * 1e-3 + 0.75 * kMiB / kNvlink;
  EXPECT_NEAR(Ring(Collective::kReduceScatter, Hosts(4), {0, 1, 2, 3}, kMiB), expected, 1e-15);
  EXPECT_NEAR(Ring(Collective::kAllGather, Hosts(4), {0, 1, 2, 3}, kMiB), expected, 1e-15);
}

TEST(SimCollectiveModelTest, RingAllReduceAcrossHostsRunsOneRingPerNic) {
  // 8 devices, 2 hosts of 4: 14 steps, 2 of them across hosts; 4 rings share the 4 NICs of a
  // host, so the bus runs at min(NVLink, 4 x NIC) = 164 GB/s.
  const double expected = (8.4 + 12 * 3.4 + 2 * 9.6) * 1e-3 + 14.0 / 8 * kMiB / (4 * kNic);
  EXPECT_NEAR(Ring(Collective::kAllReduce, Hosts(8, 4), {0, 1, 2, 3, 4, 5, 6, 7}, kMiB), expected,
              1e-15);
}

TEST(SimCollectiveModelTest, AHostWithOneMemberLimitsTheRingToOneNic) {
  // Devices 0-2 on host 0, device 4 alone on host 1: one ring crosses through one NIC.
  const double expected = (8.4 + 2 * 3.4 + 9.6) * 1e-3 + 0.75 * kMiB / kNic;
  EXPECT_NEAR(Ring(Collective::kReduceScatter, Hosts(8, 4), {0, 1, 2, 4}, kMiB), expected, 1e-15);
}

TEST(SimCollectiveModelTest, HostStagedRingsRunOverPcie) {
  // rtx2080ti: PCIe 15.75 GB/s x 0.40, NCCL's PCI step latency 5.7 us; the socket link
  // (38.4 GB/s) is faster than a GPU's PCIe link, so PCIe bounds the ring either way.
  const double pcie = 15.75e6 * 0.40;
  EXPECT_NEAR(Ring(Collective::kAllGather, Hosts(8), {0, 1, 2, 3, 4, 5, 6, 7}, kMiB, "rtx2080ti"),
              (8.4 + 7 * 5.7) * 1e-3 + 7.0 / 8 * kMiB / pcie, 1e-15);
}

TEST(SimCollectiveModelTest, H100RingsReachThePublishedBusBandwidth) {
  // nccl-tests' bus bandwidth of a 4 GiB all-reduce on one host of 8: ~370 GB/s published
  // (docs/simulator.md, "Collectives against published benchmarks").
  const double bytes = 4.0 * 1024 * kMiB;
  const double ms = Ring(Collective::kAllReduce, Hosts(8), {0, 1, 2, 3, 4, 5, 6, 7}, bytes);
  const double busbw_gbps = bytes / (ms * 1e6) * 2 * 7 / 8;
  EXPECT_NEAR(busbw_gbps, 370.0, 370.0 * 0.02);
}

TEST(SimCollectiveModelTest, AGroupOfOneMovesNothing) {
  EXPECT_EQ(Ring(Collective::kAllReduce, Hosts(4), {2}, kMiB), 0.0);
}

CollectiveDemand Demand(Collective collective, Pass pass, ShardingType sharding,
                        std::vector<int32_t> devices, std::vector<int32_t> peers, double bytes) {
  CollectiveDemand demand;
  demand.collective = collective;
  demand.pass = pass;
  demand.sharding = sharding;
  demand.devices = std::move(devices);
  demand.peers = std::move(peers);
  demand.bytes = bytes;
  return demand;
}

TEST(SimCollectiveModelTest, OneCallPerCollectivePassAndGroupChargedToEveryPeer) {
  // Two row-wise tables over the world of 4: one reduce-scatter of both tables' partial sums
  // forward, one all-gather backward. Devices 0 and 3 hold neither table's rows but still get
  // their samples' sums.
  const std::vector<int32_t> world = {0, 1, 2, 3};
  const std::vector<CollectiveDemand> demands = {
      Demand(Collective::kReduceScatter, Pass::kForward, ShardingType::kRowWise, {1, 2}, world,
             kMiB),
      Demand(Collective::kAllGather, Pass::kBackward, ShardingType::kRowWise, {1, 2}, world, kMiB),
      Demand(Collective::kReduceScatter, Pass::kForward, ShardingType::kRowWise, {1, 2}, world,
             3 * kMiB),
      Demand(Collective::kAllGather, Pass::kBackward, ShardingType::kRowWise, {1, 2}, world,
             3 * kMiB)};
  const HardwareProfile p = Profile("h100-sxm");
  const CollectiveCosts costs = SimulateCollectives(p, Hosts(4), demands);
  const double fused = Ring(Collective::kReduceScatter, Hosts(4), world, 4 * kMiB);
  EXPECT_THAT(costs.forward_ms, Each(::testing::DoubleEq(fused)));
  EXPECT_THAT(costs.backward_ms, Each(::testing::DoubleEq(fused)));  // all-gather: same ring
  // Fusing pays the latency once: cheaper than two calls.
  EXPECT_LT(fused, Ring(Collective::kReduceScatter, Hosts(4), world, kMiB) +
                       Ring(Collective::kReduceScatter, Hosts(4), world, 3 * kMiB));
}

TEST(SimCollectiveModelTest, DataParallelAllReduceIsFollowedByTheReplicaUpdate) {
  // A 1 MiB table replicated on 4 devices, its replicas listed out of order.
  const std::vector<CollectiveDemand> demands = {Demand(Collective::kAllReduce, Pass::kBackward,
                                                        ShardingType::kDataParallel, {2, 0, 3, 1},
                                                        {2, 0, 3, 1}, kMiB)};
  const HardwareProfile p = Profile("h100-sxm");
  const CollectiveCosts costs = SimulateCollectives(p, Hosts(4), demands);
  // Zero the gradient, read weights and gradient, write weights: 4 MiB streamed, 2 kernels.
  const double update = 4 * kMiB / (3350e6 * 0.85) + 2 * 3e-3;
  const double expected = Ring(Collective::kAllReduce, Hosts(4), {0, 1, 2, 3}, kMiB) + update;
  EXPECT_THAT(costs.backward_ms, Each(::testing::DoubleNear(expected, 1e-15)));
  EXPECT_THAT(costs.forward_ms, Each(0.0));
}

TEST(SimCollectiveModelTest, CrossHostAllToAllAccountsLinksPerMember) {
  // Table-row-wise on 2 hosts of 2: device 0 exchanges X bytes with device 2 (its local rank on
  // the other host), which puts nothing in: device 0 sends X / 2 over its NIC, each ends with
  // X / 2 to unpack. Devices 1 and 3 are not in the group.
  const double x = 8 * kMiB;
  const std::vector<CollectiveDemand> demands = {
      Demand(Collective::kAllToAll, Pass::kForward, ShardingType::kTableRowWise, {0}, {0, 2}, x)};
  const HardwareProfile p = Profile("h100-sxm");
  const CollectiveCosts costs = SimulateCollectives(p, Hosts(4, 2), demands);
  const double expected = 25e-3 + (x / 2) / kAllToAllNic + 2 * (x / 2) / (3350e6 * 0.85);
  EXPECT_NEAR(costs.forward_ms[0], expected, 1e-15);
  EXPECT_NEAR(costs.forward_ms[2], expected, 1e-15);
  EXPECT_EQ(costs.forward_ms[1], 0.0);
  EXPECT_EQ(costs.forward_ms[3], 0.0);
  EXPECT_THAT(costs.backward_ms, ElementsAre(0.0, 0.0, 0.0, 0.0));
}

TEST(SimCollectiveModelTest, NoDemandsCostNothing) {
  const CollectiveCosts costs = SimulateCollectives(Profile("rtx2080ti"), Hosts(4), {});
  EXPECT_THAT(costs.forward_ms, ElementsAre(0.0, 0.0, 0.0, 0.0));
  EXPECT_THAT(costs.backward_ms, ElementsAre(0.0, 0.0, 0.0, 0.0));
}

}  // namespace
}  // namespace shardplan
