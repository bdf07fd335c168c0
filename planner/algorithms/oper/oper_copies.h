#ifndef SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_COPIES_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_COPIES_H_

// Where each partition's copies live and where each device fetches it from (the paper's P_k:
// path[p][i] = j is P_k[i][j] = 1), and the communication those fetches cost (Eq. 3).

#include <cstdint>
#include <vector>

#include "planner/algorithms/oper/oper_partitions.h"
#include "planner/domain/fetch_cost.h"

namespace shardplan::oper {

struct Copies {
  std::vector<std::vector<int32_t>> devices;  // per partition: the owner, then replicas as added
  std::vector<std::vector<int32_t>> path;     // per partition, per requester: the serving device
  std::vector<int64_t> replica_bytes;         // per device: memory its replicas take

  // Adds a replica of partition `p` on `device` (which then serves itself).
  void AddReplica(const Partition& partition, int32_t p, int32_t device);
  int64_t replicas() const;  // copies beyond the owners
};

// Each partition on its owner only, every device fetching it from there.
Copies OwnersOnly(const std::vector<int32_t>& owner, int num_devices);

// CL[i][j]: microseconds device i spends per iteration fetching from device j the rows it is
// routed to there (Eq. 3 with L[i][j], the paper's L[j][j] being a typo; docs/oper.md). The
// diagonal is 0 with the topology's matrix (local rows cost no communication).
std::vector<std::vector<double>> CommunicationMatrix(const std::vector<Partition>& partitions,
                                                     const Copies& copies,
                                                     const FetchCostMatrix& cost);

// The off-diagonal sum of `matrix`: all communication per iteration.
double OffDiagonalTotal(const std::vector<std::vector<double>>& matrix);

}  // namespace shardplan::oper

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_COPIES_H_
