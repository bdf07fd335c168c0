// Algorithm 1 (inference replicas and routes) and Eqs. 4-5 (training duplication)
// on cases small enough to check by hand.
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/algorithms/oper/oper_copies.h"
#include "planner/algorithms/oper/oper_inference_replication.h"
#include "planner/algorithms/oper/oper_training_duplication.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan::oper {
namespace {

using ::testing::ElementsAre;

Partition Owned(double lookups, int64_t bytes, int64_t rows = 1) {
  return Partition{.table = 0,
                   .rank_begin = 0,
                   .rank_end = rows,
                   .lookups = lookups,
                   .bytes = bytes,
                   .fetch_bytes = 64,
                   .bound = PartitionBound::kAccess};
}

// Two hosts of two devices; per fetch 0 locally, 1 within a host, 4 across hosts.
FetchCostMatrix TwoByTwoCosts() {
  return test::PerFetchCosts("0,1,4,4;1,0,4,4;4,4,0,1;4,4,1,0", 4);
}

TEST(OperCopiesTest, TheCommunicationMatrixIsEquationThreeWithTheFetchCost) {
  const std::vector<Partition> partitions = {Owned(10, 100), Owned(6, 100)};
  const Copies copies = OwnersOnly({0, 2}, 4);
  const std::vector<std::vector<double>> comm =
      CommunicationMatrix(partitions, copies, TwoByTwoCosts());
  EXPECT_THAT(comm[1], ElementsAre(10 * 1, 0, 6 * 4, 0));
  EXPECT_THAT(comm[3], ElementsAre(10 * 4, 0, 6 * 1, 0));
  EXPECT_DOUBLE_EQ(OffDiagonalTotal(comm), 10 * (1 + 4 + 4) + 6 * (4 + 4 + 1));
}

TEST(OperInferenceReplicationTest, ReplicatesFromTheCostliestSourceAndReroutesCheaperFetches) {
  // p0 (10 lookups) and p2 (1) on device 0, p1 (6) on device 2; only device 1 has spare memory,
  // for one partition. Device 1 spends 11 on device 0 and 24 on device 2: it replicates p1, and
  // device 0 (4 from device 2, 1 from device 1) follows; device 3 keeps its 1 from device 2.
  const std::vector<Partition> partitions = {Owned(10, 100), Owned(6, 100), Owned(1, 100)};
  Copies copies = OwnersOnly({0, 2, 0}, 4);
  const std::vector<std::vector<double>> comm =
      *ReplicateForInference(partitions, TwoByTwoCosts(), {0, 150, 0, 0}, StopSignal(), copies);
  EXPECT_THAT(copies.devices, ElementsAre(ElementsAre(0), ElementsAre(2, 1), ElementsAre(0)));
  EXPECT_THAT(copies.path[1], ElementsAre(1, 1, 2, 2));
  EXPECT_THAT(copies.path[0], ElementsAre(0, 0, 0, 0));
  EXPECT_THAT(copies.replica_bytes, ElementsAre(0, 100, 0, 0));
  EXPECT_EQ(copies.replicas(), 1);
  // Device 0 now fetches p1 from device 1 (6 x 1); device 1 only p0 and p2 from device 0.
  EXPECT_THAT(comm[0], ElementsAre(0, 6, 0, 0));
  EXPECT_THAT(comm[1], ElementsAre(11, 0, 0, 0));
  EXPECT_THAT(comm[3], ElementsAre(44, 0, 6, 0));
  // The returned matrix is the one the copies give.
  EXPECT_EQ(comm, CommunicationMatrix(partitions, copies, TwoByTwoCosts()));
}

TEST(OperInferenceReplicationTest, FillsSpareMemoryHottestFirstUntilNothingFits) {
  // One host of two devices (cost 1 between them): device 1 takes p0, then p2 (p1 is too large).
  const FetchCostMatrix cost = test::PerFetchCosts("0,1;1,0", 2);
  const std::vector<Partition> partitions = {Owned(10, 100), Owned(8, 500), Owned(3, 100),
                                             Owned(0, 10)};
  Copies copies = OwnersOnly({0, 0, 0, 0}, 2);
  const std::vector<std::vector<double>> comm =
      *ReplicateForInference(partitions, cost, {0, 250}, StopSignal(), copies);
  EXPECT_THAT(copies.devices,
              ElementsAre(ElementsAre(0, 1), ElementsAre(0), ElementsAre(0, 1), ElementsAre(0)));
  EXPECT_THAT(comm[1], ElementsAre(8, 0));
  EXPECT_THAT(copies.replica_bytes, ElementsAre(0, 200));
}

TEST(OperInferenceReplicationTest, AStopSignalEndsIt) {
  StopSignal stop;
  stop.RequestCancel();
  Copies copies = OwnersOnly({0}, 4);
  EXPECT_EQ(
      ReplicateForInference({Owned(10, 100)}, TwoByTwoCosts(), {0, 100, 100, 100}, stop, copies)
          .status()
          .code(),
      absl::StatusCode::kCancelled);
}

TEST(OperTrainingDuplicationTest, TheThresholdIsTheBandwidthRatioOverTheBatch) {
  // f* = BW_P2P / (B BW_AR) = 12.5 / (100 x 25).
  EXPECT_DOUBLE_EQ(DuplicationFrequency(12.5, 25.0, 100), 0.005);
  // Eq. 4 vs. Eq. 5 for a row just above and just below f*: duplicating pays above only.
  const auto non_dup = [](double f) { return 2 * f * 100 * (3.0 / 4) * 64 / 12.5; };
  const double dup = 2 * (3.0 / 4) * 64 / 25.0;
  EXPECT_LT(dup, non_dup(0.0051));
  EXPECT_GT(dup, non_dup(0.0049));
  // A partition's f: its lookups per device over the batch and its rows.
  EXPECT_DOUBLE_EQ(AccessFrequency(Owned(50, 64, 10), 100), 0.05);
}

TEST(OperTrainingDuplicationTest, DuplicatesHotPartitionsEverywhereWithinTheBudget) {
  // B = 100, f* = 0.005. f: p0 0.5, p1 0.1 (too large to fit), p2 0.01, p3 0.004 (too cold).
  const std::vector<Partition> partitions = {Owned(50, 64), Owned(10, 500), Owned(1, 64),
                                             Owned(0.4, 64)};
  Copies copies = OwnersOnly({0, 1, 2, 0}, 3);
  const int64_t duplicated =
      DuplicateHotPartitions(partitions, 0.005, 100, {200, 200, 200}, copies);
  EXPECT_EQ(duplicated, 2);
  EXPECT_THAT(copies.devices, ElementsAre(ElementsAre(0, 1, 2), ElementsAre(1),
                                          ElementsAre(2, 0, 1), ElementsAre(0)));
  EXPECT_THAT(copies.path[0], ElementsAre(0, 1, 2));
  EXPECT_THAT(copies.path[1], ElementsAre(1, 1, 1));
  EXPECT_THAT(copies.replica_bytes, ElementsAre(64, 128, 64));
}

}  // namespace
}  // namespace shardplan::oper
