#include "server/measurement_ledger.h"

#include "gtest/gtest.h"

namespace shardplan {
namespace {

TEST(MeasurementLedgerTest, KeepsTheMeanAbsoluteErrorOfTheLastReportsPerModel) {
  MeasurementLedger ledger(/*window=*/3);
  EXPECT_EQ(ledger.Of("m@1").reports, 0);
  EXPECT_DOUBLE_EQ(ledger.Record("m@1", 0.1).mean_abs_relative_error, 0.1);
  // Over- and under-predictions both count as error.
  MeasurementLedger::Summary summary = ledger.Record("m@1", -0.3);
  EXPECT_EQ(summary.reports, 2);
  EXPECT_DOUBLE_EQ(summary.mean_abs_relative_error, 0.2);
  ledger.Record("m@1", 0.2);
  // The window holds 3: the first report (0.1) leaves.
  summary = ledger.Record("m@1", 0.4);
  EXPECT_EQ(summary.reports, 3);
  EXPECT_DOUBLE_EQ(summary.mean_abs_relative_error, (0.3 + 0.2 + 0.4) / 3);
  // Versions are apart.
  EXPECT_EQ(ledger.Record("m@2", 0.0).reports, 1);
  EXPECT_DOUBLE_EQ(ledger.Of("m@2").mean_abs_relative_error, 0.0);
  EXPECT_EQ(ledger.Of("m@1").reports, 3);
}

TEST(MeasurementLedgerTest, AWindowBelowOneHoldsOne) {
  MeasurementLedger ledger(0);
  ledger.Record("m@1", 0.5);
  EXPECT_EQ(ledger.Record("m@1", 0.1).reports, 1);
  EXPECT_DOUBLE_EQ(ledger.Of("m@1").mean_abs_relative_error, 0.1);
}

}  // namespace
}  // namespace shardplan
