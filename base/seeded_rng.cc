#include "base/seeded_rng.h"

#include <cmath>
#include <limits>
#include <numbers>

namespace shardplan {

uint64_t UniformBelow(std::mt19937_64& rng, uint64_t n) {
  // Rejection sampling: dropping the lowest 2^64 mod n outputs leaves a multiple of n values,
  // so every residue is equally likely (the rejection probability is below n / 2^64).
  const uint64_t rejected = (0 - n) % n;
  for (;;) {
    const uint64_t x = rng();
    if (x >= rejected) return x % n;
  }
}

uint64_t SplitMix64(uint64_t x) {
  uint64_t z = x + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

uint64_t MixSeed(uint64_t seed, uint64_t index) { return SplitMix64(SplitMix64(seed) + index); }

std::mt19937_64 SampleRng(uint64_t seed, uint64_t index) {
  return std::mt19937_64(MixSeed(seed, index));
}

int64_t UniformInt(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);  // hi - lo
  if (range == std::numeric_limits<uint64_t>::max()) return static_cast<int64_t>(rng());
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + UniformBelow(rng, range + 1));
}

double StandardNormal(std::mt19937_64& rng) {
  const double u1 = 1.0 - Uniform01(rng);  // (0, 1]: log is finite
  const double u2 = Uniform01(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace shardplan
