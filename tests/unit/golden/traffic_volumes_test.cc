// The traffic matrix (planner/domain/traffic_matrix.h) against today's per-collective volumes:
// on every golden plan (the shipped planners' on the example tasks, and hand-written plans of
// each of the five types), each device's forward volume is its row sum and each backward
// volume its column sum, collective by collective.

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "costmodels/analytic/analytic_cost_model.h"
#include "gtest/gtest.h"
#include "planner/algorithms/builtin_algorithms.h"
#include "planner/domain/sharding_semantics.h"
#include "planner/domain/traffic_matrix.h"
#include "planner/framework/algorithm_registry.h"
#include "planner/framework/plan_task.h"
#include "tests/unit/golden/golden_plans.h"

namespace shardplan {
namespace {

struct Volumes {
  std::vector<double> all_to_all_forward, all_to_all_backward, reduce_scatter, all_gather,
      all_reduce;
  explicit Volumes(int n)
      : all_to_all_forward(n), all_to_all_backward(n), reduce_scatter(n), all_gather(n),
        all_reduce(n) {}
};

// Today's volumes: the dim sums' all-to-all (B x dim sum x 4 each pass) and the bytes every
// CollectiveDemand charges each of its devices.
Volumes TodaysVolumes(const Task& task, const PlacementQueries& queries) {
  const int n = task.topology.num_devices();
  Volumes volumes(n);
  for (int d = 0; d < n; ++d) {
    const double pooled = static_cast<double>(task.batch_size) * queries.dim_sums[d] *
                          kActivationBytes;
    volumes.all_to_all_forward[d] = pooled;
    volumes.all_to_all_backward[d] = pooled;
  }
  for (const CollectiveDemand& demand : queries.collectives) {
    std::vector<double>* into = nullptr;
    switch (demand.collective) {
      case Collective::kAllToAll:
        into = demand.pass == Pass::kForward ? &volumes.all_to_all_forward
                                             : &volumes.all_to_all_backward;
        break;
      case Collective::kReduceScatter:
        into = &volumes.reduce_scatter;
        break;
      case Collective::kAllGather:
        into = &volumes.all_gather;
        break;
      case Collective::kAllReduce:
        into = &volumes.all_reduce;
        break;
    }
    for (int32_t device : demand.devices) (*into)[device] += demand.bytes;
  }
  return volumes;
}

void ExpectNear(double actual, double expected, const std::string& what) {
  EXPECT_NEAR(actual, expected, 1e-9 * std::max(1.0, std::fabs(expected))) << what;
}

int CheckPlan(const std::string& name, const Task& task, const Plan& plan) {
  SCOPED_TRACE(name);
  const absl::StatusOr<PlacementQueries> queries = DescribePlacement(task, plan);
  const absl::StatusOr<LayoutTraffic> traffic = PlanTraffic(task, plan);
  EXPECT_TRUE(queries.ok()) << queries.status();
  EXPECT_TRUE(traffic.ok()) << traffic.status();
  if (!queries.ok() || !traffic.ok()) return 0;
  const Volumes today = TodaysVolumes(task, *queries);
  for (int d = 0; d < task.topology.num_devices(); ++d) {
    const std::string device = absl::StrCat(" of device ", d);
    ExpectNear(traffic->forward_all_to_all.RowSum(d), today.all_to_all_forward[d],
               "forward all-to-all" + device);
    ExpectNear(traffic->backward_all_to_all.ColumnSum(d), today.all_to_all_backward[d],
               "backward all-to-all" + device);
    ExpectNear(traffic->reduce_scatter.RowSum(d), today.reduce_scatter[d],
               "reduce-scatter" + device);
    ExpectNear(traffic->all_gather.ColumnSum(d), today.all_gather[d], "all-gather" + device);
    ExpectNear(traffic->all_reduce.RowSum(d), today.all_reduce[d], "all-reduce" + device);
  }
  return 1;
}

TEST(TrafficVolumesTest, TodaysVolumesAreTheMatrixSumsOnEveryGoldenPlan) {
  const AlgorithmRegistry registry = BuiltinAlgorithms();
  const AnalyticCostModel analytic;
  int checked = 0;
  for (const golden::ExampleTask& example : golden::ExampleTasks()) {
    for (const golden::PlannerCase& planner : golden::PlannerCases()) {
      PlanTaskOptions options;
      options.params = planner.params;
      options.seed = 7;
      const absl::StatusOr<Plan> plan =
          PlanTask(**registry.Find(planner.algorithm), example.task, analytic, options);
      if (plan.ok()) checked += CheckPlan(example.name + " " + planner.label, example.task, *plan);
    }
    for (const auto& [label, plan] : golden::HandWrittenPlans(example.task)) {
      checked += CheckPlan(example.name + " hand-written " + label, example.task, plan);
    }
  }
  EXPECT_EQ(checked, 37);  // the golden file's cases less the five plans no planner made
}

}  // namespace
}  // namespace shardplan
