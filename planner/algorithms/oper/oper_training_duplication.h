#ifndef SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_TRAINING_DUPLICATION_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_TRAINING_DUPLICATION_H_

// OPER's frequency-aware data parallelism for training (section 4.3, Eqs. 4-5; docs/oper.md,
// "Training duplication"). A row of access frequency f (lookups per sample) and S bytes, on one
// device, costs every device 2 f B (M-1)/M S / BW_P2P per iteration in fetches (Eq. 4);
// duplicated on all M devices it costs the ring all-reduce of its gradient,
// 2 (M-1)/M S / BW_AR (Eq. 5). Duplicating pays iff f > BW_P2P / (B BW_AR). Per partition, within
// a budget (C12).

#include <cstdint>
#include <vector>

#include "planner/algorithms/oper/oper_copies.h"
#include "planner/algorithms/oper/oper_partitions.h"

namespace shardplan::oper {

// f* = BW_P2P / (B BW_AR), B the local batch (samples per device per iteration).
double DuplicationFrequency(double p2p_gibps, double all_reduce_gibps, int64_t local_batch);

// A partition's access frequency: its rows' mean lookups per sample on one device.
double AccessFrequency(const Partition& partition, int64_t local_batch);

// Duplicates on every device each partition with AccessFrequency > `threshold`, the hottest
// first (ties: partition order), where every device that lacks it has room in `available`; a
// partition that does not fit is skipped and smaller ones after it may still be duplicated.
// Updates `copies` (every device then serves itself). Returns the partitions duplicated.
int64_t DuplicateHotPartitions(const std::vector<Partition>& partitions, double threshold,
                               int64_t local_batch, std::vector<int64_t> available, Copies& copies);

}  // namespace shardplan::oper

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_TRAINING_DUPLICATION_H_
