#ifndef SHARDPLAN_PLANNER_FRAMEWORK_ALGORITHM_REGISTRY_H_
#define SHARDPLAN_PLANNER_FRAMEWORK_ALGORITHM_REGISTRY_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/framework/algorithm.h"

namespace shardplan {

// Name -> algorithm. Built once at start-up, read-only afterwards.
class AlgorithmRegistry {
 public:
  // Registers `algorithm` under algorithm->info().name; the name must be new.
  void Register(std::unique_ptr<Algorithm> algorithm);

  // NOT_FOUND listing the known names when `name` is unknown.
  absl::StatusOr<const Algorithm*> Find(const std::string& name) const;

  // Sorted by name.
  std::vector<const Algorithm*> List() const;

  // Whether `policy` can be served: OK when the algorithm it names is registered, uses a
  // policy and can run this one (Algorithm::CheckPolicy); FAILED_PRECONDITION naming the
  // policy and why not otherwise. What the server's model loader asks of each policy bundle.
  absl::Status CheckPolicy(const Policy& policy) const;

 private:
  std::map<std::string, std::unique_ptr<Algorithm>> algorithms_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_FRAMEWORK_ALGORITHM_REGISTRY_H_
