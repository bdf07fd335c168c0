#include "planner/framework/algorithm_registry.h"

#include <cstdio>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shardplan {

void AlgorithmRegistry::Register(std::unique_ptr<Algorithm> algorithm) {
  const std::string name = algorithm->info().name;
  if (!algorithms_.emplace(name, std::move(algorithm)).second) {
    // Two algorithms under one name is a start-up wiring bug; fail loudly at once.
    std::fprintf(stderr, "shardplan: algorithm \"%s\" registered twice\n", name.c_str());
    std::abort();
  }
}

absl::StatusOr<const Algorithm*> AlgorithmRegistry::Find(const std::string& name) const {
  auto it = algorithms_.find(name);
  if (it != algorithms_.end()) return it->second.get();
  std::vector<std::string> known;
  for (const auto& [known_name, algorithm] : algorithms_) known.push_back(known_name);
  return absl::NotFoundError(
      absl::StrCat("unknown algorithm \"", name, "\"; known: ", absl::StrJoin(known, ", ")));
}

std::vector<const Algorithm*> AlgorithmRegistry::List() const {
  std::vector<const Algorithm*> algorithms;
  algorithms.reserve(algorithms_.size());
  for (const auto& [name, algorithm] : algorithms_) algorithms.push_back(algorithm.get());
  return algorithms;
}

}  // namespace shardplan
