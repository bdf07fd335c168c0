#include "groundtruth/sim/device_links.h"

#include "gtest/gtest.h"
#include "tests/unit/groundtruth/sim/sim_test_tables.h"

namespace shardplan {
namespace {

using sim_test::Hosts;
using sim_test::Profile;

TEST(DeviceLinksTest, HostsComeFromTheTopology) {
  const HardwareProfile p = Profile("h100-sxm");
  const DeviceLinks four_per_host(p, Hosts(10, 4));
  EXPECT_EQ(four_per_host.num_devices(), 10);
  EXPECT_EQ(four_per_host.num_hosts(), 3);  // the last host holds 2
  EXPECT_EQ(four_per_host.host_of(3), 0);
  EXPECT_EQ(four_per_host.host_of(4), 1);
  EXPECT_EQ(four_per_host.host_of(9), 2);
  const DeviceLinks one_host(p, Hosts(16));
  EXPECT_EQ(one_host.num_hosts(), 1);
  EXPECT_EQ(one_host.host_of(15), 0);
  const DeviceLinks profile_hosts(p, ProfileTopology(p, 16));
  EXPECT_EQ(profile_hosts.num_hosts(), 2);
  EXPECT_FALSE(profile_hosts.staged_through_host());
  EXPECT_EQ(profile_hosts.socket_of(7), 0);
}

TEST(DeviceLinksTest, BandwidthsArePeakTimesLinkEfficiencyPerDevice) {
  const HardwareProfile p = Profile("h100-sxm");
  const DeviceLinks links(p, Hosts(8));
  EXPECT_DOUBLE_EQ(links.intra_bytes_per_ms(), 450e6 * 0.70);
  EXPECT_DOUBLE_EQ(links.inter_bytes_per_ms(), 50e6 * 0.70);
  EXPECT_EQ(links.socket_bytes_per_ms(), 0.0);
}

// The papers' server has 8 GPU slots over 2 sockets; a task's devices take the slots in order.
TEST(DeviceLinksTest, StagedHostsSplitTheirSlotsOverSockets) {
  const HardwareProfile p = Profile("rtx2080ti");
  const DeviceLinks four(p, Hosts(4));
  for (int d = 0; d < 4; ++d) EXPECT_EQ(four.socket_of(d), 0) << d;
  const DeviceLinks eight(p, Hosts(8));
  EXPECT_TRUE(eight.staged_through_host());
  EXPECT_EQ(eight.socket_of(3), 0);
  EXPECT_EQ(eight.socket_of(4), 1);
  EXPECT_EQ(eight.socket_of(7), 1);
  // A task host of 16 GPUs: 16 slots, 8 per socket.
  const DeviceLinks sixteen(p, Hosts(16));
  EXPECT_EQ(sixteen.socket_of(7), 0);
  EXPECT_EQ(sixteen.socket_of(8), 1);
  // Hosts of 4: each host's 4 devices on its first socket.
  const DeviceLinks hosts_of_four(p, Hosts(8, 4));
  EXPECT_EQ(hosts_of_four.socket_of(7), 0);
  EXPECT_EQ(hosts_of_four.host_of(7), 1);
}

}  // namespace
}  // namespace shardplan
