#include "planner/algorithm_registry.h"

#include <cstdio>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "planner/baselines/exhaustive_planner.h"
#include "planner/baselines/greedy_planner.h"
#include "planner/baselines/random_planner.h"
#include "planner/neuroshard/neuroshard_planner.h"
#include "planner/torchrec/torchrec_planner.h"

namespace shardplan {

void AlgorithmRegistry::Register(std::unique_ptr<Planner> planner) {
  const std::string name = planner->info().name;
  if (!planners_.emplace(name, std::move(planner)).second) {
    // Two planners under one name is a start-up wiring bug; fail loudly at once.
    std::fprintf(stderr, "shardplan: algorithm \"%s\" registered twice\n", name.c_str());
    std::abort();
  }
}

absl::StatusOr<const Planner*> AlgorithmRegistry::Find(const std::string& name) const {
  auto it = planners_.find(name);
  if (it != planners_.end()) return it->second.get();
  std::vector<std::string> known;
  for (const auto& [known_name, planner] : planners_) known.push_back(known_name);
  return absl::NotFoundError(
      absl::StrCat("unknown algorithm \"", name, "\"; known: ", absl::StrJoin(known, ", ")));
}

std::vector<const Planner*> AlgorithmRegistry::List() const {
  std::vector<const Planner*> planners;
  planners.reserve(planners_.size());
  for (const auto& [name, planner] : planners_) planners.push_back(planner.get());
  return planners;
}

AlgorithmRegistry BuiltinAlgorithms() {
  AlgorithmRegistry registry;
  registry.Register(std::make_unique<RandomPlanner>());
  for (GreedyWeight weight : {GreedyWeight::kSize, GreedyWeight::kDim, GreedyWeight::kLookup,
                              GreedyWeight::kSizeLookup}) {
    registry.Register(std::make_unique<GreedyPlanner>(weight));
  }
  registry.Register(std::make_unique<ExhaustivePlanner>());
  registry.Register(std::make_unique<NeuroShardPlanner>());
  registry.Register(std::make_unique<TorchRecPlanner>());
  return registry;
}

}  // namespace shardplan
