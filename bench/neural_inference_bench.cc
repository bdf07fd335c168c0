// Speed on one core of neural cost-model inference (the target: well over 10^6 table rows per
// second, so that a search's hundreds of thousands of model calls take well under a second), and
// of the learned planners' LSTM (BM_Lstm*). Weights are random in torch's default init range;
// speed does not depend on their values. Each device set is the 60-table shard set of one
// synthetic task device.
//
//   build/bench/neural_inference_bench --benchmark_out=bench/results/neural_inference.json
//                                      --benchmark_out_format=json
#include <cmath>
#include <random>
#include <vector>

#include "base/seeded_rng.h"
#include "bench/synthetic_tasks.h"
#include "benchmark/benchmark.h"
#include "costmodels/neural/neural_cost_model.h"
#include "costmodels/neural/table_features.h"
#include "nn/lstm.h"

namespace shardplan::bench {
namespace {

DenseLayer RandomLayer(int in, int out, std::mt19937_64& rng) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(in));
  auto draw = [&] { return static_cast<float>((2.0 * Uniform01(rng) - 1.0) * bound); };
  DenseLayer layer;
  layer.in = in;
  layer.out = out;
  for (int i = 0; i < in * out; ++i) layer.weight.push_back(draw());
  for (int o = 0; o < out; ++o) layer.bias.push_back(draw());
  return layer;
}

Mlp RandomMlp(const std::vector<int>& sizes, bool relu_on_output, std::mt19937_64& rng) {
  std::vector<DenseLayer> layers;
  for (size_t l = 0; l + 1 < sizes.size(); ++l) {
    layers.push_back(RandomLayer(sizes[l], sizes[l + 1], rng));
  }
  return *Mlp::Create(std::move(layers), relu_on_output);
}

NeuralComputeModel MakeComputeModel(size_t latent_memo_capacity) {
  std::mt19937_64 rng(0);
  FeatureNormalizer normalizer = *FeatureNormalizer::Create(
      std::vector<double>(kNumTableFeatures, 0.0), std::vector<double>(kNumTableFeatures, 1.0));
  return *NeuralComputeModel::Create(std::move(normalizer),
                                     RandomMlp({kNumTableFeatures, 128, 32}, true, rng),
                                     RandomMlp({32, 64, 1}, false, rng), latent_memo_capacity);
}

// One device set of `state.range(0)` shards per iteration: table rows/s and sets/s.
// `memo`: with the process-wide latent memo (warm after the first iteration, as in a search,
// which revisits the same (table, dim) pairs), or without it (every table through the MLP).
void ComputePredict(benchmark::State& state, bool memo) {
  const int num_tables = static_cast<int>(state.range(0));
  const Task task = SyntheticTask(num_tables, 1, /*seed=*/0);
  std::vector<ShardView> shards;
  for (const Table& table : task.tables) shards.push_back({&table, table.rows, table.dim});
  const NeuralComputeModel model =
      MakeComputeModel(memo ? NeuralComputeModel::kDefaultLatentMemoCapacity : 0);
  for (auto _ : state) benchmark::DoNotOptimize(model.Predict(shards));
  state.counters["table_rows/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * num_tables, benchmark::Counter::kIsRate);
  state.counters["device_sets/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
void BM_ComputePredict(benchmark::State& state) { ComputePredict(state, /*memo=*/false); }
void BM_ComputePredictMemo(benchmark::State& state) { ComputePredict(state, /*memo=*/true); }
BENCHMARK(BM_ComputePredict)->Arg(1)->Arg(15)->Arg(60)->ArgName("tables");
BENCHMARK(BM_ComputePredictMemo)->Arg(1)->Arg(15)->Arg(60)->ArgName("tables");

// The learned planners' LSTM at AutoShard's size (input 64, 2 layers of 64): one Step per table
// of a plan (steps/s), and the trainer's forward + backward over a sequence of `state.range(0)`
// steps (sequences/s).
constexpr int kLstmInput = 64;
constexpr int kLstmHidden = 64;
constexpr int kLstmLayers = 2;

std::vector<float> RandomLstmParams(const LstmShape& shape, std::mt19937_64& rng) {
  std::vector<float> params(shape.num_params());
  InitLstmParams(shape, rng, params);
  return params;
}

void BM_LstmStep(benchmark::State& state) {
  const LstmShape shape(kLstmInput, kLstmHidden, kLstmLayers);
  std::mt19937_64 rng(0);
  const Lstm lstm = *ToLstm(shape, RandomLstmParams(shape, rng));
  std::vector<float> input(kLstmInput);
  for (float& x : input) x = static_cast<float>(Uniform01(rng));
  std::vector<float> output(kLstmHidden);
  Lstm::State lstm_state = lstm.ZeroState();
  for (auto _ : state) {
    lstm.Step(input.data(), lstm_state, output.data());
    benchmark::DoNotOptimize(output.data());
  }
  state.counters["steps/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_LstmStep);

void BM_LstmForwardBackward(benchmark::State& state) {
  const int steps = static_cast<int>(state.range(0));
  const LstmShape shape(kLstmInput, kLstmHidden, kLstmLayers);
  std::mt19937_64 rng(0);
  const std::vector<float> params = RandomLstmParams(shape, rng);
  std::vector<float> inputs(static_cast<size_t>(steps) * kLstmInput);
  for (float& x : inputs) x = static_cast<float>(Uniform01(rng));
  const std::vector<float> d_outputs(static_cast<size_t>(steps) * kLstmHidden, 1.0f);
  std::vector<float> grad(shape.num_params(), 0.0f);
  LstmTape tape;
  for (auto _ : state) {
    LstmForward(shape, params, inputs.data(), steps, tape);
    LstmBackward(shape, params, inputs.data(), steps, tape, d_outputs.data(), grad, nullptr);
    benchmark::DoNotOptimize(grad.data());
  }
  state.counters["steps/s"] = benchmark::Counter(static_cast<double>(state.iterations()) * steps,
                                                 benchmark::Counter::kIsRate);
}
BENCHMARK(BM_LstmForwardBackward)->Arg(60)->Arg(200)->ArgName("steps");

}  // namespace
}  // namespace shardplan::bench

BENCHMARK_MAIN();
