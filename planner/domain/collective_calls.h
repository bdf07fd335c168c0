#ifndef SHARDPLAN_PLANNER_DOMAIN_COLLECTIVE_CALLS_H_
#define SHARDPLAN_PLANNER_DOMAIN_COLLECTIVE_CALLS_H_

#include <cstdint>
#include <span>
#include <vector>

#include "planner/domain/sharding_semantics.h"

namespace shardplan {

// One collective call: the demands of the same collective, pass, peers (as a set) and tier,
// fused as TorchRec issues one collective per sharding type and process group for all its
// tables (a routed layout's tiers are separate lookup modules, so separate calls). The
// simulator times calls (groundtruth/sim) and the learned collective model predicts them
// (costmodels/neural), so both fuse demands here, the same way.
struct CollectiveCall {
  Collective collective = Collective::kAllToAll;
  Pass pass = Pass::kForward;
  std::vector<int32_t> peers;         // sorted
  double ring_bytes = 0.0;            // the sum of the demands' bytes: a ring's tensor per device
  std::vector<double> volume;         // per peer: bytes of the demands that charge it
  std::vector<double> replica_bytes;  // per peer: of those, DATA_PARALLEL replicas' (updated)
  int32_t tier = 0;                   // the demands' tier (CollectiveDemand::tier)
  std::vector<PairBytes> pairs;       // routed all-to-alls: every demand's pairs, in order
};

// The calls of `demands` in order of first appearance (so that the result does not depend on
// map ordering). Devices a demand charges that are not among its peers are ignored
// (DescribePlacement never makes such demands; SimBackend refuses them).
std::vector<CollectiveCall> FuseCollectiveCalls(std::span<const CollectiveDemand> demands);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_COLLECTIVE_CALLS_H_
