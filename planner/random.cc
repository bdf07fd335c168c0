#include "planner/random.h"

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

}  // namespace shardplan
