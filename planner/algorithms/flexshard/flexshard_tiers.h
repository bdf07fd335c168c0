#ifndef SHARDPLAN_PLANNER_ALGORITHMS_FLEXSHARD_FLEXSHARD_TIERS_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_FLEXSHARD_FLEXSHARD_TIERS_H_

// FlexShard's tier arithmetic (Sethi et al., MLSys 2023, sections 4.1-4.6; docs/flexshard.md):
// all tables' rows merged by access probability p (expected occurrences per sample), hottest
// first, then
//   DP   replicated on every device, down to the memory break-even p_mem (point A);
//   Flex row-wise within a host, replicated across hosts (one slice per local rank), while the
//        memory that DP saved lasts (memory-neutral by default) and, optionally, while it still
//        beats row-wise on communication;
//   RW   the rest, row-wise over every device.
// Per device and step, from the paper's Tables 2 and 3. Pure arithmetic: no plan, no shards.
// Every tier of every table is a rank range [begin, end) (ranks hottest first), because the
// merged order visits each table's ranks in order: a planner turns them into row groups.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/domain/rank_frequency.h"
#include "planner/domain/task.h"

namespace shardplan::flexshard {

// One table as the tiers see it.
struct TierTable {
  std::string name;
  const RankFrequencyCurve* curve = nullptr;  // must outlive the call
  double lookups_per_sample = 0.0;            // L: sum of p over the table's rows
  int32_t dim = 0;
  int element_bytes = 4;
};

// Per-device collective bandwidths (GiB/s), as the paper's a2a_global, a2a_intra, ar_global,
// ar_cross.
struct TierBandwidths {
  double all_to_all_global_gibps = 0.0;
  double all_to_all_intra_gibps = 0.0;
  double all_reduce_global_gibps = 0.0;
  double all_reduce_cross_gibps = 0.0;
};

struct TierInputs {
  std::vector<TierTable> tables;
  int hosts = 1;             // N
  int devices_per_host = 1;  // W
  int64_t local_batch = 0;   // B, samples per device and step
  Objective objective = Objective::kTraining;
  // Memory of a replicated row relative to its bytes (TorchRec's 6x for training: weights,
  // gradients, optimizer state); 0: 6 for training, 1 for inference.
  double replicated_memory_multiplier = 0.0;
  // Marginal memory per device the plan may add over the row-wise plan; 0: memory-neutral.
  double memory_budget_bytes = 0.0;
  TierBandwidths bandwidths;
  // Also end the Flex tier where a row stops saving communication against row-wise (p below
  // p_comm_flex). The paper is ambiguous; off by default (docs/flexshard.md).
  bool cut_flex_at_comm_breakpoint = false;
};

// Rows of one tier: per table a rank range, and their totals.
struct Tier {
  int64_t rows = 0;
  double lookups_per_sample = 0.0;  // sum of p over its rows
  double coverage = 0.0;            // its share of all tables' lookups
  std::vector<std::pair<int64_t, int64_t>> ranks;  // per table (inputs order): [begin, end)
};

// Per-device memory of a plan, in bytes, relative to the row-wise plan (paper section 2.8).
struct TierMemory {
  double row_wise_bytes = 0.0;          // the RW plan: static E/U rows + dynamic 2 B L rows
  double replicated_static_bytes = 0.0;  // multiplier x (DP rows + Flex rows / W)
  double row_wise_static_saved = 0.0;    // the replicated rows' 1/U share RW no longer holds
  double dynamic_saved = 0.0;            // B x p of DP rows: looked up locally, no buffer pair
  double marginal_bytes = 0.0;           // replicated - saved - dynamic saved
};

// Per-device communication of one step (bytes per pass; ms for the step's passes).
struct TierComm {
  double global_all_to_all_bytes = 0.0;  // RW rows' lookups, per pass
  double intra_all_to_all_bytes = 0.0;   // Flex rows' lookups, per pass (overlappable)
  double global_all_reduce_bytes = 0.0;  // DP rows' gradients (training)
  double cross_all_reduce_bytes = 0.0;   // Flex slices' gradients (training, overlappable)
  double global_all_to_all_ms = 0.0;     // every pass
  double intra_all_to_all_ms = 0.0;
  double global_all_reduce_ms = 0.0;
  double cross_all_reduce_ms = 0.0;
  double non_overlappable_ms = 0.0;      // global all-to-all + global all-reduce
  double all_to_all_reduction = 0.0;     // 1 - global all-to-all bytes / RW's
};

struct TierPlan {
  std::string name;  // "2-tier", "3-tier"
  Tier dp, flex, rw;
  TierMemory memory;
  TierComm comm;
  bool within_budget = true;  // false: even point A does not reach a negative budget
};

// A point of the Pareto curve of DP'ing the hottest rows and RW'ing the rest (section 4.3).
struct ParetoPoint {
  std::string label;  // "A" (most memory saved), "B" (memory-neutral), "C" (most comm saved),
                      // "D" (every row DP); "" for sampled points
  int64_t dp_rows = 0;
  double coverage = 0.0;
  double marginal_memory_bytes = 0.0;  // per device, against RW
  double marginal_comm_ms = 0.0;       // per device and step, against RW
};

// Breakpoints in p (expected occurrences per sample); they do not depend on the row's bytes.
struct Breakpoints {
  double memory = 0.0;         // DP vs RW memory-neutral: (multiplier - 1/U) / B
  double dp_comm = 0.0;        // DP vs RW communication-neutral (0: DP always saves)
  double flex_comm = 0.0;      // Flex vs RW communication-neutral (inf: Flex never saves)
};

struct TierResult {
  Breakpoints breakpoints;
  double multiplier = 0.0;  // the replicated-memory multiplier used
  std::vector<ParetoPoint> points;        // A, B, C, D
  std::vector<ParetoPoint> pareto_curve;  // DP rows sampled from 0 to max(B, C), A-C included
  TierPlan two_tier;                      // DP to the budget (B when memory-neutral), RW
  TierPlan three_tier;                    // DP to A, Flex to the budget, RW
};

// INVALID_ARGUMENT naming the input when a table, the topology or the batch is unusable.
absl::StatusOr<TierResult> ComputeTiers(const TierInputs& inputs);

// `plan` (a TierPlan ComputeTiers made from `inputs`) with each table's DP and Flex rows
// rounded down to a multiple of the device count U, as the paper's Table 5 reports tiers: DP
// [0, a'), Flex [a', a' + F'), RW the rest, where a' and F' are the table's DP and Flex rows
// rounded down; every figure recomputed for the rounded ranges (the rounding may leave
// within_budget false by the near-zero marginal memory of the DP rows given up). INVALID_ARGUMENT
// when the plan's tables are not the inputs'.
absl::StatusOr<TierPlan> RoundedToDevices(const TierInputs& inputs, const TierPlan& plan);

inline constexpr int kParetoCurveSamples = 32;

}  // namespace shardplan::flexshard

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_FLEXSHARD_FLEXSHARD_TIERS_H_
