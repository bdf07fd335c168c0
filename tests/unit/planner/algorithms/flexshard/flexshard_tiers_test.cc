#include "planner/algorithms/flexshard/flexshard_tiers.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan::flexshard {
namespace {

// The notes' worked case (../shared/papers/notes/flexshard.md, section 8.2 item 5): E = 10M,
// L = 500, Zipf s = 1.0, 4 hosts x 8 GPUs, B = 4096 per GPU, D = 256, FP32, multiplier 6.
// Bandwidths as the paper's Fig. 3 (all-reduce = 3 x all-to-all) on FlexShard's cluster (one
// 200 Gb/s NIC per GPU, NVLink 3 in the host).
TierInputs WorkedCaseInputs(const RankFrequencyCurve& curve) {
  TierInputs in;
  in.tables = {{.name = "history", .curve = &curve, .lookups_per_sample = 500, .dim = 256,
                .element_bytes = 4}};
  in.hosts = 4;
  in.devices_per_host = 8;
  in.local_batch = 4096;
  in.bandwidths = {.all_to_all_global_gibps = 23.28,
                   .all_to_all_intra_gibps = 279.4,
                   .all_reduce_global_gibps = 69.85,
                   .all_reduce_cross_gibps = 69.85};
  return in;
}

TEST(FlexShardTiersTest, ReproducesTheWorkedCaseToTheRow) {
  const RankFrequencyCurve curve = RankFrequencyCurve::Zipf(10'000'000, 1.0);
  absl::StatusOr<TierResult> result = ComputeTiers(WorkedCaseInputs(curve));
  ASSERT_TRUE(result.ok()) << result.status();

  EXPECT_NEAR(result->breakpoints.memory, (6.0 - 1.0 / 32) / 4096, 1e-15);
  ASSERT_EQ(result->points.size(), 4u);
  const ParetoPoint& a = result->points[0];
  EXPECT_EQ(a.label, "A");
  EXPECT_EQ(a.dp_rows, 20'551);
  EXPECT_NEAR(a.coverage, 0.629, 0.0005);
  EXPECT_NEAR(a.marginal_memory_bytes / kBytesPerGiB, -1.112, 0.0005);  // the notes' 1.112 GiB

  const ParetoPoint& b = result->points[1];
  EXPECT_EQ(b.dp_rows, 268'796);
  EXPECT_NEAR(b.coverage, 0.783, 0.0005);
  EXPECT_LE(b.marginal_memory_bytes, 0.0);

  EXPECT_EQ(result->two_tier.dp.rows, 268'796);
  EXPECT_NEAR(result->two_tier.dp.coverage, 0.783, 0.0005);
  EXPECT_EQ(result->two_tier.flex.rows, 0);
  EXPECT_EQ(result->two_tier.rw.rows, 10'000'000 - 268'796);
  EXPECT_NEAR(result->two_tier.comm.all_to_all_reduction, 0.783, 0.0005);

  const TierPlan& three = result->three_tier;
  EXPECT_EQ(three.dp.rows, 20'551);
  EXPECT_EQ(three.flex.rows, 1'622'723);
  EXPECT_EQ(three.rw.rows, 10'000'000 - 20'551 - 1'622'723);
  EXPECT_NEAR(three.dp.coverage + three.flex.coverage, 0.892, 0.0005);
  EXPECT_NEAR(three.dp.coverage + three.flex.coverage + three.rw.coverage, 1.0, 1e-12);
  // Memory-neutral: within one Flex row's cost of 0.
  const double flex_row = (6.0 / 8 - 1.0 / 32) * 256 * 4;
  EXPECT_LE(three.memory.marginal_bytes, 1e-3);
  EXPECT_GT(three.memory.marginal_bytes, -flex_row - 1e-3);
  EXPECT_THAT(three.dp.ranks, testing::ElementsAre(std::make_pair(0, 20'551)));
  EXPECT_THAT(three.flex.ranks, testing::ElementsAre(std::make_pair(20'551, 1'643'274)));
}

TEST(FlexShardTiersTest, TheFlexCommunicationCutDependsOnTheBandwidths) {
  const RankFrequencyCurve curve = RankFrequencyCurve::Zipf(10'000'000, 1.0);
  TierInputs in = WorkedCaseInputs(curve);
  in.cut_flex_at_comm_breakpoint = true;
  absl::StatusOr<TierResult> fig3 = ComputeTiers(in);
  ASSERT_TRUE(fig3.ok());
  // All-reduce at 3x the all-to-all: Flex still beats RW at the memory cut.
  EXPECT_EQ(fig3->three_tier.flex.rows, 1'622'723);
  // A cross-host ring all-reduce over the same one NIC per GPU moves every byte twice (half the
  // all-to-all's bandwidth): the cut binds.
  in.bandwidths.all_reduce_cross_gibps = in.bandwidths.all_to_all_global_gibps / 2;
  absl::StatusOr<TierResult> one_nic = ComputeTiers(in);
  ASSERT_TRUE(one_nic.ok());
  EXPECT_LT(one_nic->three_tier.flex.rows, 1'622'723);
  EXPECT_EQ(one_nic->three_tier.dp.rows, 20'551);
  // Every Flex row it keeps still saves communication: p >= the Flex breakpoint.
  const double last_p =
      500 * curve.ShareOfRank(20'551 + one_nic->three_tier.flex.rows - 1);
  EXPECT_GE(last_p, one_nic->breakpoints.flex_comm);
  EXPECT_LT(500 * curve.ShareOfRank(20'551 + one_nic->three_tier.flex.rows),
            one_nic->breakpoints.flex_comm);
}

TEST(FlexShardTiersTest, ParetoPointsComeInOrderAndTheCurveIsMonotone) {
  const RankFrequencyCurve curve = RankFrequencyCurve::Zipf(10'000'000, 1.0);
  absl::StatusOr<TierResult> result = ComputeTiers(WorkedCaseInputs(curve));
  ASSERT_TRUE(result.ok());
  const auto& p = result->points;
  EXPECT_LT(p[0].dp_rows, p[1].dp_rows);  // A before B
  EXPECT_LT(p[1].dp_rows, p[2].dp_rows);  // B before C (p_comm < p_mem)
  EXPECT_EQ(p[3].dp_rows, 10'000'000);
  EXPECT_EQ(p[3].coverage, 1.0);
  EXPECT_LT(p[2].marginal_comm_ms, p[1].marginal_comm_ms);  // C saves the most communication
  EXPECT_LT(p[1].marginal_comm_ms, p[0].marginal_comm_ms);
  ASSERT_FALSE(result->pareto_curve.empty());
  for (size_t i = 1; i < result->pareto_curve.size(); ++i) {
    EXPECT_GE(result->pareto_curve[i].dp_rows, result->pareto_curve[i - 1].dp_rows);
    EXPECT_LE(result->pareto_curve[i].marginal_comm_ms,
              result->pareto_curve[i - 1].marginal_comm_ms + 1e-9);
  }
}

TEST(FlexShardTiersTest, MergedTablesGiveTheTiersOfOneTable) {
  // Two identical halves of the worked case's distribution: the same rows per tier in total,
  // split evenly (section 4.6: merge and shard one distribution).
  const RankFrequencyCurve curve = RankFrequencyCurve::Zipf(5'000'000, 1.0);
  TierInputs in = WorkedCaseInputs(curve);
  in.tables = {{.name = "a", .curve = &curve, .lookups_per_sample = 250, .dim = 256},
               {.name = "b", .curve = &curve, .lookups_per_sample = 250, .dim = 256}};
  absl::StatusOr<TierResult> merged = ComputeTiers(in);
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(merged->three_tier.dp.ranks[0], merged->three_tier.dp.ranks[1]);
  // The budget ends between the two tables' equal rows: one table may hold one more.
  const auto flex_rows = [&](int t) {
    return merged->three_tier.flex.ranks[t].second - merged->three_tier.flex.ranks[t].first;
  };
  EXPECT_LE(std::abs(flex_rows(0) - flex_rows(1)), 1);
  EXPECT_GE(flex_rows(0), flex_rows(1));  // ties go to the first table
}

TEST(FlexShardTiersTest, InferenceReplicatesAtOneTimesAndHasNoAllReduce) {
  const RankFrequencyCurve curve = RankFrequencyCurve::Zipf(10'000'000, 1.0);
  TierInputs in = WorkedCaseInputs(curve);
  in.objective = Objective::kInference;
  absl::StatusOr<TierResult> result = ComputeTiers(in);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->multiplier, 1.0);
  EXPECT_EQ(result->breakpoints.dp_comm, 0.0);
  EXPECT_NEAR(result->breakpoints.memory, (1.0 - 1.0 / 32) / 4096, 1e-15);
  EXPECT_EQ(result->two_tier.comm.global_all_reduce_bytes, 0.0);
  EXPECT_EQ(result->three_tier.comm.cross_all_reduce_bytes, 0.0);
  EXPECT_GT(result->two_tier.dp.rows, 268'796);  // cheaper replicas: more of them
}

TEST(FlexShardTiersTest, ABudgetBuysMoreReplicatedRows) {
  const RankFrequencyCurve curve = RankFrequencyCurve::Zipf(10'000'000, 1.0);
  TierInputs in = WorkedCaseInputs(curve);
  in.memory_budget_bytes = kBytesPerGiB;
  absl::StatusOr<TierResult> result = ComputeTiers(in);
  ASSERT_TRUE(result.ok());
  EXPECT_GT(result->two_tier.dp.rows, 268'796);
  EXPECT_GT(result->three_tier.flex.rows, 1'622'723);
  EXPECT_LE(result->three_tier.memory.marginal_bytes, kBytesPerGiB + 1e-3);
  EXPECT_TRUE(result->three_tier.within_budget);
}

TEST(FlexShardTiersTest, ErrorsNameTheInput) {
  const RankFrequencyCurve curve = RankFrequencyCurve::Zipf(100, 1.0);
  TierInputs in = WorkedCaseInputs(curve);
  in.local_batch = 0;
  EXPECT_THAT(std::string(ComputeTiers(in).status().message()),
              testing::HasSubstr("local_batch"));
  in = WorkedCaseInputs(curve);
  in.tables[0].curve = nullptr;
  EXPECT_THAT(std::string(ComputeTiers(in).status().message()),
              testing::HasSubstr("tables[0] (history).curve"));
  in = WorkedCaseInputs(curve);
  in.bandwidths.all_reduce_cross_gibps = 0;
  EXPECT_EQ(ComputeTiers(in).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace shardplan::flexshard
