#include "groundtruth/sim/hardware_profiles.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

using ::testing::HasSubstr;

TEST(SimHardwareProfilesTest, KnowsThePapersServerAndAnNvlinkMachine) {
  absl::StatusOr<HardwareProfile> rtx = FindHardwareProfile("rtx2080ti");
  ASSERT_TRUE(rtx.ok()) << rtx.status();
  EXPECT_EQ(rtx->name, "rtx2080ti");
  EXPECT_DOUBLE_EQ(rtx->dram_bandwidth_gbps, 616.0);
  EXPECT_DOUBLE_EQ(rtx->l2_bytes, 5.5 * 1024 * 1024);
  EXPECT_GT(rtx->socket_link_gbps, 0.0);  // no P2P: all-to-all staged through the host

  absl::StatusOr<HardwareProfile> h100 = FindHardwareProfile("h100-sxm");
  ASSERT_TRUE(h100.ok()) << h100.status();
  EXPECT_DOUBLE_EQ(h100->dram_bandwidth_gbps, 3350.0);
  EXPECT_DOUBLE_EQ(h100->l2_bytes, 50.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(h100->intra_link_gbps, 450.0);  // 900 GB/s bidirectional
  EXPECT_EQ(h100->devices_per_host, 8);
}

// FlexShard, OPER and ALIS ran on DGX A100-like hosts: 8x A100 SXM4 40 GB on NVSwitch.
TEST(SimHardwareProfilesTest, KnowsTheA100MachineOfTheLaterPapers) {
  absl::StatusOr<HardwareProfile> a100 = FindHardwareProfile("a100-sxm4");
  ASSERT_TRUE(a100.ok()) << a100.status();
  EXPECT_EQ(a100->num_sms, 108);
  EXPECT_DOUBLE_EQ(a100->dram_bandwidth_gbps, 1555.0);
  EXPECT_DOUBLE_EQ(a100->l2_bytes, 40.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(a100->intra_link_gbps, 300.0);  // NVLink 3: 600 GB/s bidirectional
  EXPECT_DOUBLE_EQ(a100->inter_link_gbps, 25.0);   // 200 Gb/s HDR InfiniBand per GPU
  EXPECT_EQ(a100->devices_per_host, 8);
  EXPECT_EQ(a100->socket_link_gbps, 0.0);  // GPUs talk directly over NVSwitch
}

TEST(SimHardwareProfilesTest, ProfilesAreSortedByName) {
  std::vector<std::string> names;
  for (const HardwareProfile& p : HardwareProfiles()) names.push_back(p.name);
  EXPECT_THAT(names, ::testing::ElementsAre("a100-sxm4", "a100-sxm4-roce", "h100-sxm", "rtx2080ti"));
}

TEST(SimHardwareProfilesTest, EveryProfileIsComplete) {
  ASSERT_GE(HardwareProfiles().size(), 2u);
  for (const HardwareProfile& p : HardwareProfiles()) {
    SCOPED_TRACE(p.name);
    EXPECT_GT(p.num_sms, 0);
    EXPECT_GT(p.sm_clock_ghz, 0.0);
    EXPECT_GT(p.max_warps_per_sm, 0);
    EXPECT_GT(p.dram_bandwidth_gbps, 0.0);
    EXPECT_GT(p.dram_latency_ns, p.l2_latency_ns);
    EXPECT_GT(p.l2_bandwidth_gbps, p.dram_bandwidth_gbps);
    EXPECT_GT(p.intra_link_gbps, 0.0);
    EXPECT_GT(p.inter_link_gbps, 0.0);
    EXPECT_GT(p.devices_per_host, 0);
    EXPECT_GT(p.ring_base_latency_us, 0.0);
    EXPECT_GT(p.intra_hop_latency_us, 0.0);
    EXPECT_GT(p.inter_hop_latency_us, p.intra_hop_latency_us);
    for (double efficiency :
         {p.stream_efficiency, p.sort_efficiency, p.l2_usable_fraction, p.link_efficiency}) {
      EXPECT_GT(efficiency, 0.0);
      EXPECT_LE(efficiency, 1.0);
    }
    EXPECT_GE(p.ring_efficiency, 0.0);  // 0: the link efficiency
    EXPECT_LE(p.ring_efficiency, 1.0);
  }
}

TEST(SimHardwareProfilesTest, UnknownProfileIsNotFoundAndListsTheKnownOnes) {
  absl::StatusOr<HardwareProfile> found = FindHardwareProfile("v100");
  ASSERT_EQ(found.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(found.status().message(), HasSubstr("v100"));
  EXPECT_THAT(found.status().message(), HasSubstr("rtx2080ti"));
  EXPECT_THAT(found.status().message(), HasSubstr("h100-sxm"));
  EXPECT_THAT(found.status().message(), HasSubstr("a100-sxm4"));
}

}  // namespace
}  // namespace shardplan

namespace shardplan {
namespace {

// FlexShard's cluster: a100-sxm4's GPU behind a cube mesh (slower all-to-all in a host) and RoCE.
TEST(HardwareProfilesTest, TheRoceVariantIsTheA100WithFlexShardsLinks) {
  const absl::StatusOr<HardwareProfile> a100 = FindHardwareProfile("a100-sxm4");
  const absl::StatusOr<HardwareProfile> roce = FindHardwareProfile("a100-sxm4-roce");
  ASSERT_TRUE(a100.ok() && roce.ok());
  EXPECT_EQ(roce->num_sms, a100->num_sms);
  EXPECT_EQ(roce->dram_bandwidth_gbps, a100->dram_bandwidth_gbps);
  EXPECT_EQ(roce->inter_link_gbps, 25.0);  // 200 Gb/s per GPU
  EXPECT_NEAR(roce->intra_link_gbps, 210.0, 1e-9);
  EXPECT_GT(roce->inter_hop_latency_us, a100->inter_hop_latency_us);
}

}  // namespace
}  // namespace shardplan
