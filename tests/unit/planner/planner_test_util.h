#ifndef SHARDPLAN_TESTS_UNIT_PLANNER_PLANNER_TEST_UTIL_H_
#define SHARDPLAN_TESTS_UNIT_PLANNER_PLANNER_TEST_UTIL_H_

// Builders and a fake cost model shared by the planner unit tests.

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/domain/cost_model.h"
#include "planner/domain/fetch_cost.h"
#include "planner/domain/plan.h"
#include "planner/domain/task.h"
#include "planner/framework/algorithm.h"
#include "planner/framework/algorithm_registry.h"
#include "planner/framework/stop_signal.h"

namespace shardplan::test {

inline constexpr int64_t kGiB = int64_t{1} << 30;

inline Table MakeTable(std::string name, int64_t rows, int32_t dim, double pooling_factor = 1.0) {
  Table table;
  table.name = std::move(name);
  table.rows = rows;
  table.dim = dim;
  table.pooling_factor = pooling_factor;
  return table;
}

// An empty sharding of `type` for table `table`, to add shards to.
inline TableSharding ShardingOf(ShardingType type, std::string table = "t") {
  TableSharding sharding;
  sharding.table = std::move(table);
  sharding.sharding_type = type;
  return sharding;
}

// `type` shards of `rows` x `columns` on `devices`, in that order: row blocks of rows / n (the
// remainder dropped), or whole replicas for DATA_PARALLEL.
inline TableSharding EvenShards(ShardingType type, const std::vector<int32_t>& devices,
                                int64_t rows, int32_t columns) {
  TableSharding sharding = ShardingOf(type);
  const int64_t per = rows / static_cast<int64_t>(devices.size());
  const bool replica = type == ShardingType::kDataParallel;
  for (size_t i = 0; i < devices.size(); ++i) {
    sharding.shards.push_back({devices[i], replica ? 0 : static_cast<int64_t>(i) * per,
                               replica ? rows : per, 0, columns});
  }
  return sharding;
}

// A table of exactly `bytes` (fp32, dim 4: rows = bytes / 16).
inline Table TableOfBytes(std::string name, int64_t bytes, int32_t dim = 4,
                          double pooling_factor = 1.0) {
  return MakeTable(std::move(name), bytes / (4 * dim), dim, pooling_factor);
}

inline Task MakeTask(std::vector<Table> tables, std::vector<int64_t> capacities) {
  Task task;
  task.tables = std::move(tables);
  task.topology.memory_bytes = std::move(capacities);
  return task;
}

inline Task MakeTask(std::vector<Table> tables, int num_devices, int64_t capacity) {
  return MakeTask(std::move(tables),
                  std::vector<int64_t>(static_cast<size_t>(num_devices), capacity));
}

// Per-fetch costs given row by row ("0,1;1,0": microseconds, whatever the bytes), on
// `num_devices` devices of one host.
inline FetchCostMatrix PerFetchCosts(const std::string& rows, int num_devices) {
  Topology topology = MakeTask({}, num_devices, kGiB).topology;
  absl::StatusOr<std::vector<double>> costs =
      FetchCostMatrix::ParseRows(rows, num_devices, "fetch_cost_us");
  EXPECT_TRUE(costs.ok()) << costs.status();
  if (costs.ok()) topology.fetch_cost_us = *std::move(costs);
  return FetchCostMatrix::OfTopology(topology);
}

// Device of every table of a table-wise plan, in plan order.
inline std::vector<int32_t> Devices(const Plan& plan) {
  std::vector<int32_t> devices;
  for (const TableSharding& sharding : plan.tables) {
    devices.push_back(sharding.shards.empty() ? -1 : sharding.shards[0].device);
  }
  return devices;
}

// A cost model with formulas simple enough to compute by hand:
//   compute[d] = fixed_ms + compute_per_lookup_column * sum(columns x pooling factor)
//                + compute_per_row * sum(rows)
//   bw[d]      = bw_per_column * dim_sum[d]
//   fw[d]      = fw_per_column * dim_sum[d] + wait_factor * wait[d]
class FakeCostModel : public CostModel {
 public:
  double fixed_ms = 0.0;
  double compute_per_lookup_column = 1.0;
  double compute_per_row = 0.0;
  double bw_per_column = 0.0;
  double fw_per_column = 0.0;
  double wait_factor = 0.0;
  absl::Status supports = absl::OkStatus();
  // Extra wall time per ComputeCost call, to make searches slow for stop tests.
  int64_t compute_sleep_us = 0;

  std::string id() const override { return "fake@1"; }
  absl::Status CheckSupports(const Task&) const override { return supports; }

  double ComputeCost(const CostContext&, std::span<const ShardView> shards) const override {
    compute_calls.fetch_add(1, std::memory_order_relaxed);
    if (compute_sleep_us > 0) {
      const auto until =
          std::chrono::steady_clock::now() + std::chrono::microseconds(compute_sleep_us);
      while (std::chrono::steady_clock::now() < until) {
      }
    }
    double cost = fixed_ms;
    for (const ShardView& shard : shards) {
      cost += compute_per_lookup_column * shard.columns * shard.table->pooling_factor +
              compute_per_row * static_cast<double>(shard.rows);
    }
    return cost;
  }

  std::vector<double> BackwardCommCosts(const CostContext&,
                                        std::span<const int64_t> dim_sums) const override {
    std::vector<double> costs;
    for (int64_t dims : dim_sums) costs.push_back(bw_per_column * static_cast<double>(dims));
    return costs;
  }

  std::vector<double> ForwardCommCosts(const CostContext&, std::span<const int64_t> dim_sums,
                                       std::span<const double> waits) const override {
    last_waits.assign(waits.begin(), waits.end());
    std::vector<double> costs;
    for (size_t d = 0; d < dim_sums.size(); ++d) {
      costs.push_back(fw_per_column * static_cast<double>(dim_sums[d]) + wait_factor * waits[d]);
    }
    return costs;
  }

  mutable std::atomic<int64_t> compute_calls{0};
  mutable std::vector<double> last_waits;
};

inline std::string Message(const absl::Status& status) { return std::string(status.message()); }

// Runs `planner` directly (no validation or evaluation), as PlanTask would call it.
inline absl::StatusOr<Plan> RunPlanner(const Algorithm& planner, const Task& task,
                                       const std::map<std::string, std::string>& params = {},
                                       uint64_t seed = 0, const StopSignal* stop = nullptr,
                                       const CostModel* model = nullptr) {
  static const FakeCostModel* const kDefaultModel = new FakeCostModel();
  static const StopSignal* const kNeverStop = new StopSignal();
  absl::StatusOr<ParamValues> values = ResolveParams(planner.info().params, params);
  if (!values.ok()) return values.status();
  PlanningContext context;
  context.cost_model = model != nullptr ? model : kDefaultModel;
  context.params = *values;
  context.seed = seed;
  context.stop = stop != nullptr ? stop : kNeverStop;
  return planner.Run(task, context);
}

}  // namespace shardplan::test

// EXPECT that `expr` (a Status or StatusOr) fails with `code` and a message containing `text`.
#define EXPECT_STATUS(expr, expected_code, expected_text)                                  \
  do {                                                                                     \
    const ::absl::Status _status = ::shardplan::test::StatusOf(expr);                      \
    EXPECT_EQ(_status.code(), expected_code) << _status;                                   \
    EXPECT_THAT(::shardplan::test::Message(_status), ::testing::HasSubstr(expected_text)); \
  } while (false)

namespace shardplan::test {
inline absl::Status StatusOf(const absl::Status& status) { return status; }
template <typename T>
absl::Status StatusOf(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}
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

// The names of a registry's algorithms, in its order.
inline std::vector<std::string> AlgorithmNames(const AlgorithmRegistry& registry) {
  std::vector<std::string> names;
  for (const Algorithm* algorithm : registry.List()) names.push_back(algorithm->info().name);
  return names;
}

}  // namespace shardplan::test

#endif  // SHARDPLAN_TESTS_UNIT_PLANNER_PLANNER_TEST_UTIL_H_
