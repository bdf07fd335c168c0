#ifndef SHARDPLAN_LAB_TRAINING_COMM_OBJECTIVE_H_
#define SHARDPLAN_LAB_TRAINING_COMM_OBJECTIVE_H_

#include <cstdint>
#include <span>

#include "lab/training/objective.h"
#include "nn/trainable_mlp.h"

namespace shardplan::training {

// A comm model's loss (NeuralCommModel's architecture): one MLP from the normalised inputs to
// the N per-device labels, squared error summed over samples and devices.
class CommObjective : public Objective {
 public:
  // The reference's in->128->64->32->16->N.
  static MlpShape DefaultShape(int inputs, int outputs);

  // `inputs`: normalised rows of shape.input_size() floats, `labels` rows of
  // shape.output_size() floats, one of each per sample. Not owned.
  CommObjective(std::span<const float> inputs, std::span<const float> labels, MlpShape shape);

  const MlpShape& shape() const { return shape_; }

  int64_t num_params() const override { return shape_.num_params(); }
  int num_outputs() const override { return shape_.output_size(); }
  void InitParams(std::mt19937_64& rng, std::span<float> params) const override;
  std::unique_ptr<Workspace> NewWorkspace() const override;
  void Prepare(std::span<const float> params) override;
  double AddGradient(std::span<const float> params, std::span<const int64_t> samples, float scale,
                     std::span<float> grad, Workspace& workspace) const override;
  double Predict(std::span<const float> params, std::span<const int64_t> samples, float* out,
                 Workspace& workspace) const override;
  std::span<const float> Labels(int64_t sample) const override {
    return labels_.subspan(sample * num_outputs(), num_outputs());
  }

 private:
  struct Scratch;
  double Forward(std::span<const float> params, std::span<const int64_t> samples,
                 Scratch& scratch) const;

  std::span<const float> inputs_;
  std::span<const float> labels_;
  MlpShape shape_;
  TransposedWeights transposed_;
};

}  // namespace shardplan::training

#endif  // SHARDPLAN_LAB_TRAINING_COMM_OBJECTIVE_H_
