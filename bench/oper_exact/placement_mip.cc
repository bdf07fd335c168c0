#include "bench/oper_exact/placement_mip.h"

#include <algorithm>

#include "base/status_macros.h"
#include "planner/algorithms/oper/oper_placement.h"

namespace shardplan::oper_exact {
namespace {

// max / mean of `loads` (1 when they are all 0).
double MaxOverMean(const std::vector<double>& loads) {
  double total = 0.0;
  double most = 0.0;
  for (double load : loads) {
    total += load;
    most = std::max(most, load);
  }
  return total > 0.0 ? most / (total / static_cast<double>(loads.size())) : 1.0;
}

}  // namespace

PlacementScore ScorePlacement(const std::vector<oper::Partition>& partitions,
                              const std::vector<int32_t>& owner, int devices) {
  std::vector<double> lookups(devices, 0.0);
  std::vector<double> memory(devices, 0.0);
  for (size_t p = 0; p < partitions.size(); ++p) {
    lookups[owner[p]] += oper::LookupBytes(partitions[p], devices);
    memory[owner[p]] += static_cast<double>(partitions[p].bytes);
  }
  return {.lookup_ratio = MaxOverMean(lookups),
          .memory_ratio = MaxOverMean(memory),
          .lookup_balance = DegreeOfBalance(lookups),
          .memory_balance = DegreeOfBalance(memory)};
}

absl::StatusOr<PlacementMipResult> SolvePlacementMip(const std::vector<oper::Partition>& partitions,
                                                     const std::vector<int64_t>& capacities,
                                                     const MipOptions& options,
                                                     const std::vector<int32_t>& start) {
  const int devices = static_cast<int>(capacities.size());
  const int count = static_cast<int>(partitions.size());
  // Loads in units of the mean (the perfect share), so both terms are O(1) for CBC.
  double total_lookups = 0.0;
  double total_bytes = 0.0;
  for (const oper::Partition& partition : partitions) {
    total_lookups += oper::LookupBytes(partition, devices);
    total_bytes += static_cast<double>(partition.bytes);
  }
  const double mean_lookups = total_lookups / devices;
  const double mean_bytes = total_bytes / devices;
  const auto lookup_share = [&](const oper::Partition& partition) {
    return mean_lookups > 0.0 ? oper::LookupBytes(partition, devices) / mean_lookups : 0.0;
  };
  const auto byte_share = [&](const oper::Partition& partition) {
    return mean_bytes > 0.0 ? static_cast<double>(partition.bytes) / mean_bytes : 0.0;
  };
  const bool interchangeable =
      std::all_of(capacities.begin(), capacities.end(),
                  [&](int64_t capacity) { return capacity == capacities.front(); });

  CbcSolver solver;
  // x[p][d]: partition p on device d.
  std::vector<std::vector<int>> x(count, std::vector<int>(devices));
  for (int p = 0; p < count; ++p) {
    for (int d = 0; d < devices; ++d) {
      const bool allowed = !interchangeable || d <= p;
      x[p][d] = solver.AddColumn(0.0, allowed ? 1.0 : 0.0, 0.0, true);
    }
  }
  // The largest loads, each weighed 1 (a term is 1 when its loads are all 0: constant).
  // Valid lower bounds that the relaxation does not see: a device holds at least the mean and
  // at least the largest partition.
  double largest_lookups = mean_lookups > 0.0 ? 1.0 : 0.0;
  double largest_bytes = mean_bytes > 0.0 ? 1.0 : 0.0;
  for (const oper::Partition& partition : partitions) {
    largest_lookups = std::max(largest_lookups, lookup_share(partition));
    largest_bytes = std::max(largest_bytes, byte_share(partition));
  }
  const int max_lookups =
      solver.AddColumn(largest_lookups, devices, mean_lookups > 0.0 ? 1.0 : 0.0, false);
  const int max_bytes =
      solver.AddColumn(largest_bytes, devices, mean_bytes > 0.0 ? 1.0 : 0.0, false);
  const double constant = (mean_lookups > 0.0 ? 0.0 : 1.0) + (mean_bytes > 0.0 ? 0.0 : 1.0);

  for (int p = 0; p < count; ++p) {
    std::vector<Term> one_device;
    for (int d = 0; d < devices; ++d) one_device.push_back({x[p][d], 1.0});
    solver.AddRow(one_device, 'E', 1.0);
  }
  for (int d = 0; d < devices; ++d) {
    std::vector<Term> lookups, bytes;
    for (int p = 0; p < count; ++p) {
      lookups.push_back({x[p][d], lookup_share(partitions[p])});
      bytes.push_back({x[p][d], byte_share(partitions[p])});
    }
    // The capacity in units of mean_bytes too, so that its row has O(1) coefficients.
    if (mean_bytes > 0.0) {
      solver.AddRow(bytes, 'L', static_cast<double>(capacities[d]) / mean_bytes);
    }
    lookups.push_back({max_lookups, -1.0});
    bytes.push_back({max_bytes, -1.0});
    solver.AddRow(lookups, 'L', 0.0);
    solver.AddRow(bytes, 'L', 0.0);
  }

  std::vector<double> warm;
  if (static_cast<int>(start.size()) == count) {
    // Relabel the start's devices in order of first use, which the symmetry breaking requires
    // (equal capacities only; otherwise labels are kept).
    std::vector<int32_t> owner = start;
    if (interchangeable) {
      std::vector<int32_t> label(devices, -1);
      int32_t next = 0;
      for (int32_t& device : owner) {
        if (label[device] < 0) label[device] = next++;
        device = label[device];
      }
    }
    warm.assign(solver.columns(), 0.0);
    for (int p = 0; p < count; ++p) warm[x[p][owner[p]]] = 1.0;
    const PlacementScore score = ScorePlacement(partitions, owner, devices);
    warm[max_lookups] = mean_lookups > 0.0 ? score.lookup_ratio : 0.0;
    warm[max_bytes] = mean_bytes > 0.0 ? score.memory_ratio : 0.0;
  }
  SHARDPLAN_ASSIGN_OR_RETURN(MipResult mip, solver.Minimize(options, warm));
  mip.objective += constant;
  mip.bound += constant;
  PlacementMipResult result{.mip = std::move(mip), .owner = {}};
  if (result.mip.has_solution) {
    for (int p = 0; p < count; ++p) {
      int32_t chosen = 0;
      for (int d = 0; d < devices; ++d) {
        if (result.mip.values[x[p][d]] > result.mip.values[x[p][chosen]]) chosen = d;
      }
      result.owner.push_back(chosen);
    }
  }
  return result;
}

}  // namespace shardplan::oper_exact
