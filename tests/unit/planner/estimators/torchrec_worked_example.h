#ifndef SHARDPLAN_TESTS_UNIT_PLANNER_ESTIMATORS_TORCHREC_WORKED_EXAMPLE_H_
#define SHARDPLAN_TESTS_UNIT_PLANNER_ESTIMATORS_TORCHREC_WORKED_EXAMPLE_H_

// The estimator's worked example, shared by its tests and the analytic cost model's.

namespace shardplan::torchrec_worked_example {

// TorchRec's formulas worked by hand (docs/cost-models.md, "Batch"): TW, cuda fused, fp32,
// W = L = 4, per-rank batch 512 (global 2048), pooling factor 10, dim 64, unweighted, pooled.
constexpr double kFwdCompute = 0.0070816431;
constexpr double kFwdComms = 0.0008138021;
constexpr double kBwdCompute = 0.0141632863;
constexpr double kBwdComms = 0.0008138021;
constexpr double kTotal = 0.0228725336;
constexpr double kTolerance = 1e-9;

}  // namespace shardplan::torchrec_worked_example

#endif  // SHARDPLAN_TESTS_UNIT_PLANNER_ESTIMATORS_TORCHREC_WORKED_EXAMPLE_H_
