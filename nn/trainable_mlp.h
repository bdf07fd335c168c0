#ifndef SHARDPLAN_NN_TRAINABLE_MLP_H_
#define SHARDPLAN_NN_TRAINABLE_MLP_H_

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "nn/mlp.h"

namespace shardplan {

// The shape of a dense MLP (ReLU between layers, on the output when relu_on_output) and where
// its parameters sit in a flat float vector: per layer, the weight row-major [out][in] as
// torch.nn.Linear and DenseLayer store it, then the bias [out]. Optimisers and the gradient
// reduction work on the flat vector; ToMlp copies it into DenseLayers unchanged.
class MlpShape {
 public:
  // sizes = {in, hidden..., out}, at least two entries, all positive.
  MlpShape(std::vector<int> sizes, bool relu_on_output);

  int num_layers() const { return static_cast<int>(sizes_.size()) - 1; }
  int in(int layer) const { return sizes_[layer]; }
  int out(int layer) const { return sizes_[layer + 1]; }
  int input_size() const { return sizes_.front(); }
  int output_size() const { return sizes_.back(); }
  bool relu_on_output() const { return relu_on_output_; }
  bool relu_after(int layer) const { return layer + 1 < num_layers() || relu_on_output_; }
  int64_t weight_offset(int layer) const { return offsets_[layer]; }
  int64_t bias_offset(int layer) const {
    return offsets_[layer] + static_cast<int64_t>(in(layer)) * out(layer);
  }
  int64_t num_params() const { return offsets_.back(); }

 private:
  std::vector<int> sizes_;
  std::vector<int64_t> offsets_;  // per layer, then the total
  bool relu_on_output_;
};

// torch.nn.Linear's default init (kaiming_uniform_ with a = sqrt(5), which is
// U(-1/sqrt(in), 1/sqrt(in)), and the same bound for the bias), drawn layer by layer, weight then
// bias, in parameter order from Uniform01 (portable; not torch's stream).
void InitParams(const MlpShape& shape, std::mt19937_64& rng, std::span<float> params);

// The parameters as an inference Mlp (same layout; a copy).
absl::StatusOr<Mlp> ToMlp(const MlpShape& shape, std::span<const float> params);

// Per-layer weights transposed to [in][out], rebuilt after every optimiser step: the forward
// pass then adds x[i] * W^T[i][:] over contiguous outputs, which vectorises without
// reassociating sums (Mlp::Forward's order, so training and serving agree bit for bit).
class TransposedWeights {
 public:
  void Update(const MlpShape& shape, std::span<const float> params);
  const float* layer(int l) const { return weights_[l].data(); }

 private:
  std::vector<std::vector<float>> weights_;
};

// Activations of one batch through an MLP, kept for the backward pass. Reused across calls
// (grows, never shrinks).
struct MlpTape {
  std::vector<std::vector<float>> outputs;    // per layer, batch x out (after ReLU where applied)
  std::vector<std::vector<float>> gradients;  // per layer, d loss / d output
};

// Runs `batch` rows of `input` (batch x input_size). The result is tape.outputs.back().
void MlpForward(const MlpShape& shape, std::span<const float> params,
                const TransposedWeights& transposed, const float* input, int batch,
                MlpTape& tape);

// Backward pass of the last MlpForward on `input`: on entry tape.gradients.back() holds
// d loss / d output (batch x output_size). Adds d loss / d params to `grad` (num_params floats,
// the flat layout) and, when `input_grad` is not null, writes d loss / d input there
// (batch x input_size). Summation runs over the batch rows in order: deterministic.
void MlpBackward(const MlpShape& shape, std::span<const float> params, const float* input,
                 int batch, MlpTape& tape, std::span<float> grad, float* input_grad);

// Sizes tape.gradients.back() for `batch` rows and returns it.
float* OutputGradient(const MlpShape& shape, int batch, MlpTape& tape);

}  // namespace shardplan

#endif  // SHARDPLAN_NN_TRAINABLE_MLP_H_
