#ifndef SHARDPLAN_NN_LSTM_H_
#define SHARDPLAN_NN_LSTM_H_

// A multi-layer LSTM with torch.nn.LSTM's semantics and parameter layout (batch 1, zero initial
// state): gates = W_ih x + b_ih + W_hh h + b_hh with rows in gate order i, f, g, o; i, f, o
// sigmoid, g tanh; c' = f * c + i * g; h' = o * tanh(c'); layer k > 0 reads layer k - 1's h.
//
// Inference (LstmLayer, Lstm) is in shardplan_nn; training (LstmShape, InitLstmParams, ToLstm,
// LstmTape, LstmForward, LstmOutputs, LstmBackward) in shardplan_nn_training. Both step through
// LstmCellForward (nn/lstm_cell.h), so a served LSTM reproduces the trainer's outputs bit for bit.

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "absl/status/statusor.h"

namespace shardplan {

// One layer as torch.nn.LSTM stores it (weight_ih_l<k>, weight_hh_l<k>, bias_ih_l<k>,
// bias_hh_l<k>), rows in gate order i, f, g, o.
struct LstmLayer {
  int in = 0;
  int hidden = 0;
  std::vector<float> weight_ih;  // [4 * hidden][in]
  std::vector<float> weight_hh;  // [4 * hidden][hidden]
  std::vector<float> bias_ih;    // [4 * hidden]
  std::vector<float> bias_hh;    // [4 * hidden]
};

// An LSTM for inference, batch 1. Immutable after Create; Step is const and safe to call from
// many threads, each with its own State.
class Lstm {
 public:
  // INVALID_ARGUMENT, naming the layer and field, when there are no layers, a size is not
  // positive, a weight or bias does not have its size, the layers' hidden sizes differ, or a
  // layer k > 0 does not take layer k - 1's hidden size as input.
  static absl::StatusOr<Lstm> Create(std::vector<LstmLayer> layers);

  int input_size() const { return layers_.front().in; }
  int hidden_size() const { return layers_.front().hidden; }
  int num_layers() const { return static_cast<int>(layers_.size()); }
  const std::vector<LstmLayer>& layers() const { return layers_; }

  // The recurrent state, layer-major (layer l's h is h[l * hidden, (l + 1) * hidden)), and the
  // scratch Step works in, so that Step does not allocate.
  struct State {
    std::vector<float> h;        // num_layers * hidden
    std::vector<float> c;        // num_layers * hidden
    std::vector<float> scratch;  // sized by ZeroState (Step sizes it if it is short)
  };
  // Zero h and c (torch's default initial state), with the scratch sized.
  State ZeroState() const;

  // Advances every layer by one step on `input` (input_size floats) and writes the top layer's
  // new h (hidden_size floats) to `output`. Allocation-free when `state` came from ZeroState.
  void Step(const float* input, State& state, float* output) const;

 private:
  explicit Lstm(std::vector<LstmLayer> layers);
  size_t scratch_size() const;

  std::vector<LstmLayer> layers_;
  // Per layer, PackLstmLayer's stacked transposed weights [in + H][4H] and summed bias [4H].
  std::vector<std::vector<float>> packed_weights_;
  std::vector<std::vector<float>> packed_bias_;
};

// The shape of an LSTM and where its parameters sit in a flat float vector: per layer
// weight_ih [4H][in], weight_hh [4H][H], bias_ih [4H], bias_hh [4H], torch's state_dict order.
// Optimisers work on the flat vector; ToLstm copies it into LstmLayers unchanged.
class LstmShape {
 public:
  // All sizes positive.
  LstmShape(int input_size, int hidden_size, int num_layers);

  int input_size() const { return input_size_; }
  int hidden_size() const { return hidden_size_; }
  int num_layers() const { return num_layers_; }
  int layer_input(int l) const { return l == 0 ? input_size_ : hidden_size_; }
  int64_t weight_ih_offset(int l) const { return offsets_[l]; }
  int64_t weight_hh_offset(int l) const {
    return weight_ih_offset(l) + int64_t{4} * hidden_size_ * layer_input(l);
  }
  int64_t bias_ih_offset(int l) const {
    return weight_hh_offset(l) + int64_t{4} * hidden_size_ * hidden_size_;
  }
  int64_t bias_hh_offset(int l) const { return bias_ih_offset(l) + int64_t{4} * hidden_size_; }
  int64_t num_params() const { return offsets_.back(); }

 private:
  int input_size_;
  int hidden_size_;
  int num_layers_;
  std::vector<int64_t> offsets_;  // per layer, then the total
};

// torch.nn.LSTM's init: every parameter U(-1/sqrt(hidden), 1/sqrt(hidden)), drawn in parameter
// order from Uniform01 (portable; not torch's stream).
void InitLstmParams(const LstmShape& shape, std::mt19937_64& rng, std::span<float> params);

// The parameters as an inference Lstm (same layout; a copy).
absl::StatusOr<Lstm> ToLstm(const LstmShape& shape, std::span<const float> params);

// Where a sequence starts, and where it starts again. IMPALA's learner (the AutoShard reference)
// unrolls a fixed number of steps from the state the actor had, multiplying the state by
// (1 - done[t]) before step t where an episode ended. The default is the zero state, no resets.
// The initial state gets no gradient (the reference's is the actor's, detached).
struct LstmSequenceStart {
  std::span<const float> h;        // num_layers * hidden, layer-major as Lstm::State; empty: 0
  std::span<const float> c;        // num_layers * hidden, layer-major as Lstm::State; empty: 0
  std::span<const uint8_t> reset;  // steps flags or empty; reset[t] != 0: zero state before t
};

// What LstmForward keeps for the backward pass, and LstmBackward's scratch. Reused across calls
// (grows, never shrinks); the contents are the implementation's.
struct LstmTape {
  int steps = 0;
  // Per step: whether step t continues from step t - 1 (t > 0 and not reset), so that
  // backpropagation runs into it.
  std::vector<uint8_t> continues;
  // Per layer: the packed weights and bias of the last forward's params (PackLstmLayer).
  std::vector<std::vector<float>> packed_weights, packed_bias;
  // Per layer, per step: z_t = [x_t; h_{t-1}] (in + H), the activated gates (4H), c_{t-1}, c_t
  // and h_t (H each), where h_{t-1}, c_{t-1} are the state step t started from.
  std::vector<std::vector<float>> z, gates, c_prev, c, h;
  // Backward scratch: dL/d(layer output) per step (steps x H; two buffers, the layer's and the
  // one below's), dL/d(pre-activations) per step (steps x 4H), dL/dh_{t-1}, dL/dc_{t-1} (H).
  std::vector<float> d_out[2], d_pre, d_h_next, d_c_next;
};

// Runs a sequence of `steps` inputs (steps x input_size, row-major) from `start` (by default the
// zero state).
void LstmForward(const LstmShape& shape, std::span<const float> params, const float* inputs,
                 int steps, LstmTape& tape, const LstmSequenceStart& start = {});

// steps x hidden: the top layer's h per step, of the last LstmForward.
const float* LstmOutputs(const LstmTape& tape);

// Backpropagation through time of the last LstmForward (same params, inputs and steps):
// d_outputs (steps x hidden) is dL/d(top h_t). Adds dL/dparams to grad (num_params floats, the
// flat layout) and, when d_inputs is not null, writes dL/dinputs (steps x input_size) there.
// Layers run top down and steps last to first: the summation order is fixed (deterministic).
void LstmBackward(const LstmShape& shape, std::span<const float> params, const float* inputs,
                  int steps, LstmTape& tape, const float* d_outputs, std::span<float> grad,
                  float* d_inputs);

}  // namespace shardplan

#endif  // SHARDPLAN_NN_LSTM_H_
