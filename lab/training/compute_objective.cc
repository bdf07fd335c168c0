#include "lab/training/compute_objective.h"

#include <algorithm>
#include <cstring>

#include "costmodels/neural/table_features.h"

namespace shardplan::training {

struct ComputeObjective::Scratch : Workspace {
  std::vector<float> rows;          // the samples' feature rows, gathered
  std::vector<int64_t> offsets;     // sample s's rows in `rows`: [offsets[s], offsets[s+1])
  std::vector<float> sums;          // per sample, the summed table latents
  std::vector<float> sum_grad;      // d loss / d sums
  MlpTape table_tape;
  MlpTape pred_tape;
};

std::vector<float> RelativeLossWeights(std::span<const float> labels, double floor_ms) {
  std::vector<float> weights(labels.size());
  double total = 0.0;
  for (size_t i = 0; i < labels.size(); ++i) {
    const double label = std::max(static_cast<double>(labels[i]), floor_ms);
    const double weight = 1.0 / (label * label);
    weights[i] = static_cast<float>(weight);
    total += weight;
  }
  const double mean = labels.empty() ? 1.0 : total / static_cast<double>(labels.size());
  for (float& weight : weights) weight = static_cast<float>(weight / mean);
  return weights;
}

MlpShape ComputeObjective::DefaultTableShape(int features) {
  return MlpShape({features, 128, 32}, /*relu_on_output=*/true);
}
MlpShape ComputeObjective::DefaultPredShape() { return MlpShape({32, 64, 1}, false); }

ComputeObjective::ComputeObjective(std::span<const float> features,
                                   std::span<const int64_t> row_offsets,
                                   std::span<const float> labels, MlpShape table, MlpShape pred,
                                   std::span<const float> gradient_weights)
    : features_(features),
      row_offsets_(row_offsets),
      labels_(labels),
      gradient_weights_(gradient_weights),
      table_(std::move(table)),
      pred_(std::move(pred)) {}

void ComputeObjective::InitParams(std::mt19937_64& rng, std::span<float> params) const {
  shardplan::InitParams(table_, rng, params.first(table_.num_params()));
  shardplan::InitParams(pred_, rng, params.subspan(table_.num_params()));
}

std::unique_ptr<Workspace> ComputeObjective::NewWorkspace() const {
  return std::make_unique<Scratch>();
}

void ComputeObjective::Prepare(std::span<const float> params) {
  table_t_.Update(table_, TableParams(params));
  pred_t_.Update(pred_, PredParams(params));
}

double ComputeObjective::Forward(std::span<const float> params, std::span<const int64_t> samples,
                                 Scratch& s) const {
  const int width = table_.input_size();
  const int latent = table_.output_size();
  const int num = static_cast<int>(samples.size());
  s.offsets.assign(1, 0);
  s.rows.clear();
  for (int64_t sample : samples) {
    const int64_t begin = row_offsets_[sample];
    const int64_t end = row_offsets_[sample + 1];
    s.rows.insert(s.rows.end(), features_.begin() + begin * width,
                  features_.begin() + end * width);
    s.offsets.push_back(s.offsets.back() + (end - begin));
  }
  MlpForward(table_, TableParams(params), table_t_, s.rows.data(),
             static_cast<int>(s.offsets.back()), s.table_tape);
  const float* latents = s.table_tape.outputs.back().data();
  s.sums.assign(static_cast<size_t>(num) * latent, 0.0f);
  for (int k = 0; k < num; ++k) {
    float* __restrict sum = s.sums.data() + static_cast<size_t>(k) * latent;
    for (int64_t r = s.offsets[k]; r < s.offsets[k + 1]; ++r) {
      const float* __restrict row = latents + r * latent;
      for (int j = 0; j < latent; ++j) sum[j] += row[j];
    }
  }
  MlpForward(pred_, PredParams(params), pred_t_, s.sums.data(), num, s.pred_tape);
  const float* predicted = s.pred_tape.outputs.back().data();
  double sse = 0.0;
  for (int k = 0; k < num; ++k) {
    const double error = static_cast<double>(predicted[k]) - labels_[samples[k]];
    sse += error * error;
  }
  return sse;
}

double ComputeObjective::AddGradient(std::span<const float> params,
                                     std::span<const int64_t> samples, float scale,
                                     std::span<float> grad, Workspace& workspace) const {
  Scratch& s = static_cast<Scratch&>(workspace);
  const double sse = Forward(params, samples, s);
  const int num = static_cast<int>(samples.size());
  const int latent = table_.output_size();
  const float* predicted = s.pred_tape.outputs.back().data();
  float* out_grad = OutputGradient(pred_, num, s.pred_tape);
  for (int k = 0; k < num; ++k) {
    const float weight = gradient_weights_.empty() ? 1.0f : gradient_weights_[samples[k]];
    out_grad[k] = scale * weight * (predicted[k] - labels_[samples[k]]);
  }
  s.sum_grad.resize(static_cast<size_t>(num) * latent);
  MlpBackward(pred_, PredParams(params), s.sums.data(), num, s.pred_tape,
              grad.subspan(table_.num_params(), pred_.num_params()), s.sum_grad.data());
  // The sum's gradient reaches each of its rows unchanged.
  const int rows = static_cast<int>(s.offsets.back());
  float* latent_grad = OutputGradient(table_, rows, s.table_tape);
  for (int k = 0; k < num; ++k) {
    for (int64_t r = s.offsets[k]; r < s.offsets[k + 1]; ++r) {
      std::memcpy(latent_grad + r * latent, s.sum_grad.data() + static_cast<size_t>(k) * latent,
                  sizeof(float) * latent);
    }
  }
  MlpBackward(table_, TableParams(params), s.rows.data(), rows, s.table_tape,
              grad.first(table_.num_params()), nullptr);
  return sse;
}

double ComputeObjective::Predict(std::span<const float> params, std::span<const int64_t> samples,
                                 float* out, Workspace& workspace) const {
  Scratch& s = static_cast<Scratch&>(workspace);
  const double sse = Forward(params, samples, s);
  std::copy_n(s.pred_tape.outputs.back().data(), samples.size(), out);
  return sse;
}

}  // namespace shardplan::training
