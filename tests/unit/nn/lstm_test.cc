#include "nn/lstm.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "base/seeded_rng.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nn/activations.h"
#include "nn/lstm_cell.h"

namespace shardplan {
namespace {

using ::testing::HasSubstr;

std::vector<float> RandomVector(size_t n, std::mt19937_64& rng, double scale) {
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>((2.0 * Uniform01(rng) - 1.0) * scale);
  return v;
}

std::vector<float> InitialParams(const LstmShape& shape, std::mt19937_64& rng) {
  std::vector<float> params(shape.num_params());
  InitLstmParams(shape, rng, params);
  return params;
}

// A served LSTM made from InitialParams.
Lstm InitialLstm(const LstmShape& shape, std::mt19937_64& rng) {
  absl::StatusOr<Lstm> lstm = ToLstm(shape, InitialParams(shape, rng));
  EXPECT_TRUE(lstm.ok()) << lstm.status();
  return *std::move(lstm);
}

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// A sequence's start for the reference: the initial state (layer-major; empty: zeros) and the
// steps before which the state is zeroed.
struct ReferenceStart {
  std::vector<double> h, c;
  std::vector<uint8_t> reset;
};

// An independent double-precision forward pass straight from torch.nn.LSTM's definition, on the
// flat layout, with the IMPALA learner's state handling (state *= 1 - done[t] before step t):
// returns the top layer's h per step (steps x hidden).
std::vector<double> ReferenceForward(const LstmShape& shape, const std::vector<double>& params,
                                     const std::vector<double>& inputs, int steps,
                                     const ReferenceStart& start = {}) {
  const int hidden = shape.hidden_size();
  const int layers = shape.num_layers();
  std::vector<std::vector<double>> h(layers, std::vector<double>(hidden, 0.0));
  std::vector<std::vector<double>> c(layers, std::vector<double>(hidden, 0.0));
  for (int l = 0; l < layers; ++l) {
    for (int j = 0; j < hidden; ++j) {
      if (!start.h.empty()) h[l][j] = start.h[l * hidden + j];
      if (!start.c.empty()) c[l][j] = start.c[l * hidden + j];
    }
  }
  std::vector<double> outputs;
  for (int t = 0; t < steps; ++t) {
    if (!start.reset.empty() && start.reset[t] != 0) {
      for (int l = 0; l < layers; ++l) {
        std::fill(h[l].begin(), h[l].end(), 0.0);
        std::fill(c[l].begin(), c[l].end(), 0.0);
      }
    }
    std::vector<double> x(inputs.begin() + t * shape.input_size(),
                          inputs.begin() + (t + 1) * shape.input_size());
    for (int l = 0; l < layers; ++l) {
      const int in = shape.layer_input(l);
      const double* w_ih = params.data() + shape.weight_ih_offset(l);
      const double* w_hh = params.data() + shape.weight_hh_offset(l);
      const double* b_ih = params.data() + shape.bias_ih_offset(l);
      const double* b_hh = params.data() + shape.bias_hh_offset(l);
      std::vector<double> pre(4 * hidden);
      for (int r = 0; r < 4 * hidden; ++r) {
        double sum = b_ih[r] + b_hh[r];
        for (int k = 0; k < in; ++k) sum += w_ih[r * in + k] * x[k];
        for (int k = 0; k < hidden; ++k) sum += w_hh[r * hidden + k] * h[l][k];
        pre[r] = sum;
      }
      for (int j = 0; j < hidden; ++j) {
        const double i = Sigmoid(pre[j]);
        const double f = Sigmoid(pre[hidden + j]);
        const double g = std::tanh(pre[2 * hidden + j]);
        const double o = Sigmoid(pre[3 * hidden + j]);
        c[l][j] = f * c[l][j] + i * g;
        h[l][j] = o * std::tanh(c[l][j]);
      }
      x = h[l];
    }
    outputs.insert(outputs.end(), x.begin(), x.end());
  }
  return outputs;
}

std::vector<double> ToDouble(const std::vector<float>& v) { return {v.begin(), v.end()}; }

std::vector<float> StepAll(const Lstm& lstm, const std::vector<float>& inputs, int steps) {
  Lstm::State state = lstm.ZeroState();
  std::vector<float> outputs(static_cast<size_t>(steps) * lstm.hidden_size());
  for (int t = 0; t < steps; ++t) {
    lstm.Step(inputs.data() + static_cast<size_t>(t) * lstm.input_size(), state,
              outputs.data() + static_cast<size_t>(t) * lstm.hidden_size());
  }
  return outputs;
}

TEST(LstmShapeTest, LayoutIsTorchStateDictOrder) {
  const LstmShape shape(3, 4, 2);
  EXPECT_EQ(shape.layer_input(0), 3);
  EXPECT_EQ(shape.layer_input(1), 4);
  EXPECT_EQ(shape.weight_ih_offset(0), 0);
  EXPECT_EQ(shape.weight_hh_offset(0), 48);   // 16 x 3
  EXPECT_EQ(shape.bias_ih_offset(0), 112);    // + 16 x 4
  EXPECT_EQ(shape.bias_hh_offset(0), 128);    // + 16
  EXPECT_EQ(shape.weight_ih_offset(1), 144);  // + 16
  EXPECT_EQ(shape.weight_hh_offset(1), 208);
  EXPECT_EQ(shape.bias_ih_offset(1), 272);
  EXPECT_EQ(shape.bias_hh_offset(1), 288);
  EXPECT_EQ(shape.num_params(), 304);  // torch: sum over layers of 4H (in + H + 2)
}

TEST(LstmTest, InitIsTorchBoundAndSeeded) {
  const LstmShape shape(5, 16, 2);
  std::vector<float> a(shape.num_params());
  std::vector<float> b(shape.num_params());
  std::mt19937_64 rng_a(7);
  std::mt19937_64 rng_b(7);
  InitLstmParams(shape, rng_a, a);
  InitLstmParams(shape, rng_b, b);
  EXPECT_EQ(a, b);
  float largest = 0.0f;
  for (float p : a) {
    EXPECT_LE(std::abs(p), 0.25f);  // 1 / sqrt(16), every parameter
    largest = std::max(largest, std::abs(p));
  }
  EXPECT_GT(largest, 0.24f);  // spread over the whole range
  EXPECT_NE(a[shape.bias_hh_offset(1)], 0.0f);
}

// A 1-layer, 1-unit LSTM with hand-set weights over two steps, against the formulas written out.
TEST(LstmTest, KnownValuesOfAHandSetCell) {
  LstmLayer layer;
  layer.in = 1;
  layer.hidden = 1;
  layer.weight_ih = {0.5f, -0.5f, 1.0f, 2.0f};  // i, f, g, o
  layer.weight_hh = {0.25f, 0.5f, -0.75f, 0.125f};
  layer.bias_ih = {0.0f, 0.125f, 0.0f, -0.25f};
  layer.bias_hh = {0.0625f, 0.0f, 0.0f, 0.0f};
  absl::StatusOr<Lstm> lstm = Lstm::Create({layer});
  ASSERT_TRUE(lstm.ok()) << lstm.status();

  // Step 1, x = 1, zero state: pre-activations i 0.5625, f -0.375, g 1, o 1.75.
  const double c1 = Sigmoid(0.5625) * std::tanh(1.0);
  const double h1 = Sigmoid(1.75) * std::tanh(c1);
  // Step 2, x = -2: each pre-activation adds W_hh h1.
  const double i2 = Sigmoid(-1.0 + 0.0625 + 0.25 * h1);
  const double f2 = Sigmoid(1.0 + 0.125 + 0.5 * h1);
  const double g2 = std::tanh(-2.0 - 0.75 * h1);
  const double o2 = Sigmoid(-4.0 - 0.25 + 0.125 * h1);
  const double c2 = f2 * c1 + i2 * g2;
  const double h2 = o2 * std::tanh(c2);
  // The same numbers as literals (python3 math), so a wrong formula above would show.
  EXPECT_NEAR(h1, 0.38369032, 1e-8);
  EXPECT_NEAR(h2, 0.00128777, 1e-8);

  const std::vector<float> inputs = {1.0f, -2.0f};
  const std::vector<float> outputs = StepAll(*lstm, inputs, 2);
  EXPECT_NEAR(outputs[0], h1, 1e-6);
  EXPECT_NEAR(outputs[1], h2, 1e-6);
  Lstm::State state = lstm->ZeroState();
  float out = 0.0f;
  lstm->Step(&inputs[0], state, &out);
  EXPECT_NEAR(state.c[0], c1, 1e-6);
  lstm->Step(&inputs[1], state, &out);
  EXPECT_NEAR(state.c[0], c2, 1e-6);
  EXPECT_EQ(state.h[0], out);

  // The trainer's forward on the same parameters.
  const LstmShape shape(1, 1, 1);
  std::vector<float> params;
  for (const auto* v : {&layer.weight_ih, &layer.weight_hh, &layer.bias_ih, &layer.bias_hh}) {
    params.insert(params.end(), v->begin(), v->end());
  }
  LstmTape tape;
  LstmForward(shape, params, inputs.data(), 2, tape);
  EXPECT_EQ(LstmOutputs(tape)[0], outputs[0]);
  EXPECT_EQ(LstmOutputs(tape)[1], outputs[1]);
}

TEST(LstmTest, MatchesADoublePrecisionReference) {
  const LstmShape shape(6, 8, 3);
  std::mt19937_64 rng(11);
  const std::vector<float> params = RandomVector(shape.num_params(), rng, 0.6);
  const int steps = 9;
  const std::vector<float> inputs = RandomVector(steps * 6, rng, 2.0);
  absl::StatusOr<Lstm> lstm = ToLstm(shape, params);
  ASSERT_TRUE(lstm.ok()) << lstm.status();
  EXPECT_EQ(lstm->num_layers(), 3);
  EXPECT_EQ(lstm->input_size(), 6);
  EXPECT_EQ(lstm->hidden_size(), 8);
  const std::vector<float> actual = StepAll(*lstm, inputs, steps);
  const std::vector<double> expected =
      ReferenceForward(shape, ToDouble(params), ToDouble(inputs), steps);
  for (size_t k = 0; k < expected.size(); ++k) {
    EXPECT_NEAR(actual[k], expected[k], 1e-5 * std::max(1.0, std::abs(expected[k]))) << k;
  }
}

TEST(LstmTest, CreateRefusesBadShapesNamingLayerAndField) {
  const LstmShape shape(3, 4, 2);
  std::mt19937_64 rng(5);
  const Lstm good = InitialLstm(shape, rng);

  struct Case {
    std::string name;
    void (*mutate)(std::vector<LstmLayer>&);
    std::string message;
  };
  const std::vector<Case> cases = {
      {"no layers", [](std::vector<LstmLayer>& l) { l.clear(); }, "no layers"},
      {"in", [](std::vector<LstmLayer>& l) { l[0].in = 0; }, "layer 0 in is 0"},
      {"hidden", [](std::vector<LstmLayer>& l) { l[1].hidden = -1; }, "layer 1 hidden is -1"},
      {"hidden differs",
       [](std::vector<LstmLayer>& l) {
         l[1].hidden = 2;
         l[1].weight_hh.resize(16);
       },
       "layer 1 hidden is 2 but layer 0's is 4"},
      {"chain", [](std::vector<LstmLayer>& l) { l[1].in = 3; }, "layer 1 in is 3 but layer 0"},
      {"weight_ih", [](std::vector<LstmLayer>& l) { l[0].weight_ih.pop_back(); },
       "layer 0 weight_ih has 47 floats; want 4 * hidden * in = 48"},
      {"weight_hh", [](std::vector<LstmLayer>& l) { l[1].weight_hh.push_back(0.0f); },
       "layer 1 weight_hh has 65 floats"},
      {"bias_ih", [](std::vector<LstmLayer>& l) { l[1].bias_ih.clear(); },
       "layer 1 bias_ih has 0 floats"},
      {"bias_hh", [](std::vector<LstmLayer>& l) { l[0].bias_hh.resize(4); },
       "layer 0 bias_hh has 4 floats; want 4 * hidden = 16"},
  };
  for (const Case& c : cases) {
    std::vector<LstmLayer> layers = good.layers();
    c.mutate(layers);
    absl::StatusOr<Lstm> bad = Lstm::Create(std::move(layers));
    ASSERT_FALSE(bad.ok()) << c.name;
    EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument) << c.name;
    EXPECT_THAT(bad.status().message(), HasSubstr(c.message)) << c.name;
  }
}

// The cell's gate loop (vectorised, AVX2 where the CPU has it) gives the bits of the scalar
// activations: zero weights make the pre-activations exactly the bias, and 37 units leave a
// remainder after every vector width.
TEST(LstmCellTest, GatesEqualScalarActivationsBitForBit) {
  const int in = 3;
  const int hidden = 37;
  std::mt19937_64 rng(13);
  const std::vector<float> z = RandomVector(in + hidden, rng, 1.0);
  const std::vector<float> wt((in + hidden) * 4 * hidden, 0.0f);
  std::vector<float> bias = RandomVector(4 * hidden, rng, 6.0);
  bias[0] = 0.0f;
  bias[hidden + 1] = 200.0f;  // clamped
  bias[2 * hidden + 2] = -200.0f;
  const std::vector<float> c_prev = RandomVector(hidden, rng, 3.0);
  std::vector<float> gates(4 * hidden);
  std::vector<float> c = c_prev;
  std::vector<float> h(hidden);
  LstmCellForward(z.data(), in, hidden, wt.data(), bias.data(), gates.data(), c.data(), h.data());
  for (int j = 0; j < hidden; ++j) {
    const float i = PortableSigmoid(bias[j]);
    const float f = PortableSigmoid(bias[hidden + j]);
    const float g = PortableTanh(bias[2 * hidden + j]);
    const float o = PortableSigmoid(bias[3 * hidden + j]);
    const float c_new = f * c_prev[j] + i * g;
    ASSERT_EQ(gates[j], i) << j;
    ASSERT_EQ(gates[hidden + j], f) << j;
    ASSERT_EQ(gates[2 * hidden + j], g) << j;
    ASSERT_EQ(gates[3 * hidden + j], o) << j;
    ASSERT_EQ(c[j], c_new) << j;
    ASSERT_EQ(h[j], o * PortableTanh(c_new)) << j;
  }
}

// A served LSTM (ToLstm, stepped) reproduces the trainer's forward exactly, including with a
// tape reused from a longer sequence; at AutoShard's size (64 -> 2 x 64) and a small odd one.
TEST(LstmTest, InferenceStepEqualsTrainingForwardBitForBit) {
  for (const LstmShape& shape : {LstmShape(64, 64, 2), LstmShape(3, 5, 2)}) {
    std::mt19937_64 rng(21);
    const std::vector<float> params = InitialParams(shape, rng);
    const int steps = 7;
    const std::vector<float> longer = RandomVector((steps + 4) * shape.input_size(), rng, 3.0);
    const std::vector<float> inputs = RandomVector(steps * shape.input_size(), rng, 3.0);
    LstmTape tape;
    LstmForward(shape, params, longer.data(), steps + 4, tape);
    LstmForward(shape, params, inputs.data(), steps, tape);
    absl::StatusOr<Lstm> lstm = ToLstm(shape, params);
    ASSERT_TRUE(lstm.ok()) << lstm.status();
    const std::vector<float> served = StepAll(*lstm, inputs, steps);
    const float* trained = LstmOutputs(tape);
    for (size_t k = 0; k < served.size(); ++k) {
      ASSERT_EQ(served[k], trained[k]) << "hidden " << shape.hidden_size() << " output " << k;
    }
  }
}

TEST(LstmTest, StepDoesNotNeedAPresizedScratch) {
  const LstmShape shape(4, 6, 2);
  std::mt19937_64 rng(2);
  const Lstm lstm = InitialLstm(shape, rng);
  const std::vector<float> input = RandomVector(4, rng, 1.0);
  Lstm::State zero = lstm.ZeroState();
  Lstm::State bare{zero.h, zero.c, {}};
  std::vector<float> a(6);
  std::vector<float> b(6);
  lstm.Step(input.data(), zero, a.data());
  lstm.Step(input.data(), bare, b.data());
  EXPECT_EQ(a, b);
  EXPECT_EQ(zero.h, bare.h);
  EXPECT_EQ(zero.c, bare.c);
}

// The gradient-check setting: a 2-layer LSTM (in 3, hidden 4) over 5 steps, the scalar loss
// L = sum_t w_t . h_t with random w_t, weights large enough that every gate is well inside its
// nonlinearity. With `restarts`, the sequence starts from a random state and the state is reset
// before step 2 (the IMPALA learner's unroll).
struct GradientCase {
  LstmShape shape{3, 4, 2};
  int steps = 5;
  std::vector<float> params, inputs, weights, h0, c0;
  std::vector<uint8_t> reset;
  explicit GradientCase(bool restarts) {
    std::mt19937_64 rng(3);
    params = RandomVector(shape.num_params(), rng, 0.8);
    inputs = RandomVector(steps * shape.input_size(), rng, 1.5);
    weights = RandomVector(steps * shape.hidden_size(), rng, 1.0);
    if (restarts) {
      h0 = RandomVector(shape.num_layers() * shape.hidden_size(), rng, 0.9);
      c0 = RandomVector(shape.num_layers() * shape.hidden_size(), rng, 2.0);
      reset = {0, 0, 1, 0, 0};
    }
  }
  LstmSequenceStart Start() const { return {h0, c0, reset}; }
  double Loss(const std::vector<double>& p, const std::vector<double>& x) const {
    const std::vector<double> h =
        ReferenceForward(shape, p, x, steps, {ToDouble(h0), ToDouble(c0), reset});
    double loss = 0.0;
    for (size_t k = 0; k < h.size(); ++k) loss += weights[k] * h[k];
    return loss;
  }
};

// |analytic - numeric| / max(|analytic|, |numeric|, 1e-3): relative, with a floor so that
// gradients that are (almost) zero compare absolutely.
double RelativeError(double analytic, double numeric) {
  return std::abs(analytic - numeric) / std::max({std::abs(analytic), std::abs(numeric), 1e-3});
}

// LstmBackward (float) against central differences of the double-precision reference loss
// (step 1e-6: truncation ~1e-12, rounding ~1e-10), from the zero state and with restarts. The
// float analytic gradients agree to ~1e-5 relative; breaking any gate's derivative (even by 1%)
// gives errors far above the bound.
class LstmGradientTest : public ::testing::TestWithParam<bool> {};

TEST_P(LstmGradientTest, GradientsMatchFiniteDifferences) {
  const GradientCase gc(GetParam());
  const LstmShape& shape = gc.shape;
  LstmTape tape;
  LstmForward(shape, gc.params, gc.inputs.data(), gc.steps, tape, gc.Start());
  std::vector<float> grad(shape.num_params(), 0.0f);
  std::vector<float> d_inputs(gc.inputs.size());
  LstmBackward(shape, gc.params, gc.inputs.data(), gc.steps, tape, gc.weights.data(), grad,
               d_inputs.data());

  std::vector<double> params = ToDouble(gc.params);
  std::vector<double> inputs = ToDouble(gc.inputs);
  const auto numeric = [&](std::vector<double>& values, size_t k) {
    const double step = 1e-6;
    const double saved = values[k];
    values[k] = saved + step;
    const double plus = gc.Loss(params, inputs);
    values[k] = saved - step;
    const double minus = gc.Loss(params, inputs);
    values[k] = saved;
    return (plus - minus) / (2.0 * step);
  };
  constexpr double kBound = 1e-4;
  double worst_param = 0.0;
  for (size_t p = 0; p < params.size(); ++p) {
    const double expected = numeric(params, p);
    const double error = RelativeError(grad[p], expected);
    worst_param = std::max(worst_param, error);
    EXPECT_LE(error, kBound) << "param " << p << ": " << grad[p] << " vs " << expected;
  }
  double worst_input = 0.0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const double expected = numeric(inputs, i);
    const double error = RelativeError(d_inputs[i], expected);
    worst_input = std::max(worst_input, error);
    EXPECT_LE(error, kBound) << "input " << i << ": " << d_inputs[i] << " vs " << expected;
  }
  std::cout << "max relative error: params " << worst_param << ", inputs " << worst_input << "\n";
}

INSTANTIATE_TEST_SUITE_P(Starts, LstmGradientTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "GivenStateAndReset" : "ZeroState";
                         });

// With a start state and a reset, the trainer's forward is still the served LSTM stepped from
// that state and zeroed at the reset, bit for bit.
TEST(LstmTest, StartAndResetMatchSteppingTheServedLstm) {
  const GradientCase gc(/*restarts=*/true);
  const LstmShape& shape = gc.shape;
  LstmTape tape;
  LstmForward(shape, gc.params, gc.inputs.data(), gc.steps, tape, gc.Start());
  absl::StatusOr<Lstm> lstm = ToLstm(shape, gc.params);
  ASSERT_TRUE(lstm.ok()) << lstm.status();
  Lstm::State state = lstm->ZeroState();
  state.h = gc.h0;
  state.c = gc.c0;
  std::vector<float> out(shape.hidden_size());
  for (int t = 0; t < gc.steps; ++t) {
    if (gc.reset[t] != 0) state = lstm->ZeroState();
    lstm->Step(gc.inputs.data() + t * shape.input_size(), state, out.data());
    for (int j = 0; j < shape.hidden_size(); ++j) {
      ASSERT_EQ(out[j], LstmOutputs(tape)[t * shape.hidden_size() + j]) << t << " " << j;
    }
  }
}

// Backward is deterministic (two runs on a reused tape are equal bit for bit), adds to `grad`
// rather than overwriting it, and leaves d_inputs optional.
TEST(LstmTest, BackwardIsDeterministicAndAccumulates) {
  const GradientCase gc(/*restarts=*/true);
  const LstmShape& shape = gc.shape;
  LstmTape tape;
  const auto backward = [&](std::vector<float>& grad, float* d_inputs) {
    LstmForward(shape, gc.params, gc.inputs.data(), gc.steps, tape, gc.Start());
    LstmBackward(shape, gc.params, gc.inputs.data(), gc.steps, tape, gc.weights.data(), grad,
                 d_inputs);
  };
  std::vector<float> first(shape.num_params(), 0.0f);
  std::vector<float> d_first(gc.inputs.size());
  backward(first, d_first.data());
  std::vector<float> second(shape.num_params(), 0.0f);
  std::vector<float> d_second(gc.inputs.size());
  backward(second, d_second.data());
  EXPECT_EQ(first, second);
  EXPECT_EQ(d_first, d_second);

  std::vector<float> without_inputs(shape.num_params(), 0.0f);
  backward(without_inputs, nullptr);
  EXPECT_EQ(first, without_inputs);

  std::vector<float> twice = first;
  backward(twice, nullptr);
  for (size_t p = 0; p < twice.size(); ++p) {
    EXPECT_NEAR(twice[p], 2.0 * first[p], 1e-5 * std::max(1.0f, std::abs(first[p]))) << p;
  }
}

}  // namespace
}  // namespace shardplan
