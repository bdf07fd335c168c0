#ifndef SHARDPLAN_NN_ADAM_H_
#define SHARDPLAN_NN_ADAM_H_

#include <cstdint>
#include <span>
#include <vector>

namespace shardplan {

// torch.optim.Adam's defaults, which the reference uses (lr 1e-3).
struct AdamOptions {
  float lr = 1e-3f;
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float eps = 1e-8f;
};

// Adam in torch's single-tensor form (no weight decay, no amsgrad):
//   m = m + (1 - b1) (g - m);  v = b2 v + (1 - b2) g^2
//   p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
class Adam {
 public:
  Adam(int64_t num_params, AdamOptions options);

  void Step(std::span<float> params, std::span<const float> grad);
  int64_t steps() const { return steps_; }

  // Learning-rate schedules (the RL trainers' linear decay) set it before a step.
  void set_lr(float lr) { options_.lr = lr; }
  float lr() const { return options_.lr; }

  // The moments and step count, for a trainer's checkpoint: a run resumed from Restore steps
  // exactly as the uninterrupted one. Restore refuses (false) moments of another size.
  const std::vector<float>& first_moment() const { return m_; }
  const std::vector<float>& second_moment() const { return v_; }
  bool Restore(std::vector<float> m, std::vector<float> v, int64_t steps);

 private:
  AdamOptions options_;
  std::vector<float> m_;
  std::vector<float> v_;
  int64_t steps_ = 0;
};

}  // namespace shardplan

#endif  // SHARDPLAN_NN_ADAM_H_
