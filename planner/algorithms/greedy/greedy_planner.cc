#include "planner/algorithms/greedy/greedy_planner.h"

#include <cstddef>

#include "absl/strings/str_cat.h"

namespace shardplan {
namespace {

AlgorithmInfo MakeInfo(GreedyWeight weight) {
  AlgorithmInfo info;
  std::string what;
  info.name = GreedyWeightAlgorithmName(weight);
  switch (weight) {
    case GreedyWeight::kDim:
      what = "dim";
      break;
    case GreedyWeight::kSize:
      what = "memory size";
      break;
    case GreedyWeight::kLookup:
      what = "dim x pooling factor";
      break;
    case GreedyWeight::kSizeLookup:
      what = "dim x pooling factor x log10(rows)";
      break;
  }
  info.description = absl::StrCat("Tables by ", what,
                                  ", largest first, each to the device with the smallest sum "
                                  "of it that has room (NeuroShard's ",
                                  info.name, " baseline).");
  info.sharding_types = {ShardingType::kTableWise};
  info.uses_cost_model = false;
  return info;
}

}  // namespace

GreedyPlanner::GreedyPlanner(GreedyWeight weight) : weight_(weight), info_(MakeInfo(weight)) {}

absl::StatusOr<Plan> GreedyPlanner::Run(const Task& task, const PlanningContext& context) const {
  return WeightedGreedyPlan(task, weight_, *context.stop, [&](size_t placed, size_t total) {
    if (!context.on_progress) return;
    context.on_progress(
        PlanningProgress{absl::StrCat(info_.name, ": placed ", placed, "/", total, " units"),
                         static_cast<double>(placed) / static_cast<double>(total)});
  });
}

}  // namespace shardplan
