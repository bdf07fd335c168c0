#include "groundtruth/sim/measurement_noise.h"

#include <cmath>
#include <random>

#include "base/seeded_rng.h"

namespace shardplan {

double MeasurementNoise::Factor(uint64_t call, uint64_t slot) const {
  if (sigma_ == 0.0) return 1.0;
  // A generator per (seed, call, slot): no draw depends on how many came before it.
  std::mt19937_64 rng = SampleRng(MixSeed(seed_, call), slot);
  return std::exp(sigma_ * StandardNormal(rng));
}

}  // namespace shardplan
