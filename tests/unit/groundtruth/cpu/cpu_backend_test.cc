#include "groundtruth/cpu/cpu_backend.h"

#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace shardplan {
namespace {

Table MakeTable(int64_t rows, int32_t dim, double pooling) {
  Table t;
  t.name = std::string("t");  // from a std::string: GCC 12's -Wrestrict misfires on "t"
  t.rows = rows;
  t.dim = dim;
  t.pooling_factor = pooling;
  t.access_bins.assign(kNumAccessBins, 0.0);
  t.access_bins[0] = 0.7;
  t.access_bins[2] = 0.3;
  return t;
}

// Tiny and fast: the tests check behaviour, never absolute timings.
CpuBackendOptions FastOptions() {
  CpuBackendOptions o;
  o.warmup = 1;
  o.repetitions = 3;
  o.flush_bytes = 1 << 20;
  return o;
}

TEST(CpuBackendTest, NameAndProfile) {
  CpuBackend backend(FastOptions());
  EXPECT_EQ(backend.name(), "cpu");
  EXPECT_EQ(backend.hardware_profile().rfind("cpu-", 0), 0u);
  EXPECT_EQ(backend.flush_bytes(), 1 << 20);
}

TEST(CpuBackendTest, ModelSlug) {
  EXPECT_EQ(CpuModelSlug("processor\t: 0\nmodel name\t: AMD EPYC 7B13 64-Core Processor\n"),
            "amd-epyc-7b13-64-core-processor");
  EXPECT_EQ(CpuModelSlug("model name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n"),
            "intel-r-xeon-r-cpu-2-20ghz");
  EXPECT_EQ(CpuModelSlug("no such field\n"), "unknown");
}

TEST(CpuBackendTest, PositiveFiniteMedian) {
  CpuBackend backend(FastOptions());
  const std::vector<Table> tables = {MakeTable(1000, 16, 3.0), MakeTable(500, 4, 1.0)};
  absl::StatusOr<double> ms = backend.MeasureCompute(tables, 64);
  ASSERT_TRUE(ms.ok()) << ms.status();
  EXPECT_GT(*ms, 0.0);
  EXPECT_TRUE(std::isfinite(*ms));
  EXPECT_EQ(backend.last_measurement().repetition_ms.size(), 3u);
  EXPECT_EQ(backend.last_measurement().rows_scale, 1.0);
  EXPECT_EQ(backend.last_measurement().weight_bytes, (1000 * 16 + 500 * 4) * 4);
  EXPECT_NEAR(static_cast<double>(backend.last_measurement().lookups), 64 * 4.0, 64 * 0.2);
}

TEST(CpuBackendTest, MoreLookupsCostMore) {
  CpuBackend backend(FastOptions());
  const std::vector<Table> small = {MakeTable(1000, 4, 1.0)};
  const std::vector<Table> large(15, MakeTable(20000, 64, 20.0));
  const double small_ms = *backend.MeasureCompute(small, 128);
  const double large_ms = *backend.MeasureCompute(large, 128);
  // About 4800x the floats touched; a factor of 2 leaves room for any noise.
  EXPECT_GT(large_ms, 2.0 * small_ms);
}

TEST(CpuBackendTest, ThreadsAndArenaReuseGiveValidMedians) {
  CpuBackendOptions options = FastOptions();
  options.threads = 2;
  CpuBackend backend(options);
  EXPECT_EQ(backend.hardware_profile().substr(backend.hardware_profile().size() - 3), "-2t");
  const std::vector<Table> tables = {MakeTable(3000, 8, 5.0), MakeTable(3000, 8, 5.0)};
  for (int i = 0; i < 2; ++i) {  // the second call reuses the weight arena
    absl::StatusOr<double> ms = backend.MeasureCompute(tables, 64);
    ASSERT_TRUE(ms.ok()) << ms.status();
    EXPECT_GT(*ms, 0.0);
  }
}

TEST(CpuBackendTest, OverBudgetScalesRowsAndSaysSo) {
  CpuBackendOptions options = FastOptions();
  options.memory_budget_bytes = 1 << 20;  // 1 MiB
  CpuBackend backend(options);
  // 2 x 100000 x 8 x 4 bytes = 6.4 MB: scaled by about 1/6.1.
  const std::vector<Table> tables = {MakeTable(100000, 8, 2.0), MakeTable(100000, 8, 2.0)};
  absl::StatusOr<double> ms = backend.MeasureCompute(tables, 64);
  ASSERT_TRUE(ms.ok()) << ms.status();
  const CpuMeasurementInfo& info = backend.last_measurement();
  EXPECT_LT(info.rows_scale, 0.2);
  EXPECT_GT(info.rows_scale, 0.1);
  EXPECT_LE(info.weight_bytes, options.memory_budget_bytes);
  EXPECT_NEAR(static_cast<double>(info.lookups), 2 * 64 * 2.0, 16.0);  // lookups unchanged
}

TEST(CpuBackendTest, OverBudgetRefusesWhenAsked) {
  CpuBackendOptions options = FastOptions();
  options.memory_budget_bytes = 1 << 20;
  options.oversize = OversizePolicy::kRefuse;
  CpuBackend backend(options);
  const std::vector<Table> tables = {MakeTable(100000, 8, 2.0)};
  absl::StatusOr<double> ms = backend.MeasureCompute(tables, 64);
  EXPECT_EQ(ms.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(ms.status().message().find("memory budget"), std::string::npos);
}

TEST(CpuBackendTest, CommIsUnimplemented) {
  CpuBackend backend(FastOptions());
  const std::vector<int64_t> dims = {64, 32};
  const std::vector<double> offsets = {0.0, 1.0};
  absl::StatusOr<CommMeasurement> comm = backend.MeasureComm(nullptr, dims, offsets, 64);
  EXPECT_EQ(comm.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(comm.status().message().find("use sim"), std::string::npos);
}

TEST(CpuBackendTest, CollectivesAreUnimplemented) {
  CpuBackend backend(FastOptions());
  EXPECT_FALSE(backend.measures_collectives());
  Topology topology;
  topology.memory_bytes.assign(2, int64_t{1} << 30);
  EXPECT_EQ(backend.MeasureCollectives(topology, {}).status().code(),
            absl::StatusCode::kUnimplemented);
}

TEST(CpuBackendTest, RejectsBadInput) {
  CpuBackend backend(FastOptions());
  const std::vector<Table> tables = {MakeTable(100, 4, 1.0)};
  EXPECT_EQ(backend.MeasureCompute(tables, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(backend.MeasureCompute({}, 16).status().code(), absl::StatusCode::kInvalidArgument);
  std::vector<Table> fp16 = tables;
  fp16[0].element_type = ElementType::kFp16;
  EXPECT_EQ(backend.MeasureCompute(fp16, 16).status().code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace shardplan
