#ifndef SHARDPLAN_GROUNDTRUTH_SIM_OBSERVATIONS_H_
#define SHARDPLAN_GROUNDTRUTH_SIM_OBSERVATIONS_H_

#include <cstdint>
#include <span>
#include <vector>

#include "groundtruth/sim/hardware_profiles.h"
#include "planner/domain/table.h"

namespace shardplan {

// Noiseless simulator figures behind the NeuroShard paper's section 2 plots (Figures 3 and 4).

// Observation 1: a table's compute cost at one dim, and the cost of one of its two column
// halves (dim / 2) measured alone.
struct DimCostPoint {
  int32_t dim = 0;
  double cost_ms = 0.0;
  double half_cost_ms = 0.0;
};
// One point per dim in {4, 8, 16, 32, 64, 128}.
std::vector<DimCostPoint> SweepDims(const HardwareProfile& profile, const Table& table,
                                    int64_t batch_size);
// One point per dim of `dims` (each >= 2; an odd dim's half has dim / 2 columns, rounded down).
std::vector<DimCostPoint> SweepDims(const HardwareProfile& profile, const Table& table,
                                    int64_t batch_size, std::span<const int32_t> dims);

// Observation 2: a table set's fused cost against the sum of its tables' single costs.
struct MultiTablePoint {
  double multi_ms = 0.0;
  double sum_single_ms = 0.0;
};
MultiTablePoint CompareMultiTable(const HardwareProfile& profile, std::span<const Table> tables,
                                  int64_t batch_size);

// Observation 3: the max over devices of the forward (equal start offsets) and backward
// all-to-all costs of one placement, against its max device dim sum.
struct CommPoint {
  int64_t max_dim_sum = 0;
  double max_forward_ms = 0.0;
  double max_backward_ms = 0.0;
};
CommPoint CommVsMaxDimSum(const HardwareProfile& profile, std::span<const int64_t> dim_sums,
                          int64_t batch_size);

}  // namespace shardplan

#endif  // SHARDPLAN_GROUNDTRUTH_SIM_OBSERVATIONS_H_
