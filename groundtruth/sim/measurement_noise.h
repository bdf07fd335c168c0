#ifndef SHARDPLAN_GROUNDTRUTH_SIM_MEASUREMENT_NOISE_H_
#define SHARDPLAN_GROUNDTRUTH_SIM_MEASUREMENT_NOISE_H_

#include <cstdint>

namespace shardplan {

// Multiplicative log-normal measurement noise: value * exp(sigma * z), z ~ N(0, 1), so the
// median of a noisy measurement is the noiseless value (collectors report medians). z depends
// only on (seed, call, slot): a measurement's noise does not depend on what was measured
// before it, and a resumed collection reproduces it. sigma = 0 returns exactly 1.
class MeasurementNoise {
 public:
  MeasurementNoise(double sigma, uint64_t seed) : sigma_(sigma), seed_(seed) {}

  // The factor for value `slot` of measurement `call`.
  double Factor(uint64_t call, uint64_t slot) const;

  double sigma() const { return sigma_; }

 private:
  double sigma_;
  uint64_t seed_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_GROUNDTRUTH_SIM_MEASUREMENT_NOISE_H_
