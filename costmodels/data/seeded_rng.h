#ifndef SHARDPLAN_COSTMODELS_DATA_SEEDED_RNG_H_
#define SHARDPLAN_COSTMODELS_DATA_SEEDED_RNG_H_

#include <cstdint>
#include <random>

#include "planner/random.h"  // UniformBelow, Uniform01

namespace shardplan {

// Portable randomness for everything that must reproduce from a seed: per-sample seeding and the
// draws cost data needs on top of planner/random.h's (std::mt19937_64 is specified bit-exactly by
// the standard; the std:: distributions are not, so draws go through these helpers instead).

// SplitMix64's output function (Steele et al., 2014): a bijective 64-bit mixer.
uint64_t SplitMix64(uint64_t x);

// The seed of sample `index` of a collection seeded by `seed`:
// SplitMix64(SplitMix64(seed) + index). Sample i depends on (seed, i) only, so a resumed
// collection regenerates exactly the samples it lacks, in any order.
uint64_t MixSeed(uint64_t seed, uint64_t index);

// The generator for sample `index` of a collection seeded by `seed`.
std::mt19937_64 SampleRng(uint64_t seed, uint64_t index);

// Uniform integer in [lo, hi] (inclusive; lo <= hi): lo + UniformBelow(hi - lo + 1).
int64_t UniformInt(std::mt19937_64& rng, int64_t lo, int64_t hi);

// Standard normal (Box-Muller; two uniforms per draw, no cached spare, so draws stay aligned).
double StandardNormal(std::mt19937_64& rng);

}  // namespace shardplan

#endif  // SHARDPLAN_COSTMODELS_DATA_SEEDED_RNG_H_
