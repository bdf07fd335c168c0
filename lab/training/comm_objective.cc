#include "lab/training/comm_objective.h"

#include <algorithm>

namespace shardplan::training {

struct CommObjective::Scratch : Workspace {
  std::vector<float> inputs;  // the samples' rows, gathered
  MlpTape tape;
};

MlpShape CommObjective::DefaultShape(int inputs, int outputs) {
  return MlpShape({inputs, 128, 64, 32, 16, outputs}, /*relu_on_output=*/false);
}

CommObjective::CommObjective(std::span<const float> inputs, std::span<const float> labels,
                             MlpShape shape)
    : inputs_(inputs), labels_(labels), shape_(std::move(shape)) {}

void CommObjective::InitParams(std::mt19937_64& rng, std::span<float> params) const {
  shardplan::InitParams(shape_, rng, params);
}

std::unique_ptr<Workspace> CommObjective::NewWorkspace() const {
  return std::make_unique<Scratch>();
}

void CommObjective::Prepare(std::span<const float> params) {
  transposed_.Update(shape_, params);
}

double CommObjective::Forward(std::span<const float> params, std::span<const int64_t> samples,
                              Scratch& s) const {
  const int width = shape_.input_size();
  const int outputs = shape_.output_size();
  s.inputs.clear();
  for (int64_t sample : samples) {
    s.inputs.insert(s.inputs.end(), inputs_.begin() + sample * width,
                    inputs_.begin() + (sample + 1) * width);
  }
  MlpForward(shape_, params, transposed_, s.inputs.data(), static_cast<int>(samples.size()),
             s.tape);
  const float* predicted = s.tape.outputs.back().data();
  double sse = 0.0;
  for (size_t k = 0; k < samples.size(); ++k) {
    const float* label = labels_.data() + samples[k] * outputs;
    for (int o = 0; o < outputs; ++o) {
      const double error = static_cast<double>(predicted[k * outputs + o]) - label[o];
      sse += error * error;
    }
  }
  return sse;
}

double CommObjective::AddGradient(std::span<const float> params, std::span<const int64_t> samples,
                                  float scale, std::span<float> grad,
                                  Workspace& workspace) const {
  Scratch& s = static_cast<Scratch&>(workspace);
  const double sse = Forward(params, samples, s);
  const int outputs = shape_.output_size();
  const int num = static_cast<int>(samples.size());
  const float* predicted = s.tape.outputs.back().data();
  float* out_grad = OutputGradient(shape_, num, s.tape);
  for (int k = 0; k < num; ++k) {
    const float* label = labels_.data() + samples[k] * outputs;
    for (int o = 0; o < outputs; ++o) {
      out_grad[k * outputs + o] = scale * (predicted[k * outputs + o] - label[o]);
    }
  }
  MlpBackward(shape_, params, s.inputs.data(), num, s.tape, grad, nullptr);
  return sse;
}

double CommObjective::Predict(std::span<const float> params, std::span<const int64_t> samples,
                              float* out, Workspace& workspace) const {
  Scratch& s = static_cast<Scratch&>(workspace);
  const double sse = Forward(params, samples, s);
  std::copy_n(s.tape.outputs.back().data(), samples.size() * shape_.output_size(), out);
  return sse;
}

}  // namespace shardplan::training
