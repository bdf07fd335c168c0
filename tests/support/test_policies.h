#ifndef SHARDPLAN_TESTS_SUPPORT_TEST_POLICIES_H_
#define SHARDPLAN_TESTS_SUPPORT_TEST_POLICIES_H_

#include <cstdint>
#include <memory>

#include "planner/domain/policy.h"
#include "planner/framework/algorithm.h"

namespace shardplan::test {

// A small deterministic policy `algorithm` can run (its own architecture, fixed pseudo-random
// weights), for tests that plan with every registered algorithm; null for algorithms that use
// no policy.
std::shared_ptr<const Policy> TestPolicyFor(const Algorithm& algorithm);

// The DreamShard one: weights U(-1/sqrt(in), 1/sqrt(in)) from `seed`, a fixed histogram for
// tables without one.
Policy DreamShardTestPolicy(uint64_t seed = 1);
// The AutoShard one: every tensor U(-1/sqrt(fan), 1/sqrt(fan)) from `seed` (fan: a weight's
// input size, the LSTM's hidden size), features z-scored with mean 0 and std 1, no ablation.
Policy AutoShardTestPolicy(uint64_t seed = 1);

}  // namespace shardplan::test

#endif  // SHARDPLAN_TESTS_SUPPORT_TEST_POLICIES_H_
