#ifndef SHARDPLAN_LAB_TRAINING_OBJECTIVE_H_
#define SHARDPLAN_LAB_TRAINING_OBJECTIVE_H_

#include <cstdint>
#include <memory>
#include <random>
#include <span>

namespace shardplan::training {

// Per-worker scratch of an Objective.
class Workspace {
 public:
  virtual ~Workspace() = default;
};

// A model and its dataset as the Trainer sees them: flat parameters, a loss that is the squared
// error summed over samples and outputs, and its gradient. Implementations: ComputeObjective
// (DeepSets), CommObjective (plain MLP).
class Objective {
 public:
  virtual ~Objective() = default;

  virtual int64_t num_params() const = 0;
  // Labels per sample; the reported MSE averages over samples and outputs (torch's MSELoss).
  virtual int num_outputs() const = 0;
  virtual void InitParams(std::mt19937_64& rng, std::span<float> params) const = 0;
  virtual std::unique_ptr<Workspace> NewWorkspace() const = 0;

  // Called on one thread after the parameters change, before the parallel calls below (which
  // must only read what it prepares).
  virtual void Prepare(std::span<const float> params) = 0;

  // Adds scale * d(sum of squared errors over `samples`)/d params to `grad` and returns that
  // sum (unscaled). Called concurrently with distinct workspaces and gradients.
  virtual double AddGradient(std::span<const float> params, std::span<const int64_t> samples,
                             float scale, std::span<float> grad, Workspace& workspace) const = 0;

  // Writes the predictions for `samples` (samples x num_outputs) to `out` and returns their
  // sum of squared errors. Called concurrently with distinct workspaces.
  virtual double Predict(std::span<const float> params, std::span<const int64_t> samples,
                         float* out, Workspace& workspace) const = 0;

  // The labels of `sample` (num_outputs floats).
  virtual std::span<const float> Labels(int64_t sample) const = 0;
};

}  // namespace shardplan::training

#endif  // SHARDPLAN_LAB_TRAINING_OBJECTIVE_H_
