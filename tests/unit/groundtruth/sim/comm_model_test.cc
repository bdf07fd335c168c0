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

TEST(SimCommModelTest, LatestDeviceExcludesItsOffsetAndEarliestWaits) {
  const HardwareProfile p = Profile("rtx2080ti");
  const std::vector<int64_t> dims = {300, 200, 250, 100};
  const std::vector<double> offsets = {0.0, 7.0, 3.0, 12.0};
  const CommMeasurement comm = SimulateComm(p, dims, offsets, kBatch);
  const CommMeasurement aligned = SimulateComm(p, dims, std::vector<double>(4, 0.0), kBatch);
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
        const CommMeasurement comm = SimulateComm(p, dims, std::vector<double>(n, 0.0), kBatch);
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
  const double pcie = Max(SimulateComm(Profile("rtx2080ti"), dims, zeros, kBatch).backward_ms);
  const double nvlink = Max(SimulateComm(Profile("h100-sxm"), dims, zeros, kBatch).backward_ms);
  EXPECT_GT(pcie, 3.0);
  EXPECT_LT(pcie, 30.0);
  EXPECT_LT(nvlink, pcie / 10);
}

TEST(SimCommModelTest, CrossingHostsIsSlowerPerByte) {
  const HardwareProfile p = Profile("h100-sxm");
  const double one_host =
      Max(SimulateComm(p, std::vector<int64_t>(8, 256), std::vector<double>(8, 0.0), kBatch)
              .backward_ms);
  const double two_hosts =
      Max(SimulateComm(p, std::vector<int64_t>(16, 128), std::vector<double>(16, 0.0), kBatch)
              .backward_ms);
  EXPECT_GT(two_hosts, one_host);
}

TEST(SimCommModelTest, NoDataCostsOnlyTheLatency) {
  const HardwareProfile p = Profile("rtx2080ti");
  const CommMeasurement comm =
      SimulateComm(p, std::vector<int64_t>(4, 0), std::vector<double>(4, 0.0), kBatch);
  for (double ms : comm.backward_ms) EXPECT_DOUBLE_EQ(ms, p.a2a_latency_us * 1e-3);
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
    const CommMeasurement comm =
        SimulateComm(Profile(pinned.profile), pinned.dims, pinned.offsets, kBatch);
    EXPECT_EQ(comm.forward_ms, pinned.forward_ms) << pinned.profile << " " << pinned.dims.size();
    EXPECT_EQ(comm.backward_ms, pinned.backward_ms) << pinned.profile << " " << pinned.dims.size();
  }
}

// 16 devices on the profile's machines (two hosts of 8), as collection at 16 devices measures.
TEST(SimCommModelTest, ProfileHostsFiguresStayBitIdentical) {
  std::vector<int64_t> dims(16);
  for (int d = 0; d < 16; ++d) dims[d] = 32 * (d % 5) + 16;
  const std::vector<double> zeros(16, 0.0);
  EXPECT_EQ(SimulateComm(Profile("rtx2080ti"), dims, zeros, kBatch).backward_ms,
            std::vector<double>(16, 0x1.e5700135bf22ep+4));
  EXPECT_EQ(SimulateComm(Profile("h100-sxm"), dims, zeros, kBatch).backward_ms,
            std::vector<double>(16, 0x1.2811d19126f93p-1));
}

}  // namespace
}  // namespace shardplan
