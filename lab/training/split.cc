#include "lab/training/split.h"

#include <numeric>
#include <utility>

#include "base/seeded_rng.h"

namespace shardplan::training {

void ShuffleIndices(std::vector<int64_t>& v, std::mt19937_64& rng) {
  for (size_t i = v.size(); i > 1; --i) {
    std::swap(v[i - 1], v[UniformBelow(rng, i)]);
  }
}

Split SplitDataset(int64_t n, uint64_t seed) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::mt19937_64 rng(seed);
  ShuffleIndices(order, rng);
  const int64_t train = n * 8 / 10;
  const int64_t valid = n / 10;
  Split split;
  split.train.assign(order.begin(), order.begin() + train);
  split.valid.assign(order.begin() + train, order.begin() + train + valid);
  split.test.assign(order.begin() + train + valid, order.end());
  return split;
}

}  // namespace shardplan::training
