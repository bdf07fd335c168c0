#ifndef SHARDPLAN_TESTS_UNIT_COSTMODELS_ARTIFACTS_BUNDLE_TEST_UTIL_H_
#define SHARDPLAN_TESTS_UNIT_COSTMODELS_ARTIFACTS_BUNDLE_TEST_UTIL_H_

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "costmodels/neural/neural_cost_model.h"
#include "gtest/gtest.h"
#include "tests/unit/nn/reference_mlp.h"

namespace shardplan::testing_bundle {

// A fresh directory under the test temp dir.
inline std::string MakeTempDir() {
  std::string pattern = ::testing::TempDir() + "/bundle_test_XXXXXX";
  const char* dir = ::mkdtemp(pattern.data());
  EXPECT_NE(dir, nullptr);
  return pattern;
}

inline FeatureNormalizer RandomNormalizer(int n, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> means, stds;
  for (int i = 0; i < n; ++i) {
    means.push_back(1000.0 * u(rng) - 3.0);  // not round numbers: tests exact round trips
    stds.push_back(0.1 + 77.0 * u(rng));
  }
  return *FeatureNormalizer::Create(means, stds);
}

inline Mlp RandomMlp(const std::vector<int>& sizes, bool relu_on_output, std::mt19937& rng) {
  return *Mlp::Create(testing_neural::RandomLayers(sizes, rng), relu_on_output);
}

inline NeuralCommModel RandomComm(int n, NeuralCommModel::Direction direction, std::mt19937& rng) {
  const int in = direction == NeuralCommModel::Direction::kForward ? 2 * n : n;
  return *NeuralCommModel::Create(n, direction, RandomNormalizer(in, rng),
                                  RandomMlp({in, 16, 8, n}, false, rng));
}

// A model of the reference's compute sizes (20->128->32, 32->64->1) and small comm models for
// `device_counts`; no comm models means CommCosts::kZero.
inline NeuralCostModel RandomModel(const std::string& name, const std::string& version,
                                   const std::vector<int>& device_counts, uint32_t seed = 7) {
  std::mt19937 rng(seed);
  NeuralComputeModel compute = *NeuralComputeModel::Create(
      RandomNormalizer(kNumTableFeatures, rng), RandomMlp({kNumTableFeatures, 128, 32}, true, rng),
      RandomMlp({32, 64, 1}, false, rng));
  std::map<int, NeuralCommModels> comm;
  for (int n : device_counts) {
    comm.emplace(n, NeuralCommModels{RandomComm(n, NeuralCommModel::Direction::kForward, rng),
                                     RandomComm(n, NeuralCommModel::Direction::kBackward, rng)});
  }
  return *NeuralCostModel::Create(name, version, std::move(compute), std::move(comm),
                                  device_counts.empty() ? NeuralCostModel::CommCosts::kZero
                                                        : NeuralCostModel::CommCosts::kNeural);
}

inline DeviceSetCommModel RandomDeviceSetComm(CommDirection direction, std::mt19937& rng) {
  const int in = DeviceSetCommNumInputs(direction);
  return *DeviceSetCommModel::Create(direction, RandomNormalizer(in, rng),
                                     RandomMlp({in, 8, 4, 1}, false, rng), 65536);
}

// RandomModel(name, version, {}) with device-set comm models (any device count), trained on
// 2..16 devices in hosts of 2..8.
inline NeuralCostModel RandomDeviceSetModel(const std::string& name, const std::string& version,
                                            uint32_t seed = 11) {
  std::mt19937 rng(seed);
  NeuralComputeModel compute = *NeuralComputeModel::Create(
      RandomNormalizer(kNumTableFeatures, rng), RandomMlp({kNumTableFeatures, 128, 32}, true, rng),
      RandomMlp({32, 64, 1}, false, rng));
  DeviceSetCommModels comm{RandomDeviceSetComm(CommDirection::kForward, rng),
                           RandomDeviceSetComm(CommDirection::kBackward, rng),
                           {{2, 2}, {8, 8}, {16, 8}, {8, 4}}};
  return *NeuralCostModel::Create(name, version, std::move(compute), {},
                                  NeuralCostModel::CommCosts::kNeural, std::nullopt,
                                  std::move(comm));
}

inline NeuralCollectiveModel RandomCollectives(std::mt19937& rng) {
  return *NeuralCollectiveModel::Create(
      RandomNormalizer(kNumCollectiveCallFeatures, rng),
      RandomMlp({kNumCollectiveCallFeatures, 8, 4, 1}, false, rng));
}

// RandomDeviceSetModel with a compute model on the kServed feature set (21->128->32) and a
// collective model: a model that costs every sharding type.
inline NeuralCostModel RandomServedModel(const std::string& name, const std::string& version,
                                         uint32_t seed = 13,
                                         ComputeCalls calls = ComputeCalls::kOnePerDevice) {
  std::mt19937 rng(seed);
  NeuralComputeModel compute = *NeuralComputeModel::Create(
      RandomNormalizer(kNumServedFeatures, rng),
      RandomMlp({kNumServedFeatures, 128, 32}, true, rng), RandomMlp({32, 64, 1}, false, rng),
      NeuralComputeModel::kDefaultLatentMemoCapacity, FeatureTransform::kRaw,
      ShardFeatureSet::kServed, calls);
  DeviceSetCommModels comm{RandomDeviceSetComm(CommDirection::kForward, rng),
                           RandomDeviceSetComm(CommDirection::kBackward, rng),
                           {{2, 2}, {8, 8}, {16, 8}, {8, 4}}};
  return *NeuralCostModel::Create(name, version, std::move(compute), {},
                                  NeuralCostModel::CommCosts::kNeural, std::nullopt,
                                  std::move(comm), RandomCollectives(rng));
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
}

}  // namespace shardplan::testing_bundle

#endif  // SHARDPLAN_TESTS_UNIT_COSTMODELS_ARTIFACTS_BUNDLE_TEST_UTIL_H_
