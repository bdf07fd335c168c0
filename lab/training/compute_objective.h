#ifndef SHARDPLAN_LAB_TRAINING_COMPUTE_OBJECTIVE_H_
#define SHARDPLAN_LAB_TRAINING_COMPUTE_OBJECTIVE_H_

#include <cstdint>
#include <span>
#include <vector>

#include "costmodels/neural/table_features.h"
#include "lab/training/objective.h"
#include "nn/trainable_mlp.h"

namespace shardplan::training {

// The compute model's DeepSets loss (NeuralComputeModel's architecture): every table row goes
// through the table MLP, the latents are summed per sample, the pred MLP maps the sum to ms.
// The backward pass hands each sample's latent-sum gradient to all of its rows. Parameters:
// the table MLP's, then the pred MLP's (each in MlpShape's layout).
// Weights that turn the squared error into a relative one: 1 / max(label, floor_ms)^2, scaled
// so that their mean is 1 (the gradient keeps its size; Adam barely cares). A plain squared
// error weighs a 0.3 ms set's 50% miss as much as a 30 ms set's 0.5% one; these weigh it 10^4
// times more. floor_ms bounds the weight of near-zero labels.
std::vector<float> RelativeLossWeights(std::span<const float> labels, double floor_ms);

class ComputeObjective : public Objective {
 public:
  // The reference's 20->128->32 (ReLU on the output; `features` inputs for another feature set)
  // and 32->64->1.
  static MlpShape DefaultTableShape(int features = kNumTableFeatures);
  static MlpShape DefaultPredShape();

  // `features`: normalised rows (table.input_size() floats each); sample i owns the rows
  // [row_offsets[i], row_offsets[i+1]); `labels` one per sample. Not owned.
  // `gradient_weights`, when not empty, one per sample: each sample's squared error enters the
  // gradient times its weight (RelativeLossWeights). The sums of squared errors returned below
  // stay unweighted, so reported MSEs and early stopping mean what they always do.
  ComputeObjective(std::span<const float> features, std::span<const int64_t> row_offsets,
                   std::span<const float> labels, MlpShape table, MlpShape pred,
                   std::span<const float> gradient_weights = {});

  const MlpShape& table_shape() const { return table_; }
  const MlpShape& pred_shape() const { return pred_; }
  std::span<const float> TableParams(std::span<const float> params) const {
    return params.first(table_.num_params());
  }
  std::span<const float> PredParams(std::span<const float> params) const {
    return params.subspan(table_.num_params(), pred_.num_params());
  }

  int64_t num_params() const override { return table_.num_params() + pred_.num_params(); }
  int num_outputs() const override { return 1; }
  void InitParams(std::mt19937_64& rng, std::span<float> params) const override;
  std::unique_ptr<Workspace> NewWorkspace() const override;
  void Prepare(std::span<const float> params) override;
  double AddGradient(std::span<const float> params, std::span<const int64_t> samples, float scale,
                     std::span<float> grad, Workspace& workspace) const override;
  double Predict(std::span<const float> params, std::span<const int64_t> samples, float* out,
                 Workspace& workspace) const override;
  std::span<const float> Labels(int64_t sample) const override {
    return labels_.subspan(sample, 1);
  }

 private:
  struct Scratch;
  // Forward pass of `samples` into the scratch; returns their sum of squared errors.
  double Forward(std::span<const float> params, std::span<const int64_t> samples,
                 Scratch& scratch) const;

  std::span<const float> features_;
  std::span<const int64_t> row_offsets_;
  std::span<const float> labels_;
  std::span<const float> gradient_weights_;
  MlpShape table_;
  MlpShape pred_;
  TransposedWeights table_t_;
  TransposedWeights pred_t_;
};

}  // namespace shardplan::training

#endif  // SHARDPLAN_LAB_TRAINING_COMPUTE_OBJECTIVE_H_
