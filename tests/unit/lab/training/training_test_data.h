#ifndef SHARDPLAN_TESTS_UNIT_LAB_TRAINING_TRAINING_TEST_DATA_H_
#define SHARDPLAN_TESTS_UNIT_LAB_TRAINING_TRAINING_TEST_DATA_H_

#include <zlib.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/seeded_rng.h"
#include "gtest/gtest.h"
#include "lab/data/table_pool.h"
#include "lab/training/trainer.h"

namespace shardplan::training {

// A pool of `n` tables t0..t(n-1) with distinct rows, pooling factors and one-bin histograms.
inline TablePool SmallPool(int n) {
  TablePool pool;
  pool.source = "training tests";
  for (int i = 0; i < n; ++i) {
    Table table;
    table.name = absl::StrCat("t", i);
    table.rows = 1000 * (i + 1);
    table.pooling_factor = 2.5 + i;
    table.access_bins.assign(kNumAccessBins, 0.0);
    table.access_bins[i % kNumAccessBins] = 1.0;
    pool.tables.push_back(table);
  }
  return pool;
}

// A DeepSets toy set: sample i has 1..4 rows of `width` features in [-1, 1]; its label is the
// sum over its rows of (w . x + 0.5), w fixed: a function the compute architecture can learn.
struct ToySets {
  int width = 0;
  std::vector<float> features;
  std::vector<int64_t> row_offsets{0};
  std::vector<float> labels;
};

inline ToySets MakeToySets(int samples, int width, uint64_t seed) {
  std::mt19937_64 rng(seed);
  ToySets sets;
  sets.width = width;
  std::vector<float> w(width);
  for (int c = 0; c < width; ++c) w[c] = static_cast<float>(c % 3) - 1.0f + 0.25f * c / width;
  for (int s = 0; s < samples; ++s) {
    const int rows = 1 + static_cast<int>(UniformBelow(rng, 4));
    double label = 0.0;
    for (int r = 0; r < rows; ++r) {
      double dot = 0.5;
      for (int c = 0; c < width; ++c) {
        const float x = static_cast<float>(2.0 * Uniform01(rng) - 1.0);
        sets.features.push_back(x);
        dot += w[c] * x;
      }
      label += dot;
    }
    sets.row_offsets.push_back(sets.row_offsets.back() + rows);
    sets.labels.push_back(static_cast<float>(label));
  }
  return sets;
}

// A linear toy map: y = A x for x in [-1, 1]^in, A fixed (outputs x in).
struct ToyLinear {
  std::vector<float> inputs;
  std::vector<float> labels;
};

inline ToyLinear MakeToyLinear(int samples, int in, int out, uint64_t seed) {
  std::mt19937_64 rng(seed);
  ToyLinear data;
  for (int s = 0; s < samples; ++s) {
    std::vector<float> x(in);
    for (float& v : x) v = static_cast<float>(2.0 * Uniform01(rng) - 1.0);
    data.inputs.insert(data.inputs.end(), x.begin(), x.end());
    for (int o = 0; o < out; ++o) {
      double y = 0.0;
      for (int i = 0; i < in; ++i) y += (0.5 + 0.1 * ((o + 2 * i) % 5)) * x[i];
      data.labels.push_back(static_cast<float>(y));
    }
  }
  return data;
}

// Writes `text` gzip-compressed to `path`.
inline void WriteGzip(const std::string& path, const std::string& text) {
  gzFile file = gzopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  ASSERT_EQ(gzwrite(file, text.data(), static_cast<unsigned>(text.size())),
            static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(file), Z_OK);
}

// Options for a few quick epochs in the tests.
inline TrainOptions SmallOptions(int64_t epochs, int threads) {
  TrainOptions options;
  options.max_epochs = epochs;
  options.patience = epochs;
  options.batch_size = 64;
  options.threads = threads;
  options.seed = 5;
  options.adam.lr = 3e-3f;
  return options;
}

}  // namespace shardplan::training

#endif  // SHARDPLAN_TESTS_UNIT_LAB_TRAINING_TRAINING_TEST_DATA_H_
