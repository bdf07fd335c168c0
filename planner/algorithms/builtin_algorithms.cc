#include "planner/algorithms/builtin_algorithms.h"

#include <memory>
#include <utility>
#include <vector>

#include "planner/algorithms/autoshard/autoshard_planner.h"
#include "planner/algorithms/dreamshard/dreamshard_planner.h"
#include "planner/algorithms/exhaustive/exhaustive_planner.h"
#include "planner/algorithms/flexshard/flexshard_planner.h"
#include "planner/algorithms/greedy/greedy_planner.h"
#include "planner/algorithms/neuroshard/neuroshard_planner.h"
#include "planner/algorithms/oper/oper_planner.h"
#include "planner/algorithms/random/random_planner.h"
#include "planner/algorithms/torchrec/torchrec_planner.h"

namespace shardplan {

AlgorithmRegistry BuiltinAlgorithms() {
  AlgorithmRegistry registry;
  registry.Register(std::make_unique<RandomPlanner>());
  for (GreedyWeight weight : {GreedyWeight::kSize, GreedyWeight::kDim, GreedyWeight::kLookup,
                              GreedyWeight::kSizeLookup}) {
    registry.Register(std::make_unique<GreedyPlanner>(weight));
  }
  registry.Register(std::make_unique<ExhaustivePlanner>());
  // NeuroShard's portfolio costs torchrec's plan too: it gets the algorithm, not its header
  // (algorithms never include each other). The registry owns both; its map keeps them in place.
  auto torchrec = std::make_unique<TorchRecPlanner>();
  registry.Register(
      std::make_unique<NeuroShardPlanner>(std::vector<const Algorithm*>{torchrec.get()}));
  registry.Register(std::move(torchrec));
  registry.Register(std::make_unique<AutoShardPlanner>());
  registry.Register(std::make_unique<DreamShardPlanner>());
  registry.Register(std::make_unique<FlexShardPlanner>());
  for (oper::PlacementRule rule : {oper::PlacementRule::kOper, oper::PlacementRule::kMemoryGreedy,
                                   oper::PlacementRule::kAccessGreedy}) {
    registry.Register(std::make_unique<OperPlanner>(rule));
  }
  return registry;
}

}  // namespace shardplan
