#ifndef SHARDPLAN_TESTS_UNIT_PLANNER_NEUROSHARD_NEUROSHARD_TEST_UTIL_H_
#define SHARDPLAN_TESTS_UNIT_PLANNER_NEUROSHARD_NEUROSHARD_TEST_UTIL_H_

// A cost model and tasks shared by the NeuroShard tests.

#include <cmath>
#include <span>

#include "planner_test_util.h"

namespace shardplan::test {

// FakeCostModel's formulas plus a non-additive compute term (per-device overhead growing with
// the square root of the shard count), so that a device's cost is not the sum of its shards'
// and comm that grows with dims and imbalance.
struct NonAdditiveModel : FakeCostModel {
  NonAdditiveModel() {
    compute_per_lookup_column = 0.01;
    compute_per_row = 1e-6;
    bw_per_column = 0.004;
    fw_per_column = 0.003;
    wait_factor = 0.2;
  }
  double ComputeCost(const CostContext& context, std::span<const ShardView> shards) const override {
    return FakeCostModel::ComputeCost(context, shards) +
           0.3 * std::sqrt(static_cast<double>(shards.size()));
  }
};

inline Task SixTables(int num_devices) {
  return MakeTask({MakeTable("a", 400000, 64, 4.0), MakeTable("b", 100000, 32, 20.0),
                   MakeTable("c", 2000000, 16, 1.0), MakeTable("d", 50000, 128, 2.0),
                   MakeTable("e", 800000, 8, 12.0), MakeTable("f", 10000, 64, 30.0)},
                  num_devices, kGiB / 4);
}

}  // namespace shardplan::test

#endif  // SHARDPLAN_TESTS_UNIT_PLANNER_NEUROSHARD_NEUROSHARD_TEST_UTIL_H_
