#ifndef SHARDPLAN_SERVER_POLICY_VETTING_H_
#define SHARDPLAN_SERVER_POLICY_VETTING_H_

#include <functional>

#include "absl/status/status.h"
#include "planner/domain/policy.h"
#include "planner/framework/algorithm_registry.h"

namespace shardplan {

// A policy's plan on the sanity task may cost at most this many times the greedy baseline's. A
// trained policy plans about as well as greedy or better; an untrained one (random weights)
// within 2x; one that puts every table on one device of the sanity task's 8 costs several
// times more (a bundle with finite but absurd weights did: 202.7 against 49.3 ms).
inline constexpr double kMaxVettedCostRatio = 3.0;

// Vets `policy` before the server serves it, so that a bundle whose weights pass every shape
// and finiteness check but plan absurdly never becomes the default: its algorithm (from
// `algorithms`) plans a fixed sanity task (32 tables of varied shapes on 8 devices of 16 GiB,
// 2 hosts) under TorchRec's analytic model, and the plan must cost at most kMaxVettedCostRatio
// times size_lookup_greedy's on the same task. FAILED_PRECONDITION naming the policy, both
// costs and the ratio otherwise, or the algorithm's own error when it cannot plan the task.
absl::Status VetPolicy(const Policy& policy, const AlgorithmRegistry& algorithms);

// What the server asks of a policy bundle before serving it (ModelReloader::Options::
// check_policy): one of `algorithms` runs it (AlgorithmRegistry::CheckPolicy), then VetPolicy.
// A refused bundle is never served, so never the default either; a version loaded before stays.
// `algorithms` must outlive the function.
std::function<absl::Status(const Policy&)> ServedPolicyCheck(const AlgorithmRegistry* algorithms);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_POLICY_VETTING_H_
