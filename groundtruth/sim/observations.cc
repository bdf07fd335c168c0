#include "groundtruth/sim/observations.h"

#include <algorithm>

#include "groundtruth/sim/comm_model.h"
#include "groundtruth/sim/compute_model.h"

namespace shardplan {
namespace {

double CostAtDim(const HardwareProfile& profile, const Table& table, int32_t dim,
                 int64_t batch_size) {
  Table shard = table;
  shard.dim = dim;
  return SimulateCompute(profile, std::span<const Table>(&shard, 1), batch_size).total_ms();
}

}  // namespace

std::vector<DimCostPoint> SweepDims(const HardwareProfile& profile, const Table& table,
                                    int64_t batch_size) {
  static constexpr int32_t kGrid[] = {4, 8, 16, 32, 64, 128};
  return SweepDims(profile, table, batch_size, kGrid);
}

std::vector<DimCostPoint> SweepDims(const HardwareProfile& profile, const Table& table,
                                    int64_t batch_size, std::span<const int32_t> dims) {
  std::vector<DimCostPoint> points;
  for (int32_t dim : dims) {
    points.push_back({dim, CostAtDim(profile, table, dim, batch_size),
                      CostAtDim(profile, table, std::max(1, dim / 2), batch_size)});
  }
  return points;
}

MultiTablePoint CompareMultiTable(const HardwareProfile& profile, std::span<const Table> tables,
                                  int64_t batch_size) {
  MultiTablePoint point;
  point.multi_ms = SimulateCompute(profile, tables, batch_size).total_ms();
  for (const Table& table : tables) {
    point.sum_single_ms +=
        SimulateCompute(profile, std::span<const Table>(&table, 1), batch_size).total_ms();
  }
  return point;
}

CommPoint CommVsMaxDimSum(const HardwareProfile& profile, std::span<const int64_t> dim_sums,
                          int64_t batch_size) {
  CommPoint point;
  const std::vector<double> offsets(dim_sums.size(), 0.0);
  const CommMeasurement comm = SimulateComm(profile, ProfileTopology(profile, static_cast<int>(dim_sums.size())), dim_sums,
                   offsets, batch_size);
  for (int64_t dim_sum : dim_sums) point.max_dim_sum = std::max(point.max_dim_sum, dim_sum);
  for (double ms : comm.forward_ms) point.max_forward_ms = std::max(point.max_forward_ms, ms);
  for (double ms : comm.backward_ms) point.max_backward_ms = std::max(point.max_backward_ms, ms);
  return point;
}

}  // namespace shardplan
