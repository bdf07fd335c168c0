#include "groundtruth/sim/observations.h"

#include <vector>

#include "groundtruth/sim/comm_model.h"
#include "groundtruth/sim/compute_model.h"
#include "gtest/gtest.h"
#include "tests/unit/groundtruth/sim/sim_test_tables.h"

namespace shardplan {
namespace {

using sim_test::DlrmTable;
using sim_test::kBatch;
using sim_test::Profile;

TEST(SimObservationsTest, SweepDimsCoversTheGridAndPairsEachDimWithItsHalf) {
  const HardwareProfile p = Profile("rtx2080ti");
  const Table t = DlrmTable(1'000'000, 20.0, 32);
  const std::vector<DimCostPoint> points = SweepDims(p, t, kBatch);
  ASSERT_EQ(points.size(), 6u);
  for (size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(points[i].dim, 4 << i);
    if (i > 0) EXPECT_DOUBLE_EQ(points[i].half_cost_ms, points[i - 1].cost_ms);
  }
  Table same = t;
  same.dim = 64;
  EXPECT_DOUBLE_EQ(points[4].cost_ms,
                   SimulateCompute(p, std::vector<Table>{same}, kBatch).total_ms());
}

TEST(SimObservationsTest, SweepDimsTakesAnyDims) {
  const HardwareProfile p = Profile("rtx2080ti");
  const Table t = DlrmTable(1'000'000, 20.0, 32);
  const std::vector<int32_t> dims = {24, 40, 12};
  const std::vector<DimCostPoint> points = SweepDims(p, t, kBatch, dims);
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[0].dim, 24);
  EXPECT_DOUBLE_EQ(points[0].half_cost_ms, points[2].cost_ms);  // 24 / 2 = 12
  for (const DimCostPoint& point : points) EXPECT_GT(2 * point.half_cost_ms, point.cost_ms);
}

TEST(SimObservationsTest, CompareMultiTableSumsSingles) {
  const HardwareProfile p = Profile("rtx2080ti");
  const std::vector<Table> tables = {DlrmTable(1000, 3.0, 8), DlrmTable(500'000, 12.0, 64)};
  const MultiTablePoint point = CompareMultiTable(p, tables, kBatch);
  EXPECT_DOUBLE_EQ(point.multi_ms, SimulateCompute(p, tables, kBatch).total_ms());
  EXPECT_DOUBLE_EQ(point.sum_single_ms,
                   SimulateCompute(p, std::vector<Table>{tables[0]}, kBatch).total_ms() +
                       SimulateCompute(p, std::vector<Table>{tables[1]}, kBatch).total_ms());
}

TEST(SimObservationsTest, CommVsMaxDimSumReportsTheMaxima) {
  const HardwareProfile p = Profile("rtx2080ti");
  const std::vector<int64_t> dims = {100, 500, 200, 50};
  const CommPoint point = CommVsMaxDimSum(p, dims, kBatch);
  EXPECT_EQ(point.max_dim_sum, 500);
  const CommMeasurement comm = SimulateComm(p, ProfileTopology(p, 4), dims, std::vector<double>(4, 0.0), kBatch);
  for (int d = 0; d < 4; ++d) {
    EXPECT_GE(point.max_forward_ms, comm.forward_ms[d]);
    EXPECT_GE(point.max_backward_ms, comm.backward_ms[d]);
  }
}

}  // namespace
}  // namespace shardplan
