#ifndef SHARDPLAN_LAB_TOOLS_OBSERVATION_DATASETS_H_
#define SHARDPLAN_LAB_TOOLS_OBSERVATION_DATASETS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "groundtruth/hardware_backend.h"
#include "lab/data/table_pool.h"
#include "nlohmann/json.hpp"

namespace shardplan::offline {

// The measurements behind the NeuroShard paper's section 2 observations (Figures 3 and 4),
// taken through the HardwareBackend interface so that every backend is judged the same way.
// scripts/plot_observations.py draws them; docs/cost-data.md describes the files.
std::vector<int32_t> DefaultSweepDims();

struct ObservationOptions {
  int64_t batch_size = 65536;
  uint64_t seed = 0;
  // Observation 1: tables picked from the pool at these quantiles of rows x pooling factor,
  // each measured at every dim of `sweep_dims` (4, 8, 16, 24, ..., 128).
  std::vector<double> table_quantiles = {0.5, 0.8, 0.95, 0.995};
  std::vector<int32_t> sweep_dims = DefaultSweepDims();
  // The dim grid of observations 2 and 3.
  std::vector<int32_t> dims = {4, 8, 16, 32, 64, 128};
  // Observation 2 (the paper's protocol): `combinations` subsets of `tables_per_combination`
  // distinct pool tables with dims drawn from `dims`, redrawn until they fit `device_memory_bytes`.
  int64_t combinations = 50;
  int32_t tables_per_combination = 10;
  int64_t device_memory_bytes = int64_t{4} << 30;
  // Observation 3 (the paper's protocol): `placements` random placements (the comm data's
  // greedy-with-probability generator) of tables_per_device x N tables per device count N.
  int64_t placements = 50;
  int32_t tables_per_device = 10;
  std::vector<int32_t> device_counts = {4, 8};
  const std::atomic<bool>* stop = nullptr;
};

// Observation 1: cost vs dim per table; whole table at dim d vs one column half (d/2) alone.
absl::StatusOr<nlohmann::json> MeasureObservation1(HardwareBackend& backend, const TablePool& pool,
                                                   const ObservationOptions& options);
// Observation 2: the multi-table cost of a combination vs the sum of its single-table costs.
absl::StatusOr<nlohmann::json> MeasureObservation2(HardwareBackend& backend, const TablePool& pool,
                                                   const ObservationOptions& options);
// Observation 3: max forward/backward all-to-all cost vs max device dim sum, equal start
// offsets. `backend_for` builds the backend of a device count.
using BackendFactory =
    std::function<absl::StatusOr<std::unique_ptr<HardwareBackend>>(int32_t num_devices)>;
absl::StatusOr<nlohmann::json> MeasureObservation3(const BackendFactory& backend_for,
                                                   const ObservationOptions& options);

}  // namespace shardplan::offline

#endif  // SHARDPLAN_LAB_TOOLS_OBSERVATION_DATASETS_H_
