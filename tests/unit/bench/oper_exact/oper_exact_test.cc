// The exact check's models on tiny instances: CBC's optimum is never worse than OPER's
// heuristics, equals them where they are provably optimal, and every solution passes the
// planner's own checks (exact_check.h).
#include <algorithm>
#include <memory>
#include <vector>

#include "bench/oper_exact/exact_check.h"
#include "bench/oper_exact/exact_comparison.h"
#include "bench/oper_exact/exact_instance.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan::oper_exact {
namespace {

using ::testing::HasSubstr;

// Cold: no warm start, so CBC finds its optimum on its own.
constexpr MipOptions kCold{.time_limit_s = 20.0, .warm_start = false};

std::unique_ptr<ExactInstance> Instance(const InstanceSpec& spec) {
  absl::StatusOr<std::unique_ptr<ExactInstance>> instance = MakeInstance(spec);
  EXPECT_TRUE(instance.ok()) << instance.status();
  return instance.ok() ? *std::move(instance) : nullptr;
}

InstanceSpec Tiny(int devices, int per_host, uint64_t seed) {
  return {.tables = 2,
          .devices = devices,
          .devices_per_host = per_host,
          .min_rows = 500,
          .max_rows = 5'000,
          .threshold = 0.25,
          .seed = seed};
}

TEST(OperExactTest, PlacementOnOneDeviceIsTheGreedysAndPerfect) {
  InstanceSpec spec = Tiny(1, 0, 3);
  const auto instance = Instance(spec);
  ASSERT_NE(instance, nullptr);
  absl::StatusOr<PlacementComparison> result = ComparePlacement(*instance, kCold);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->exact.mip.proven_optimal);
  EXPECT_DOUBLE_EQ(result->heuristic.value(), 2.0);
  EXPECT_NEAR(result->exact.mip.objective, 2.0, 1e-9);
  EXPECT_NEAR(result->exact_score.value(), 2.0, 1e-9);
}

TEST(OperExactTest, IdenticalPartitionsAreBalancedByBoth) {
  // One uniform table of 1,000 rows at threshold 0.25 by memory: equal partitions, as many as a
  // multiple of the devices, so the greedy's round robin is perfect and so must CBC's be.
  InstanceSpec spec{.tables = 1,
                    .devices = 2,
                    .min_rows = 1'000,
                    .max_rows = 1'000,
                    .zipf_exponent = 0.0,
                    .threshold = 0.25};
  const auto instance = Instance(spec);
  ASSERT_NE(instance, nullptr);
  const std::vector<oper::Partition>& partitions = instance->partitions;
  ASSERT_EQ(partitions.size() % 2, 0u);
  for (const oper::Partition& partition : partitions) {
    ASSERT_EQ(partition.bytes, partitions.front().bytes);
    ASSERT_NEAR(partition.lookups, partitions.front().lookups, 1e-9 * partition.lookups);
  }
  absl::StatusOr<PlacementComparison> result = ComparePlacement(*instance, kCold);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_NEAR(result->heuristic.value(), 2.0, 1e-9);
  EXPECT_TRUE(result->exact.mip.proven_optimal);
  EXPECT_NEAR(result->exact_score.value(), result->heuristic.value(), 1e-9);
}

TEST(OperExactTest, PlacementOptimumIsNeverWorseThanTheGreedy) {
  for (const auto& [devices, per_host] : {std::pair{2, 0}, std::pair{3, 0}, std::pair{4, 2}}) {
    for (uint64_t seed : {0, 1}) {
      const auto instance = Instance(Tiny(devices, per_host, seed));
      ASSERT_NE(instance, nullptr);
      absl::StatusOr<PlacementComparison> result = ComparePlacement(*instance, kCold);
      ASSERT_TRUE(result.ok()) << result.status();  // the MIP's placement re-checks
      ASSERT_TRUE(result->exact.mip.proven_optimal) << devices << " devices, seed " << seed;
      // The model's value is the placement's, recomputed from the owners.
      EXPECT_NEAR(result->exact.mip.objective, result->exact_score.value(), 1e-6);
      EXPECT_LE(result->exact_score.value(), result->heuristic.value() + 1e-9);
      EXPECT_LE(result->exact.mip.bound, result->exact_score.value() + 1e-9);
    }
  }
}

// Algorithm 1 and the replication MIP, both on OPER's greedy placement of `instance`.
absl::StatusOr<ReplicationComparison> ReplicationOnGreedyPlacement(const ExactInstance& instance) {
  absl::StatusOr<PlacementComparison> placement = ComparePlacement(instance, kCold);
  if (!placement.ok()) return placement.status();
  return CompareReplication(instance, placement->heuristic_owner, kCold);
}

TEST(OperExactTest, WithoutSpareMemoryBothKeepTheModelParallelCommunication) {
  InstanceSpec spec = Tiny(4, 2, 0);
  spec.extra_memory = 0.0;
  const auto instance = Instance(spec);
  ASSERT_NE(instance, nullptr);
  absl::StatusOr<ReplicationComparison> result = ReplicationOnGreedyPlacement(*instance);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_GT(result->model_parallel_us, 0.0);
  EXPECT_EQ(result->heuristic_replicas, 0);
  EXPECT_EQ(result->exact_replicas, 0);
  EXPECT_TRUE(result->exact.mip.proven_optimal);
  EXPECT_NEAR(result->heuristic_us, result->model_parallel_us, 1e-12);
  EXPECT_NEAR(result->exact_us, result->model_parallel_us, 1e-9 * result->model_parallel_us);
}

TEST(OperExactTest, WithRoomForEverythingBothRemoveAllCommunication) {
  // Every device can hold every table: Algorithm 1 replicates all it fetches, which is optimal.
  InstanceSpec spec = Tiny(3, 0, 2);
  spec.capacity_slack = 4.0;
  spec.extra_memory = 4.0;
  const auto instance = Instance(spec);
  ASSERT_NE(instance, nullptr);
  absl::StatusOr<ReplicationComparison> result = ReplicationOnGreedyPlacement(*instance);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_GT(result->model_parallel_us, 0.0);
  EXPECT_DOUBLE_EQ(result->heuristic_us, 0.0);
  EXPECT_TRUE(result->exact.mip.proven_optimal);
  EXPECT_NEAR(result->exact_us, 0.0, 1e-12);
}

TEST(OperExactTest, ReplicationOptimumIsNeverWorseThanAlgorithm1) {
  for (const auto& [devices, per_host] : {std::pair{2, 0}, std::pair{4, 2}, std::pair{4, 0}}) {
    for (uint64_t seed : {0, 1}) {
      InstanceSpec spec = Tiny(devices, per_host, seed);
      spec.inter_host_latency_us = 2.0;
      spec.extra_memory = 0.1;
      const auto instance = Instance(spec);
      ASSERT_NE(instance, nullptr);
      absl::StatusOr<ReplicationComparison> result = ReplicationOnGreedyPlacement(*instance);
      ASSERT_TRUE(result.ok()) << result.status();  // the MIP's copies re-check
      ASSERT_TRUE(result->exact.mip.proven_optimal) << devices << " devices, seed " << seed;
      // The model's value is the copies' communication, recomputed by CommunicationMatrix.
      EXPECT_NEAR(result->exact.mip.objective, result->exact_us,
                  1e-6 * std::max(1.0, result->exact_us));
      EXPECT_LE(result->exact_us, result->heuristic_us * (1 + 1e-9));
      EXPECT_LE(result->heuristic_us, result->model_parallel_us * (1 + 1e-9));
    }
  }
}

TEST(OperExactTest, CheckCopiesRefusesAPathToADeviceWithoutACopy) {
  const auto instance = Instance(Tiny(2, 0, 0));
  ASSERT_NE(instance, nullptr);
  std::vector<int32_t> owner(instance->partitions.size(), 0);
  oper::Copies copies = oper::OwnersOnly(owner, 2);
  copies.path[0][1] = 1;  // device 1 holds no copy of partition 0
  absl::StatusOr<double> comm =
      CheckCopies(*instance, copies, std::vector<int64_t>(2, int64_t{1} << 30));
  EXPECT_EQ(comm.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(comm.status().message(), HasSubstr("holds no copy"));
}

TEST(OperExactTest, RefusesABadSpecNamingTheField) {
  InstanceSpec spec = Tiny(2, 0, 0);
  spec.min_rows = 10;
  spec.max_rows = 5;
  absl::StatusOr<std::unique_ptr<ExactInstance>> instance = MakeInstance(spec);
  EXPECT_EQ(instance.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(instance.status().message(), HasSubstr("instance.min_rows"));
}

}  // namespace
}  // namespace shardplan::oper_exact
