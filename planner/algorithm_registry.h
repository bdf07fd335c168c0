#ifndef SHARDPLAN_PLANNER_ALGORITHM_REGISTRY_H_
#define SHARDPLAN_PLANNER_ALGORITHM_REGISTRY_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/planner.h"

namespace shardplan {

// Name -> planner. Built once at start-up, read-only afterwards.
class AlgorithmRegistry {
 public:
  // Registers `planner` under planner->info().name; the name must be new.
  void Register(std::unique_ptr<Planner> planner);

  // NOT_FOUND listing the known names when `name` is unknown.
  absl::StatusOr<const Planner*> Find(const std::string& name) const;

  // Sorted by name.
  std::vector<const Planner*> List() const;

 private:
  std::map<std::string, std::unique_ptr<Planner>> planners_;
};

// Every built-in algorithm: random, size_greedy, dim_greedy, lookup_greedy,
// size_lookup_greedy, exhaustive, neuroshard, torchrec.
AlgorithmRegistry BuiltinAlgorithms();

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_ALGORITHM_REGISTRY_H_
