#include "planner/framework/algorithm_registry.h"

#include <cstdio>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shardplan {

void AlgorithmRegistry::Register(std::unique_ptr<Algorithm> algorithm) {
  const std::string name = algorithm->info().name;
  for (const ParamSpec& spec : algorithm->info().params) {
    // Dotted keys of a plan's parameters are what the algorithm reports (plan.h).
    if (spec.name.find('.') != std::string::npos) {
      std::fprintf(stderr, "shardplan: algorithm \"%s\" declares parameter \"%s\" with a '.'\n",
                   name.c_str(), spec.name.c_str());
      std::abort();
    }
  }
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

absl::Status AlgorithmRegistry::CheckPolicy(const Policy& policy) const {
  const auto it = algorithms_.find(policy.algorithm);
  if (it == algorithms_.end()) {
    std::vector<std::string> with_policies;
    for (const auto& [name, algorithm] : algorithms_) {
      if (algorithm->info().uses_policy) with_policies.push_back(name);
    }
    return absl::FailedPreconditionError(
        absl::StrCat("policy ", policy.id(), ": algorithm \"", policy.algorithm,
                     "\" is unknown to this build (algorithms that use a policy: ",
                     with_policies.empty() ? "none" : absl::StrJoin(with_policies, ", "), ")"));
  }
  if (!it->second->info().uses_policy) {
    return absl::FailedPreconditionError(
        absl::StrCat("policy ", policy.id(), ": algorithm ", policy.algorithm, " uses no policy"));
  }
  return it->second->CheckPolicy(policy);
}

}  // namespace shardplan
