#include "server/costing_warnings.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/domain/table_access.h"
#include "tests/unit/server/server_test_util.h"

namespace shardplan {
namespace {

using server_test::SmallTask;

TEST(CostingWarningsTest, ImputationGivesEveryTableWithoutAHistogramOneAndCountsThem) {
  Task task = SmallTask(4, 2);
  task.tables[1].access_bins.assign(kNumAccessBins, 0.0);
  task.tables[1].access_bins[0] = 1.0;
  int64_t imputed = 0;
  absl::StatusOr<std::vector<TableWarning>> warnings =
      ImputeHistograms(task, /*model=*/nullptr, "m@1", &imputed);
  ASSERT_TRUE(warnings.ok()) << warnings.status();
  EXPECT_TRUE(warnings->empty());  // no model: nothing to be outside of
  EXPECT_EQ(imputed, 3);
  for (const Table& table : task.tables)
    EXPECT_EQ(table.access_bins.size(), static_cast<size_t>(kNumAccessBins));
  EXPECT_EQ(task.tables[1].access_bins[0], 1.0);  // its own, kept
}

// A table sent with an access profile but no histogram is not imputed: its histogram is its
// curve's, and no warning says otherwise.
TEST(CostingWarningsTest, AProfiledTableGetsItsCurvesHistogramNotATypicalOne) {
  Task task = SmallTask(2, 2);
  task.tables[0].access_profile.zipf = ZipfAccessProfile{.exponent = 1.0};
  EXPECT_EQ(TablesWithoutHistogram(task).size(), 1u);  // table 1 only
  EXPECT_EQ(TablesWithoutHistogram(task)[0].first, 1u);
  int64_t imputed = 0;
  ASSERT_TRUE(ImputeHistograms(task, nullptr, "m@1", &imputed).ok());
  EXPECT_EQ(imputed, 1);
  EXPECT_EQ(task.tables[0].access_bins,
            AccessBinsOfRanks(task.tables[0], 0, task.tables[0].rows, task.batch_size));
  EXPECT_NE(task.tables[0].access_bins, task.tables[1].access_bins);
}

TEST(CostingWarningsTest, ImputationStopsWhenItsCallerGaveUp) {
  Task task = SmallTask(600, 2);
  StopSignal stop;
  stop.RequestCancel();
  int64_t imputed = 0;
  absl::StatusOr<std::vector<TableWarning>> warnings =
      ImputeHistograms(task, nullptr, "m@1", &imputed, &stop);
  EXPECT_EQ(warnings.status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(imputed, 0);
}

TEST(CostingWarningsTest, TableWarningsAreNamedAtTheRequestsPositions) {
  Task request = SmallTask(3, 2);                   // t0 t1 t2
  std::swap(request.tables[0], request.tables[2]);  // t2 t1 t0
  const std::vector<PlanWarning> placed = AtRequestPositions(
      request, {TableWarning{"t0", "CODE", "about t0"}, TableWarning{"gone", "CODE", "dropped"}});
  ASSERT_EQ(placed.size(), 1u);
  EXPECT_EQ(placed[0].field, "task.tables[2]");
  EXPECT_EQ(placed[0].message, "about t0");
}

}  // namespace
}  // namespace shardplan
