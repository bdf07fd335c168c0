#ifndef SHARDPLAN_BASE_SEEDED_RNG_H_
#define SHARDPLAN_BASE_SEEDED_RNG_H_

#include <cstdint>
#include <random>

namespace shardplan {

// Portable randomness for everything that must reproduce from a seed (plans, tasks, cost data):
// std::mt19937_64's output is specified bit-exactly by the standard; the std:: distributions are
// implementation-defined (plans and data would differ between standard libraries), so every draw
// goes through these helpers instead.

// A uniform integer in [0, n), n >= 1, unbiased: rejects the lowest 2^64 mod n outputs and
// returns the draw mod n (so a power-of-two n takes the low bits of one draw).
uint64_t UniformBelow(std::mt19937_64& rng, uint64_t n);

// A uniform double in [0, 1) with 53 random bits: the top 53 bits of one draw.
inline double Uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

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

#endif  // SHARDPLAN_BASE_SEEDED_RNG_H_
