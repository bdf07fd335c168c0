// The fetch-cost matrix: from the topology's links and latencies, or the task's own matrix.
#include "planner/domain/fetch_cost.h"

#include "gtest/gtest.h"
#include "planner/domain/validation.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

Topology TwoHostsOfTwo() {
  Topology topology = test::MakeTask({}, 4, test::kGiB).topology;
  topology.devices_per_host = 2;
  topology.intra_host_bandwidth_gibps = 100;
  topology.inter_host_bandwidth_gibps = 10;
  return topology;
}

TEST(FetchCostTest, TheTopologyGivesLatencyPlusBytesOverTheLink) {
  Topology topology = TwoHostsOfTwo();
  topology.intra_host_latency_us = 2;
  topology.inter_host_latency_us = 5;
  const FetchCostMatrix cost = FetchCostMatrix::OfTopology(topology);
  const double bytes = kBytesPerGiB / 1e6;  // a microsecond at 1 GiB/s
  EXPECT_DOUBLE_EQ(cost.FetchUs(0, 0, bytes), 0.0);
  EXPECT_DOUBLE_EQ(cost.FetchUs(0, 1, bytes), 2.0 + 0.01);
  EXPECT_DOUBLE_EQ(cost.FetchUs(3, 0, bytes), 5.0 + 0.1);
}

TEST(FetchCostTest, TheTasksMatrixReplacesTheLinks) {
  Topology topology = TwoHostsOfTwo();
  topology.inter_host_latency_us = 5;
  topology.fetch_cost_us = {0, 1, 4, 4, 1, 0, 4, 4, 4, 4, 0, 1, 4, 4, 1, 0.5};
  const FetchCostMatrix cost = FetchCostMatrix::OfTopology(topology);
  EXPECT_DOUBLE_EQ(cost.FetchUs(1, 2, 1e9), 4.0);  // per fetch, whatever the bytes
  EXPECT_DOUBLE_EQ(cost.FetchUs(3, 3, 64), 0.5);   // a local lookup may be charged
  EXPECT_DOUBLE_EQ(test::PerFetchCosts("0,3;2,0", 2).FetchUs(1, 0, 64), 2.0);
}

TEST(FetchCostTest, WrittenRowsAreCheckedNamingTheEntry) {
  EXPECT_STATUS(FetchCostMatrix::ParseRows("0,1;1,0", 3, "parameters.fetch_cost_us"),
                absl::StatusCode::kInvalidArgument,
                "parameters.fetch_cost_us: needs 3 rows (one per device, split by ';'), got 2");
  EXPECT_STATUS(FetchCostMatrix::ParseRows("0,1;1", 2, "f"), absl::StatusCode::kInvalidArgument,
                "f: row 1 has 1 values, needs 2");
  EXPECT_STATUS(FetchCostMatrix::ParseRows("0,-1;1,0", 2, "f"), absl::StatusCode::kInvalidArgument,
                "f: entry [0][1] \"-1\" is not a non-negative number of microseconds");
}

TEST(FetchCostTest, ValidationRefusesAMisshapenOrNegativeMatrixAndLatency) {
  Task task = test::MakeTask({test::MakeTable("t", 100, 4)}, 2, test::kGiB);
  task.topology.fetch_cost_us = {0, 1, 1};
  EXPECT_STATUS(ValidateTask(task), absl::StatusCode::kInvalidArgument,
                "topology.fetch_cost_us: needs num_devices x num_devices = 4 entries");
  task.topology.fetch_cost_us = {0, 1, -1, 0};
  EXPECT_STATUS(ValidateTask(task), absl::StatusCode::kInvalidArgument,
                "topology.fetch_cost_us[2]: must be >= 0, got -1");
  task.topology.fetch_cost_us.clear();
  task.topology.inter_host_latency_us = std::nan("");
  EXPECT_STATUS(ValidateTask(task), absl::StatusCode::kInvalidArgument,
                "topology.inter_host_latency_us: must be finite");
}

}  // namespace
}  // namespace shardplan
