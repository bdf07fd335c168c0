#ifndef SHARDPLAN_LAB_TRAINING_SPLIT_H_
#define SHARDPLAN_LAB_TRAINING_SPLIT_H_

#include <cstdint>
#include <random>
#include <vector>

namespace shardplan::training {

// Sample indices of the train, validation and test splits.
struct Split {
  std::vector<int64_t> train;
  std::vector<int64_t> valid;
  std::vector<int64_t> test;
};

// The reference's 80/10/10 split, seeded (docs/training.md): the indices 0..n-1 are shuffled by
// ShuffleIndices with std::mt19937_64(seed); the first floor(0.8 n) are the training split, the
// next floor(0.1 n) the validation split, the rest (about 10%) the test split. Depends only on
// (n, seed), bit-exactly on every platform.
Split SplitDataset(int64_t n, uint64_t seed);

// Fisher-Yates: for i = size-1 down to 1, swap v[i] with v[UniformBelow(rng, i + 1)].
// (std::shuffle's draws are implementation-defined; this one is portable.)
void ShuffleIndices(std::vector<int64_t>& v, std::mt19937_64& rng);

}  // namespace shardplan::training

#endif  // SHARDPLAN_LAB_TRAINING_SPLIT_H_
