#include "bench/oper_exact/replication_mip.h"

#include <algorithm>

#include "base/status_macros.h"

namespace shardplan::oper_exact {
namespace {

// Microseconds per iteration device i spends fetching partition p from device j (off the
// diagonal; a device's own copy is no communication).
double FetchCost(const oper::Partition& partition, const FetchCostMatrix& cost, int i,
                 int j) {
  if (i == j) return 0.0;
  return partition.lookups * cost.FetchUs(i, j, static_cast<double>(partition.fetch_bytes));
}

}  // namespace

absl::StatusOr<ReplicationMipResult> SolveReplicationMip(
    const std::vector<oper::Partition>& partitions, const std::vector<int32_t>& owner,
    const FetchCostMatrix& cost, const std::vector<int64_t>& spare, const MipOptions& options,
    const oper::Copies* start) {
  const int devices = cost.num_devices();
  const int count = static_cast<int>(partitions.size());
  CbcSolver solver;
  // y[p][d] (column or -1 when no replica of p can go on d), z[p][i]: (source, column) pairs.
  std::vector<std::vector<int>> y(count, std::vector<int>(devices, -1));
  std::vector<std::vector<std::vector<std::pair<int, int>>>> z(
      count, std::vector<std::vector<std::pair<int, int>>>(devices));
  std::vector<std::vector<Term>> memory(devices);
  double constant = 0.0;  // the communication no replica can save
  for (int p = 0; p < count; ++p) {
    const oper::Partition& partition = partitions[p];
    const int home = owner[p];
    if (partition.lookups <= 0.0) continue;
    for (int d = 0; d < devices; ++d) {
      if (d == home || partition.bytes > spare[d]) continue;
      y[p][d] = solver.AddColumn(0.0, 1.0, 0.0, true);
      memory[d].push_back({y[p][d], static_cast<double>(partition.bytes)});
    }
    for (int i = 0; i < devices; ++i) {
      const double from_home = FetchCost(partition, cost, i, home);
      std::vector<std::pair<int, int>> offered;
      for (int j = 0; j < devices; ++j) {
        if (j == home || y[p][j] < 0 || FetchCost(partition, cost, i, j) >= from_home) continue;
        offered.push_back({j, -1});
      }
      if (offered.empty()) {  // nothing beats the owner: a constant
        constant += from_home;
        continue;
      }
      offered.push_back({home, -1});
      std::vector<Term> one_source;
      for (auto& [j, column] : offered) {
        column = solver.AddColumn(0.0, 1.0, FetchCost(partition, cost, i, j), false);
        one_source.push_back({column, 1.0});
        if (j != home) solver.AddRow({{column, 1.0}, {y[p][j], -1.0}}, 'L', 0.0);
      }
      solver.AddRow(one_source, 'E', 1.0);
      z[p][i] = std::move(offered);
    }
  }
  for (int d = 0; d < devices; ++d) {
    if (!memory[d].empty()) solver.AddRow(memory[d], 'L', static_cast<double>(spare[d]));
  }

  // The cheapest copy each requester has under replicas `has[p][d]`, as z values.
  const auto routes = [&](const std::vector<std::vector<bool>>& has, std::vector<double>& values) {
    for (int p = 0; p < count; ++p) {
      for (int i = 0; i < devices; ++i) {
        if (z[p][i].empty()) continue;
        int best = -1;
        for (size_t k = 0; k < z[p][i].size(); ++k) {
          const int j = z[p][i][k].first;
          if (j != owner[p] && !has[p][j]) continue;
          if (best < 0 || FetchCost(partitions[p], cost, i, j) <
                              FetchCost(partitions[p], cost, i, z[p][i][best].first)) {
            best = static_cast<int>(k);
          }
        }
        values[z[p][i][best].second] = 1.0;
      }
    }
  };

  std::vector<double> warm;
  if (start != nullptr) {
    warm.assign(solver.columns(), 0.0);
    std::vector<std::vector<bool>> has(count, std::vector<bool>(devices, false));
    for (int p = 0; p < count; ++p) {
      for (int32_t d : start->devices[p]) {
        if (y[p][d] >= 0) {
          has[p][d] = true;
          warm[y[p][d]] = 1.0;
        }
      }
    }
    routes(has, warm);
  }
  SHARDPLAN_ASSIGN_OR_RETURN(MipResult mip, solver.Minimize(options, warm));
  mip.objective += constant;
  mip.bound += constant;
  ReplicationMipResult result{.mip = std::move(mip), .copies = oper::OwnersOnly(owner, devices)};
  if (!result.mip.has_solution) return result;
  std::vector<std::vector<bool>> has(count, std::vector<bool>(devices, false));
  for (int p = 0; p < count; ++p) {
    for (int d = 0; d < devices; ++d) {
      if (y[p][d] >= 0 && result.mip.values[y[p][d]] > 0.5) {
        has[p][d] = true;
        result.copies.AddReplica(partitions[p], p, d);
      }
    }
  }
  // Every requester to its cheapest copy (ties: the owner, then the lower device).
  for (int p = 0; p < count; ++p) {
    for (int i = 0; i < devices; ++i) {
      int best = owner[p];
      for (int32_t j : result.copies.devices[p]) {
        const double here = FetchCost(partitions[p], cost, i, j);
        const double there = FetchCost(partitions[p], cost, i, best);
        if (here < there || (here == there && j == i)) best = j;
      }
      result.copies.path[p][i] = best;
    }
  }
  return result;
}

}  // namespace shardplan::oper_exact
