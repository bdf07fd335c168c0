#ifndef SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_FETCH_COST_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_FETCH_COST_H_

// OPER's fetch-cost matrix L (section 3.2; docs/oper.md, "Fetch cost"): L[i][j] is what it costs
// device i to fetch one row from device j. From the topology, a fetch of b bytes costs a latency
// plus b over the link's bandwidth: the intra-host links between devices of one host, the
// inter-host ones between hosts; a device's own rows cost nothing (a local lookup is no
// communication). A request may replace the whole matrix with per-fetch costs of its own (C9).

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/domain/topology.h"

namespace shardplan::oper {

struct FetchLatencies {
  double intra_host_us = 0.0;
  double inter_host_us = 0.0;
};

class FetchCostMatrix {
 public:
  // From `topology`'s intra- and inter-host bandwidths and `latencies`.
  static FetchCostMatrix OfTopology(const Topology& topology, const FetchLatencies& latencies);
  // Per-fetch costs (microseconds, whatever the row's bytes) given row by row: "0,1,4;1,0,4;..."
  // (rows split by ';', values by ','; M x M, non-negative, finite). INVALID_ARGUMENT naming
  // `field` and the entry otherwise.
  static absl::StatusOr<FetchCostMatrix> Parse(const std::string& text, int num_devices,
                                               const std::string& field);

  int num_devices() const { return static_cast<int>(latency_us_.size()); }
  // Microseconds for device `requester` to fetch one row of `bytes` from device `holder`.
  double FetchUs(int requester, int holder, double bytes) const {
    return latency_us_[requester][holder] + bytes * us_per_byte_[requester][holder];
  }

 private:
  std::vector<std::vector<double>> latency_us_;
  std::vector<std::vector<double>> us_per_byte_;
};

}  // namespace shardplan::oper

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_FETCH_COST_H_
