#ifndef SHARDPLAN_NN_MLP_H_
#define SHARDPLAN_NN_MLP_H_

#include <cstddef>
#include <span>
#include <vector>

#include "absl/status/statusor.h"

namespace shardplan {

// One fully connected layer as torch.nn.Linear stores it: weight row-major [out][in], bias [out].
struct DenseLayer {
  int in = 0;
  int out = 0;
  std::vector<float> weight;  // out * in
  std::vector<float> bias;    // out
};

// A dense MLP: ReLU between layers, and after the last one only when `relu_on_output`.
// Immutable after Create; Forward is const and safe to call from many threads with their own
// scratch.
class Mlp {
 public:
  // INVALID_ARGUMENT when there are no layers, a layer's sizes are not positive or do not match
  // its weight and bias, or a layer's input size is not the previous layer's output size.
  static absl::StatusOr<Mlp> Create(std::vector<DenseLayer> layers, bool relu_on_output = false);

  int input_size() const { return layers_.front().in; }
  int output_size() const { return layers_.back().out; }
  bool relu_on_output() const { return relu_on_output_; }
  const std::vector<DenseLayer>& layers() const { return layers_; }

  // Floats of scratch Forward needs (independent of the batch size).
  size_t scratch_size() const { return 2 * static_cast<size_t>(max_width_); }

  // Runs `batch` rows: `input` holds batch * input_size() floats, row-major; `output` receives
  // batch * output_size() floats. `scratch` must hold at least scratch_size() floats and must
  // not overlap input or output. Does not allocate.
  void Forward(const float* input, int batch, float* output, std::span<float> scratch) const;

 private:
  Mlp(std::vector<DenseLayer> layers, bool relu_on_output);

  std::vector<DenseLayer> layers_;
  // Per layer, the weight transposed to [in][out]: the inner loop then runs over contiguous
  // outputs (y += x[i] * W^T[i][:]), which the compiler vectorises without reassociating sums.
  std::vector<std::vector<float>> transposed_;
  int max_width_ = 0;
  bool relu_on_output_ = false;
};

}  // namespace shardplan

#endif  // SHARDPLAN_NN_MLP_H_
