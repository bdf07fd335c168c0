#include "groundtruth/cpu/embedding_bag_kernel.h"

#include <cstdint>
#include <random>
#include <vector>

#include "base/seeded_rng.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

struct Case {
  int64_t batch = 0;
  std::vector<std::vector<float>> weights;
  std::vector<EmbeddingTableView> views;
  std::vector<int64_t> indices;
  std::vector<int64_t> offsets = {0};
  std::vector<int64_t> column_offsets = {0};
  std::vector<float> grad;

  FusedLookups Lookups() const { return {batch, indices, offsets, column_offsets}; }
};

float Uniform(std::mt19937_64& rng) {
  return static_cast<float>(rng() >> 40) / 16777216.0f - 0.5f;
}

// Tables with odd dims (tails of vector loops), repeated rows and empty bags.
Case RandomCase(uint64_t seed) {
  std::mt19937_64 rng(seed);
  Case c;
  c.batch = 1 + static_cast<int64_t>(UniformBelow(rng, 9));
  const int num_tables = 1 + static_cast<int>(UniformBelow(rng, 4));
  for (int t = 0; t < num_tables; ++t) {
    const int64_t rows = 1 + static_cast<int64_t>(UniformBelow(rng, 12));
    const int32_t dim = 1 + static_cast<int32_t>(UniformBelow(rng, 37));
    std::vector<float> w(rows * dim);
    for (float& x : w) x = Uniform(rng);
    c.weights.push_back(std::move(w));
    c.column_offsets.push_back(c.column_offsets.back() + dim);
    for (int64_t b = 0; b < c.batch; ++b) {
      const int64_t len = static_cast<int64_t>(UniformBelow(rng, 6));  // 0: empty bag
      for (int64_t i = 0; i < len; ++i) {
        c.indices.push_back(static_cast<int64_t>(UniformBelow(rng, rows)));
      }
      c.offsets.push_back(static_cast<int64_t>(c.indices.size()));
    }
  }
  for (int t = 0; t < num_tables; ++t) {
    const int32_t dim = static_cast<int32_t>(c.column_offsets[t + 1] - c.column_offsets[t]);
    c.views.push_back({c.weights[t].data(), static_cast<int64_t>(c.weights[t].size()) / dim, dim});
  }
  c.grad.resize(c.batch * c.column_offsets.back());
  for (float& g : c.grad) g = Uniform(rng);
  return c;
}

// Naive reference: pooled sums in double; gradients accumulated per row, then one update.
std::vector<double> NaiveForward(const Case& c) {
  const int64_t width = c.column_offsets.back();
  std::vector<double> out(c.batch * width, 0.0);
  for (size_t t = 0; t < c.views.size(); ++t) {
    for (int64_t b = 0; b < c.batch; ++b) {
      const int64_t bag = static_cast<int64_t>(t) * c.batch + b;
      for (int64_t i = c.offsets[bag]; i < c.offsets[bag + 1]; ++i) {
        for (int32_t d = 0; d < c.views[t].dim; ++d) {
          out[b * width + c.column_offsets[t] + d] +=
              c.weights[t][c.indices[i] * c.views[t].dim + d];
        }
      }
    }
  }
  return out;
}

std::vector<std::vector<double>> NaiveSgd(const Case& c, double lr) {
  const int64_t width = c.column_offsets.back();
  std::vector<std::vector<double>> updated;
  for (size_t t = 0; t < c.views.size(); ++t) {
    const int32_t dim = c.views[t].dim;
    std::vector<double> row_grad(c.weights[t].size(), 0.0);
    for (int64_t b = 0; b < c.batch; ++b) {
      const int64_t bag = static_cast<int64_t>(t) * c.batch + b;
      for (int64_t i = c.offsets[bag]; i < c.offsets[bag + 1]; ++i) {
        for (int32_t d = 0; d < dim; ++d) {
          row_grad[c.indices[i] * dim + d] += c.grad[b * width + c.column_offsets[t] + d];
        }
      }
    }
    std::vector<double> w(c.weights[t].begin(), c.weights[t].end());
    for (size_t k = 0; k < w.size(); ++k) w[k] -= lr * row_grad[k];
    updated.push_back(std::move(w));
  }
  return updated;
}

class CpuKernelTest : public ::testing::TestWithParam<int> {};

TEST_P(CpuKernelTest, MatchesNaiveReference) {
  const int parts = GetParam();
  for (uint64_t seed = 0; seed < 50; ++seed) {
    Case c = RandomCase(seed);
    const std::vector<double> want_out = NaiveForward(c);
    const std::vector<std::vector<double>> want_w = NaiveSgd(c, 0.1);
    std::vector<float> out(want_out.size(), 123.0f);  // stale values must be overwritten
    for (int p = 0; p < parts; ++p) {
      EmbeddingBagForward(c.views, c.Lookups(), out.data(), p, parts);
    }
    for (size_t i = 0; i < out.size(); ++i) {
      ASSERT_NEAR(out[i], want_out[i], 1e-5) << "seed " << seed << " output " << i;
    }
    for (int p = 0; p < parts; ++p) {
      EmbeddingBagBackwardSgd(c.views, c.Lookups(), c.grad.data(), 0.1f, p, parts);
    }
    for (size_t t = 0; t < c.weights.size(); ++t) {
      for (size_t k = 0; k < c.weights[t].size(); ++k) {
        ASSERT_NEAR(c.weights[t][k], want_w[t][k], 1e-5)
            << "seed " << seed << " table " << t << " weight " << k;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Parts, CpuKernelTest, ::testing::Values(1, 3));

TEST(CpuKernelTest, DuplicateLookupsAccumulateUpdates) {
  std::vector<float> w = {1.0f, 2.0f, 10.0f, 20.0f};  // 2 rows x dim 2
  const std::vector<EmbeddingTableView> views = {{w.data(), 2, 2}};
  const std::vector<int64_t> indices = {0, 0, 0};  // row 0 three times in one bag
  const std::vector<int64_t> offsets = {0, 3};
  const std::vector<int64_t> columns = {0, 2};
  const FusedLookups lookups{1, indices, offsets, columns};
  std::vector<float> out(2);
  EmbeddingBagForward(views, lookups, out.data());
  EXPECT_FLOAT_EQ(out[0], 3.0f);
  EXPECT_FLOAT_EQ(out[1], 6.0f);
  const std::vector<float> grad = {1.0f, -1.0f};
  EmbeddingBagBackwardSgd(views, lookups, grad.data(), 0.5f);
  EXPECT_FLOAT_EQ(w[0], 1.0f - 3 * 0.5f);
  EXPECT_FLOAT_EQ(w[1], 2.0f + 3 * 0.5f);
  EXPECT_FLOAT_EQ(w[2], 10.0f);  // untouched row
  EXPECT_FLOAT_EQ(w[3], 20.0f);
}

}  // namespace
}  // namespace shardplan
