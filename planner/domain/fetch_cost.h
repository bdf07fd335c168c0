#ifndef SHARDPLAN_PLANNER_DOMAIN_FETCH_COST_H_
#define SHARDPLAN_PLANNER_DOMAIN_FETCH_COST_H_

// The fetch-cost matrix L of OPER (ATC'24 section 3.2; docs/oper.md, "Fetch cost"): L[i][j] is
// what it costs device i to fetch one row from device j. From the topology, a fetch of b bytes
// costs a latency plus b over the link's bandwidth: the intra-host links between devices of one
// host, the inter-host ones between hosts; a device's own rows cost nothing (a local lookup is
// no communication). A task may replace the whole matrix with per-fetch costs of its own
// (Topology::fetch_cost_us). OPER routes by it; the access figures (access_figures.h) cost every
// plan's fetches with it.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/domain/topology.h"

namespace shardplan {

class FetchCostMatrix {
 public:
  // `topology`'s: its fetch_cost_us when given (ValidateTask checks the shape), else its
  // latencies and bandwidths.
  static FetchCostMatrix OfTopology(const Topology& topology);

  // Per-fetch costs written row by row, "0,1,4;1,0,4;...": rows split by ';', values by ','
  // (M x M, non-negative, finite), as Topology::fetch_cost_us (row-major). INVALID_ARGUMENT
  // naming `field` and the entry otherwise.
  static absl::StatusOr<std::vector<double>> ParseRows(const std::string& text, int num_devices,
                                                       const std::string& field);

  int num_devices() const { return n_; }
  // Microseconds for device `requester` to fetch one row of `bytes` from device `holder`.
  double FetchUs(int requester, int holder, double bytes) const {
    const size_t k = static_cast<size_t>(requester) * n_ + holder;
    return latency_us_[k] + bytes * us_per_byte_[k];
  }

 private:
  int n_ = 0;
  std::vector<double> latency_us_;   // row-major, requester by holder
  std::vector<double> us_per_byte_;  // row-major; 0 for given per-fetch costs
};

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_DOMAIN_FETCH_COST_H_
