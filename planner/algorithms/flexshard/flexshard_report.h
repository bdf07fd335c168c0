#ifndef SHARDPLAN_PLANNER_ALGORITHMS_FLEXSHARD_FLEXSHARD_REPORT_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_FLEXSHARD_FLEXSHARD_REPORT_H_

// What a FlexShard plan reports beside its shards, as plan.parameters entries under dotted keys
// (docs/flexshard.md, "What the plan reports"; the CLI prints them one per line):
//
//   tier.{dp,flex,rw}.rows, .coverage                 all tables: rows, share of all lookups
//   table.<name>.{dp,flex,rw}.rows, .coverage         per table: rows, share of its lookups
//   memory.{row_wise,replicated_static,row_wise_static_saved,dynamic_saved,marginal,budget}_bytes
//                                                     per device, against the RW plan (TierMemory)
//   memory.multiplier, memory.within_budget
//   breakpoint.{memory,dp_comm,flex_comm}             p_mem, p_comm, p_flex (lookups per sample)
//   comm.all_to_all_reduction, comm.non_overlappable_ms   the paper's closed form (TierComm)
//
// Numbers in plain decimal: rows as integers, bytes rounded to integers, the rest to 6
// significant digits ("inf" for a breakpoint that is never reached).

#include <map>
#include <string>

#include "planner/algorithms/flexshard/flexshard_tiers.h"

namespace shardplan::flexshard {

// The report of `plan` (the tiers planned, from `result` of `inputs`).
std::map<std::string, std::string> TierReport(const TierInputs& inputs, const TierResult& result,
                                              const TierPlan& plan);

}  // namespace shardplan::flexshard

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_FLEXSHARD_FLEXSHARD_REPORT_H_
