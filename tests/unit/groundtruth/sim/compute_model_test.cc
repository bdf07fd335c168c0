#include "groundtruth/sim/compute_model.h"

#include <algorithm>
#include <span>
#include <vector>

#include "groundtruth/sim/observations.h"
#include "gtest/gtest.h"
#include "tests/unit/groundtruth/sim/sim_test_tables.h"

namespace shardplan {
namespace {

using sim_test::DlrmTable;
using sim_test::kBatch;
using sim_test::Profile;
using sim_test::Synthetic;

double Cost(const HardwareProfile& p, const std::vector<Table>& tables, int64_t batch = kBatch) {
  return SimulateCompute(p, tables, batch).total_ms();
}

TEST(SimComputeModelTest, EmptyDeviceCostsNothing) {
  for (const HardwareProfile& p : HardwareProfiles()) {
    const ComputeBreakdown b = SimulateCompute(p, {}, kBatch);
    EXPECT_EQ(b.total_ms(), 0.0) << p.name;
  }
}

TEST(SimComputeModelTest, IsDeterministic) {
  const HardwareProfile p = Profile("rtx2080ti");
  const std::vector<Table> tables = Synthetic(1, 12);
  EXPECT_EQ(Cost(p, tables), Cost(p, tables));
}

TEST(SimComputeModelTest, SingleTablesCostTenthsToTensOfMilliseconds) {
  const HardwareProfile p = Profile("rtx2080ti");
  EXPECT_GT(Cost(p, {DlrmTable(1000, 1.0, 4)}), 0.05);
  EXPECT_LT(Cost(p, {DlrmTable(1000, 1.0, 4)}), 1.0);
  const double heavy = Cost(p, {DlrmTable(10'000'000, 100.0, 128)});
  EXPECT_GT(heavy, 5.0);
  EXPECT_LT(heavy, 60.0);
}

TEST(SimComputeModelTest, MoreLookupsRowsOrDimNeverCheaper) {
  for (const HardwareProfile& p : HardwareProfiles()) {
    SCOPED_TRACE(p.name);
    for (const Table& base : Synthetic(2, 20)) {
      double previous = 0.0;
      for (double pf : {0.0, 0.5, 1.0, 4.0, 15.0, 60.0, 193.0}) {
        Table t = base;
        t.pooling_factor = pf;
        const double cost = Cost(p, {t});
        EXPECT_GE(cost, previous) << "pooling factor " << pf;
        previous = cost;
      }
      previous = 0.0;
      for (int64_t rows : {100, 10'000, 1'000'000, 5'000'000, 12'500'000}) {
        Table t = base;
        t.rows = rows;
        const double cost = Cost(p, {t});
        EXPECT_GE(cost, previous * (1 - 1e-12)) << "rows " << rows;
        previous = cost;
      }
      previous = 0.0;
      for (int32_t dim = 2; dim <= 256; dim *= 2) {
        Table t = base;
        t.dim = dim;
        const double cost = Cost(p, {t});
        EXPECT_GE(cost, previous) << "dim " << dim;
        previous = cost;
      }
    }
  }
}

TEST(SimComputeModelTest, AddingATableNeverMakesTheDeviceCheaper) {
  const HardwareProfile p = Profile("rtx2080ti");
  const std::vector<Table> tables = Synthetic(3, 15);
  double previous = 0.0;
  for (size_t n = 1; n <= tables.size(); ++n) {
    const double cost = Cost(p, std::vector<Table>(tables.begin(), tables.begin() + n));
    EXPECT_GE(cost, previous) << n << " tables";
    previous = cost;
  }
}

// Observation 1: each column half costs more than half the table.
TEST(SimComputeModelTest, ObservationOneColumnHalvesCostMoreThanHalf) {
  for (const HardwareProfile& p : HardwareProfiles()) {
    std::vector<Table> tables = Synthetic(4, 8);
    tables.push_back(DlrmTable(4'000'000, 15.0, 128));
    tables.push_back(DlrmTable(200, 2.0, 128));
    for (const Table& t : tables) {
      for (const DimCostPoint& point : SweepDims(p, t, kBatch)) {
        if (point.dim < 8) continue;
        EXPECT_GT(2.0 * point.half_cost_ms, point.cost_ms * 1.01)
            << p.name << " rows " << t.rows << " pf " << t.pooling_factor << " dim " << point.dim;
      }
    }
  }
}

// Observation 2: the fused cost is not the sum of single-table costs, nor a constant factor of
// it; it can be below (shared launches, idle SMs filled) and above (shared L2, longer sort keys).
TEST(SimComputeModelTest, ObservationTwoMultiTableCostIsNonLinearInTheSum) {
  const HardwareProfile p = Profile("rtx2080ti");
  double min_ratio = 1e9, max_ratio = 0.0;
  for (uint64_t s = 0; s < 30; ++s) {
    const MultiTablePoint point = CompareMultiTable(p, Synthetic(100 + s, 10), kBatch);
    const double ratio = point.multi_ms / point.sum_single_ms;
    EXPECT_NE(point.multi_ms, point.sum_single_ms);
    min_ratio = std::min(min_ratio, ratio);
    max_ratio = std::max(max_ratio, ratio);
  }
  EXPECT_LT(min_ratio, 1.0);
  EXPECT_GT(max_ratio, 1.0);
  EXPECT_GT(max_ratio / min_ratio, 1.2);
}

TEST(SimComputeModelTest, SharedCacheMakesHotTablesCompete) {
  const HardwareProfile p = Profile("rtx2080ti");
  Table hot = DlrmTable(2'000'000, 30.0, 64);
  const double alone = SimulateCompute(p, std::vector<Table>{hot}, kBatch).l2_hit_rate;
  const double shared = SimulateCompute(p, std::vector<Table>(6, hot), kBatch).l2_hit_rate;
  EXPECT_GT(alone, 0.0);
  EXPECT_LT(shared, alone);
}

TEST(SimComputeModelTest, LargerHashSpaceNeedsMoreSortPasses) {
  const HardwareProfile p = Profile("rtx2080ti");
  EXPECT_EQ(SimulateCompute(p, std::vector<Table>{DlrmTable(60'000, 10.0, 16)}, kBatch).sort_passes,
            2);
  EXPECT_EQ(
      SimulateCompute(p, std::vector<Table>(8, DlrmTable(4'000'000, 10.0, 16)), kBatch).sort_passes,
      4);
}

TEST(SimComputeModelTest, NvlinkProfileComputesFaster) {
  const std::vector<Table> tables = Synthetic(5, 12);
  EXPECT_LT(Cost(Profile("h100-sxm"), tables), Cost(Profile("rtx2080ti"), tables) / 2);
}

}  // namespace
}  // namespace shardplan
