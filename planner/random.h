#ifndef SHARDPLAN_PLANNER_RANDOM_H_
#define SHARDPLAN_PLANNER_RANDOM_H_

#include <cstdint>
#include <random>

namespace shardplan {

// Portable draws from std::mt19937_64, whose output the standard specifies bit-exactly. The std::
// distributions are implementation-defined (plans and data would differ between standard
// libraries), so everything that must reproduce from a seed draws through these.

// A uniform integer in [0, n), n >= 1, unbiased: rejects the lowest 2^64 mod n outputs and
// returns the draw mod n (so a power-of-two n takes the low bits of one draw).
uint64_t UniformBelow(std::mt19937_64& rng, uint64_t n);

// A uniform double in [0, 1) with 53 random bits: the top 53 bits of one draw.
inline double Uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_RANDOM_H_
