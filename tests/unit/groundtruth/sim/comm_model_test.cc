#include "groundtruth/sim/comm_model.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "groundtruth/sim/observations.h"
#include "gtest/gtest.h"
#include "tests/unit/groundtruth/sim/sim_test_tables.h"

namespace shardplan {
namespace {

using sim_test::kBatch;
using sim_test::Profile;

double Max(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

// The all-to-all on the profile's own machines (hosts of profile.devices_per_host).
CommMeasurement SimulateOnProfileHosts(const HardwareProfile& p, const std::vector<int64_t>& dims,
                                       const std::vector<double>& offsets) {
  return SimulateComm(p, ProfileTopology(p, static_cast<int>(dims.size())), dims, offsets, kBatch);
}

TEST(SimCommModelTest, LatestDeviceExcludesItsOffsetAndEarliestWaits) {
  const HardwareProfile p = Profile("rtx2080ti");
  const std::vector<int64_t> dims = {300, 200, 250, 100};
  const std::vector<double> offsets = {0.0, 7.0, 3.0, 12.0};
  const CommMeasurement comm = SimulateOnProfileHosts(p, dims, offsets);
  const CommMeasurement aligned = SimulateOnProfileHosts(p, dims, std::vector<double>(4, 0.0));
  for (int d = 0; d < 4; ++d) {
    // Everyone finishes together: offset + forward is the same for all devices.
    EXPECT_NEAR(offsets[d] + comm.forward_ms[d], 12.0 + comm.forward_ms[3], 1e-9);
    EXPECT_NEAR(comm.forward_ms[d], (12.0 - offsets[d]) + aligned.forward_ms[d], 1e-9);
    EXPECT_DOUBLE_EQ(comm.backward_ms[d], aligned.backward_ms[d]);  // no offsets backward
  }
  EXPECT_DOUBLE_EQ(comm.forward_ms[3], aligned.forward_ms[3]);  // the latest does not wait
  EXPECT_NEAR(comm.forward_ms[0] - comm.forward_ms[3],
              12.0 + aligned.forward_ms[0] - aligned.forward_ms[3], 1e-9);
}

TEST(SimCommModelTest, HigherDimSumNeverCheaper) {
  for (const HardwareProfile& p : HardwareProfiles()) {
    for (int n : {2, 4, 8, 16}) {
      std::vector<int64_t> dims(n, 64);
      double previous_fw = 0.0, previous_bw = 0.0;
      for (int64_t d0 : {0, 8, 64, 200, 1000, 4000}) {
        dims[0] = d0;
        const CommMeasurement comm = SimulateOnProfileHosts(p, dims, std::vector<double>(n, 0.0));
        EXPECT_GE(Max(comm.forward_ms), previous_fw) << p.name << " n=" << n;
        EXPECT_GE(Max(comm.backward_ms), previous_bw) << p.name << " n=" << n;
        previous_fw = Max(comm.forward_ms);
        previous_bw = Max(comm.backward_ms);
      }
    }
  }
}

// Observation 3: with the same tables (same total dim) and equal offsets, concentrating dims on
// one device raises the max forward and backward comm.
TEST(SimCommModelTest, ObservationThreeMaxCommGrowsWithMaxDeviceDimSum) {
  for (const HardwareProfile& p : HardwareProfiles()) {
    for (int n : {4, 8}) {
      const int64_t total = 256 * n;
      double previous_fw = 0.0, previous_bw = 0.0;
      for (int64_t max_dim = 256; max_dim <= total; max_dim += 128) {
        std::vector<int64_t> dims(n, (total - max_dim) / (n - 1));
        dims[n - 1] = max_dim;
        dims[0] += total - max_dim - (n - 1) * dims[1];  // keep the total exact
        const CommPoint point = CommVsMaxDimSum(p, dims, kBatch);
        EXPECT_GT(point.max_forward_ms, previous_fw) << p.name << " max dim " << max_dim;
        EXPECT_GT(point.max_backward_ms, previous_bw) << p.name << " max dim " << max_dim;
        previous_fw = point.max_forward_ms;
        previous_bw = point.max_backward_ms;
      }
    }
  }
}

TEST(SimCommModelTest, MagnitudesFollowTheLinks) {
  // 4 devices of dim sum 400: ~105 MB each way per device. PCIe without P2P takes
  // milliseconds; NVLink a fraction of one.
  const std::vector<int64_t> dims(4, 400);
  const std::vector<double> zeros(4, 0.0);
  const double pcie = Max(SimulateOnProfileHosts(Profile("rtx2080ti"), dims, zeros).backward_ms);
  const double nvlink = Max(SimulateOnProfileHosts(Profile("h100-sxm"), dims, zeros).backward_ms);
  const double nvlink3 =
      Max(SimulateOnProfileHosts(Profile("a100-sxm4"), dims, zeros).backward_ms);
  EXPECT_GT(pcie, 3.0);
  EXPECT_LT(pcie, 30.0);
  EXPECT_LT(nvlink, pcie / 10);
  EXPECT_LT(nvlink3, pcie / 10);
  EXPECT_GT(nvlink3, nvlink);  // NVLink 3 has two thirds of NVLink 4's bandwidth
}

TEST(SimCommModelTest, CrossingHostsIsSlowerPerByte) {
  const HardwareProfile p = Profile("h100-sxm");
  const double one_host =
      Max(SimulateOnProfileHosts(p, std::vector<int64_t>(8, 256), std::vector<double>(8, 0.0))
              .backward_ms);
  const double two_hosts =
      Max(SimulateOnProfileHosts(p, std::vector<int64_t>(16, 128), std::vector<double>(16, 0.0))
              .backward_ms);
  EXPECT_GT(two_hosts, one_host);
}

// No device holds a column-level shard: TorchRec makes no table-wise sharding, so no all-to-all
// runs, not even its latency, and nobody waits at it.
TEST(SimCommModelTest, NoColumnLevelShardMeansNoAllToAll) {
  const HardwareProfile p = Profile("rtx2080ti");
  const CommMeasurement comm =
      SimulateOnProfileHosts(p, std::vector<int64_t>(4, 0), {0.0, 1.0, 2.0, 3.0});
  for (double ms : comm.backward_ms) EXPECT_EQ(ms, 0.0);
  for (double ms : comm.forward_ms) EXPECT_EQ(ms, 0.0);
}

// A device without column-level shards still takes part in the others' all-to-all: it pays the
// latency and unpacks what it receives.
TEST(SimCommModelTest, ADeviceWithoutDataStillPaysTheAllToAll) {
  const HardwareProfile p = Profile("rtx2080ti");
  const CommMeasurement comm =
      SimulateOnProfileHosts(p, {0, 0, 0, 16}, std::vector<double>(4, 0.0));
  for (double ms : comm.backward_ms) EXPECT_GT(ms, p.a2a_latency_us * 1e-3);
}

// Today's figures, bit for bit: cost-data collection and the shipped model bundles (4 and 8
// devices on one host) depend on them. Computed on the all-to-all model as it stood before hosts
// came from the task's topology (commit 9c5ac9e); a change here must be deliberate.
struct PinnedComm {
  const char* profile;
  std::vector<int64_t> dims;
  std::vector<double> offsets;
  std::vector<double> forward_ms;
  std::vector<double> backward_ms;
};

std::vector<PinnedComm> PinnedComms() {
  const std::vector<int64_t> dims4 = {300, 200, 250, 100};
  const std::vector<double> offsets4 = {0.0, 7.0, 3.0, 12.0};
  const std::vector<int64_t> dims8 = {512, 64, 128, 300, 0, 256, 1000, 40};
  const std::vector<double> offsets8 = {0.5, 0.0, 2.25, 1.0, 3.0, 0.0, 0.125, 4.0};
  const double rtx4 = 0x1.34bf6518c31e6p+3, rtx8 = 0x1.2632b4db3ecefp+5;
  const double h4 = 0x1.0167942f278cp-2, h8 = 0x1.9cbad4f3d7761p-1;
  return {
      {"rtx2080ti", dims4, offsets4,
       {0x1.5a5fb28c618f3p+4, 0x1.d4bf6518c31e6p+3, 0x1.2a5fb28c618f3p+4, 0x1.34bf6518c31e6p+3},
       std::vector<double>(4, rtx4)},
      {"rtx2080ti", dims8, offsets8,
       {0x1.4232b4db3ecefp+5, 0x1.4632b4db3ecefp+5, 0x1.3432b4db3ecefp+5, 0x1.3e32b4db3ecefp+5,
        0x1.2e32b4db3ecefp+5, 0x1.4632b4db3ecefp+5, 0x1.4532b4db3ecefp+5, 0x1.2632b4db3ecefp+5},
       std::vector<double>(8, rtx8)},
      {"h100-sxm", dims4, offsets4,
       {0x1.880b3ca1793c6p+3, 0x1.50167942f278cp+2, 0x1.280b3ca1793c6p+3, 0x1.0167942f278cp-2},
       std::vector<double>(4, h4)},
      {"h100-sxm", dims8, offsets8,
       {0x1.13975a9e7aeecp+2, 0x1.33975a9e7aeecp+2, 0x1.472eb53cf5dd8p+1, 0x1.e72eb53cf5dd8p+1,
        0x1.ce5d6a79ebbbp+0, 0x1.33975a9e7aeecp+2, 0x1.2b975a9e7aeecp+2, 0x1.9cbad4f3d7761p-1},
       std::vector<double>(8, h8)},
  };
}

TEST(SimCommModelTest, OneHostFiguresStayBitIdentical) {
  for (const PinnedComm& pinned : PinnedComms()) {
    // A task's devices on one host (devices_per_host 0), as Table-1 tasks and collection have.
    const CommMeasurement comm =
        SimulateComm(Profile(pinned.profile), sim_test::Hosts(static_cast<int>(pinned.dims.size())),
                     pinned.dims, pinned.offsets, kBatch);
    EXPECT_EQ(comm.forward_ms, pinned.forward_ms) << pinned.profile << " " << pinned.dims.size();
    EXPECT_EQ(comm.backward_ms, pinned.backward_ms) << pinned.profile << " " << pinned.dims.size();
  }
}

// 16 devices on the profile's machines (two hosts of 8), as collection at 16 devices measures.
TEST(SimCommModelTest, ProfileHostsFiguresStayBitIdentical) {
  std::vector<int64_t> dims(16);
  for (int d = 0; d < 16; ++d) dims[d] = 32 * (d % 5) + 16;
  const std::vector<double> zeros(16, 0.0);
  EXPECT_EQ(SimulateOnProfileHosts(Profile("rtx2080ti"), dims, zeros).backward_ms,
            std::vector<double>(16, 0x1.e5700135bf22ep+4));
  EXPECT_EQ(SimulateOnProfileHosts(Profile("h100-sxm"), dims, zeros).backward_ms,
            std::vector<double>(16, 0x1.2811d19126f93p-1));
}

// 16 devices of dim sum 128 on h100-sxm: every device puts V = B * 128 * 4 bytes in and sends
// V / 16 to each peer. With 8 per host, 8 peers are remote; with 4 per host, 12 are: the NIC
// (50 GB/s x 0.70 per device) carries 8 V / 16 or 12 V / 16 bytes each way. Every device ends up
// with 16 slices of V / 16, unpacked at 3350 GB/s x 0.85 (read + write).
TEST(SimCommModelTest, HostsComeFromTheTopologyWithPerLinkAccounting) {
  const HardwareProfile p = Profile("h100-sxm");
  const std::vector<int64_t> dims(16, 128);
  const std::vector<double> zeros(16, 0.0);
  const double v = 65536.0 * 128 * 4;
  const double nic = 50e6 * 0.70, nvlink = 450e6 * 0.70;
  const double fixed = 25e-3 + 2.0 * v / (3350e6 * 0.85);
  const CommMeasurement eight = SimulateComm(p, sim_test::Hosts(16, 8), dims, zeros, kBatch);
  const CommMeasurement four = SimulateComm(p, sim_test::Hosts(16, 4), dims, zeros, kBatch);
  const CommMeasurement one = SimulateComm(p, sim_test::Hosts(16, 0), dims, zeros, kBatch);
  for (int d = 0; d < 16; ++d) {
    EXPECT_NEAR(eight.backward_ms[d], fixed + 8 * v / 16 / nic, 1e-12);
    EXPECT_NEAR(four.backward_ms[d], fixed + 12 * v / 16 / nic, 1e-12);
    EXPECT_NEAR(one.backward_ms[d], fixed + 15 * v / 16 / nvlink, 1e-12);  // NVSwitch only
  }
  EXPECT_GT(four.backward_ms[0], eight.backward_ms[0]);
  // The profile's machines are hosts of 8: the same as a task saying so.
  EXPECT_EQ(SimulateOnProfileHosts(p, dims, zeros).backward_ms, eight.backward_ms);
}

// rtx2080ti stages traffic through host memory, GPU slots 0-3 on socket 0 and 4-7 on socket 1.
// 8 devices of one host, only device 0 has data (V): it sends V / 8 to each of 7 peers over its
// PCIe link (7 V / 8), 4 of those slices cross to the other socket (4 V / 8 over 38.4 GB/s).
TEST(SimCommModelTest, HostStagedTrafficCrossesTheSocketLink) {
  const HardwareProfile p = Profile("rtx2080ti");
  std::vector<int64_t> dims(8, 0);
  dims[0] = 256;
  const double v = 65536.0 * 256 * 4;
  const double pcie = 15.75e6 * 0.40, socket = 38.4e6 * 0.40;
  const CommMeasurement comm =
      SimulateComm(p, sim_test::Hosts(8), dims, std::vector<double>(8, 0.0), kBatch);
  const double transfer = std::max(7 * v / 8 / pcie, 4 * v / 8 / socket);
  EXPECT_NEAR(comm.backward_ms[1], 60e-3 + transfer + 2.0 * (v / 8) / (616e6 * 0.80), 1e-12);
}

}  // namespace
}  // namespace shardplan

namespace shardplan {
namespace {

// A routed all-to-all whose pairs spread every member's volume evenly is the even all-to-all.
TEST(SimRoutedTransferTest, EvenPairsAreTheEvenAllToAll) {
  for (const char* name : {"h100-sxm", "rtx2080ti"}) {
    const HardwareProfile p = Profile(name);
    const DeviceLinks links(p, sim_test::Hosts(16, 8));
    std::vector<int32_t> group(16);
    std::vector<double> volume(16);
    std::vector<PairBytes> pairs;
    for (int i = 0; i < 16; ++i) {
      group[i] = i;
      volume[i] = 1e6 * (i + 1);
      for (int j = 0; j < 16; ++j) pairs.push_back({i, j, volume[i] / 16});
    }
    const AllToAllTransfer even = SimulateAllToAllTransfer(links, group, volume);
    const AllToAllTransfer routed = SimulateRoutedTransfer(links, group, pairs);
    EXPECT_NEAR(routed.transfer_ms, even.transfer_ms, 1e-9 * even.transfer_ms) << name;
    for (int i = 0; i < 16; ++i) {
      EXPECT_NEAR(routed.received[i], even.received[i], 1e-6) << name << " " << i;
    }
  }
}

// Bytes that stay in a host cross the NVLink; moving the same bytes across hosts makes the NIC
// the bottleneck. A local chunk moves nothing but is received (unpacked).
TEST(SimRoutedTransferTest, EachPairLoadsTheLinkItCrosses) {
  const HardwareProfile p = Profile("h100-sxm");
  const DeviceLinks links(p, sim_test::Hosts(16, 8));
  const std::vector<int32_t> group = {0, 1, 8};
  const double bytes = 7e6;
  const AllToAllTransfer in_host = SimulateRoutedTransfer(links, group, {{{0, 1, bytes}}});
  EXPECT_NEAR(in_host.transfer_ms, bytes / links.intra_bytes_per_ms(), 1e-12);
  const AllToAllTransfer across = SimulateRoutedTransfer(links, group, {{{0, 8, bytes}}});
  EXPECT_NEAR(across.transfer_ms, bytes / links.inter_bytes_per_ms(), 1e-12);
  EXPECT_DOUBLE_EQ(across.received[2], bytes);
  const AllToAllTransfer local = SimulateRoutedTransfer(links, group, {{{1, 1, bytes}}});
  EXPECT_DOUBLE_EQ(local.transfer_ms, 0.0);
  EXPECT_DOUBLE_EQ(local.received[1], bytes);
  // Two senders into one receiver: its ingress is the busier direction.
  const AllToAllTransfer fan_in =
      SimulateRoutedTransfer(links, group, {{{0, 8, bytes}, {1, 8, bytes}}});
  EXPECT_NEAR(fan_in.transfer_ms, 2 * bytes / links.inter_bytes_per_ms(), 1e-12);
}

}  // namespace
}  // namespace shardplan
