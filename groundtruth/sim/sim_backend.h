#ifndef SHARDPLAN_GROUNDTRUTH_SIM_SIM_BACKEND_H_
#define SHARDPLAN_GROUNDTRUTH_SIM_SIM_BACKEND_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "groundtruth/hardware_backend.h"
#include "groundtruth/sim/compute_model.h"
#include "groundtruth/sim/hardware_profiles.h"
#include "groundtruth/sim/measurement_noise.h"

namespace shardplan {

struct SimOptions {
  // Sigma of the multiplicative log-normal noise on every measured value; 0 = exact.
  double noise_sigma = 0.0;
  // Seeds the noise: measurement k after BeginSample(i) draws from (seed, i, k) only.
  uint64_t seed = 0;
};

// The analytic GPU-cluster simulator (docs/design.md section 3.2, docs/simulator.md) as a
// HardwareBackend: compute from SimulateCompute, all-to-all from SimulateComm, the collectives of
// row-level and data-parallel shards from SimulateCollectives, all times the noise factor. Not
// thread-safe (the measurement counter), like every backend.
class SimBackend : public HardwareBackend {
 public:
  SimBackend(HardwareProfile profile, int num_devices, SimOptions options);

  std::string name() const override { return "sim"; }
  // "sim-<profile name>", e.g. "sim-rtx2080ti".
  std::string hardware_profile() const override;
  // Restarts the noise stream at sample `sample_id` (see HardwareBackend::BeginSample).
  void BeginSample(int64_t sample_id) override;

  absl::StatusOr<double> MeasureCompute(std::span<const Table> tables, int64_t batch_size) override;
  // The simulated forward kernel alone (inference).
  absl::StatusOr<double> MeasureForwardCompute(std::span<const Table> tables,
                                               int64_t batch_size) override;
  // INVALID_ARGUMENT unless dim_sums and start_offsets_ms have one entry per device and the
  // topology (if any) has this backend's device count.
  absl::StatusOr<CommMeasurement> MeasureComm(const Topology* topology,
                                              std::span<const int64_t> dim_sums,
                                              std::span<const double> start_offsets_ms,
                                              int64_t batch_size) override;

  bool measures_collectives() const override { return true; }
  // SimulateCollectives times the noise factor. INVALID_ARGUMENT unless the topology has this
  // backend's device count and every demand names real devices, charges only its peers and puts
  // in a finite, non-negative number of bytes.
  absl::StatusOr<CollectiveCosts> MeasureCollectives(
      const Topology& topology, std::span<const CollectiveDemand> demands) override;

  const HardwareProfile& profile() const { return profile_; }
  int num_devices() const { return num_devices_; }

 private:
  // INVALID_ARGUMENT unless `topology` is null or has num_devices() devices.
  absl::Status CheckTopology(const Topology* topology) const;
  // The tables checked, then simulated.
  absl::StatusOr<ComputeBreakdown> Simulate(std::span<const Table> tables,
                                            int64_t batch_size) const;

  HardwareProfile profile_;
  int num_devices_;
  MeasurementNoise noise_;
  // Measurement counter: sample id in the high bits, measurement within the sample below.
  uint64_t calls_ = 0;
};

// The simulator of the named profile (see HardwareProfiles()) with `num_devices` devices.
// NOT_FOUND for an unknown profile (the message lists the known ones); INVALID_ARGUMENT for
// num_devices < 1 or a negative noise sigma.
absl::StatusOr<std::unique_ptr<HardwareBackend>> MakeSimBackend(const std::string& profile,
                                                                int num_devices,
                                                                SimOptions options = {});

}  // namespace shardplan

#endif  // SHARDPLAN_GROUNDTRUTH_SIM_SIM_BACKEND_H_
