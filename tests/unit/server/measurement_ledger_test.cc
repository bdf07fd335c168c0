#include "server/measurement_ledger.h"

#include <string>

#include "gtest/gtest.h"

namespace shardplan {
namespace {

TEST(MeasurementLedgerTest, KeepsTheMeanAbsoluteErrorOfAReportersLastReportsPerModel) {
  MeasurementLedger ledger(/*window=*/3);
  EXPECT_EQ(ledger.Of("m@1").reports, 0);
  EXPECT_DOUBLE_EQ(ledger.Record("m@1", "job", 0.1).mean_abs_relative_error, 0.1);
  // Over- and under-predictions both count as error.
  MeasurementLedger::Summary summary = ledger.Record("m@1", "job", -0.3);
  EXPECT_EQ(summary.reports, 2);
  EXPECT_EQ(summary.reporters, 1);
  EXPECT_DOUBLE_EQ(summary.mean_abs_relative_error, 0.2);
  ledger.Record("m@1", "job", 0.2);
  // The window holds 3: the first report (0.1) leaves.
  summary = ledger.Record("m@1", "job", 0.4);
  EXPECT_EQ(summary.reports, 3);
  EXPECT_DOUBLE_EQ(summary.mean_abs_relative_error, (0.3 + 0.2 + 0.4) / 3);
  // Versions are apart.
  EXPECT_EQ(ledger.Record("m@2", "job", 0.0).reports, 1);
  EXPECT_DOUBLE_EQ(ledger.Of("m@2").mean_abs_relative_error, 0.0);
  EXPECT_EQ(ledger.Of("m@1").reports, 3);
}

TEST(MeasurementLedgerTest, AWindowBelowOneHoldsOne) {
  MeasurementLedger ledger(0);
  ledger.Record("m@1", "job", 0.5);
  EXPECT_EQ(ledger.Record("m@1", "job", 0.1).reports, 1);
  EXPECT_DOUBLE_EQ(ledger.Of("m@1").mean_abs_relative_error, 0.1);
}

TEST(MeasurementLedgerTest, OneReporterCannotMoveTheErrorAlone) {
  MeasurementLedger ledger;
  for (const std::string job : {"token:a", "token:b", "token:c"}) {
    for (int i = 0; i < 5; ++i) ledger.Record("m@1", job, 0.23);  // a real 23% drift
  }
  EXPECT_DOUBLE_EQ(ledger.Of("m@1").mean_abs_relative_error, 0.23);
  // 100 reports that the prediction was exact count as one voice: the drift stays.
  for (int i = 0; i < 100; ++i) ledger.Record("m@1", "token:liar", 0.0);
  EXPECT_DOUBLE_EQ(ledger.Of("m@1").mean_abs_relative_error, 0.23);
  // So does an absurd error.
  ledger.Record("m@1", "token:alarmist", 1e300);
  MeasurementLedger::Summary summary = ledger.Of("m@1");
  EXPECT_DOUBLE_EQ(summary.mean_abs_relative_error, 0.23);
  EXPECT_EQ(summary.reporters, 5);
  EXPECT_EQ(summary.reports, 3 * 5 + 20 + 1);  // each reporter's window holds 20
}

TEST(MeasurementLedgerTest, TheStalestReporterIsForgottenPastTheBound) {
  MeasurementLedger ledger(/*window=*/20, /*max_reporters=*/2);
  ledger.Record("m@1", "a", 0.5);
  ledger.Record("m@1", "b", 0.1);
  ledger.Record("m@1", "a", 0.5);
  MeasurementLedger::Summary summary = ledger.Record("m@1", "c", 0.3);  // b goes
  EXPECT_EQ(summary.reporters, 2);
  EXPECT_DOUBLE_EQ(summary.mean_abs_relative_error, (0.5 + 0.3) / 2);
}

}  // namespace
}  // namespace shardplan
