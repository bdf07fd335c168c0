#ifndef SHARDPLAN_PLANNER_ALGORITHMS_DREAMSHARD_DREAMSHARD_EPISODE_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_DREAMSHARD_DREAMSHARD_EPISODE_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "planner/algorithms/dreamshard/dreamshard_network.h"
#include "planner/domain/plan.h"
#include "planner/domain/task.h"
#include "planner/search/memory_ledger.h"
#include "planner/search/placement_units.h"

namespace shardplan {

// One placement episode of DreamShard's environment (the reference's env.py Env), shared by
// the planner (argmax) and the trainer (sampling):
// - units (a table, or a colocation group placed whole) are ordered by the predicted cost of
//   the unit alone, forward + communication + backward, descending; ties keep table order
//   (Python's stable sort); pinned units are on their devices before the first step;
// - the observation is every device's shard; a device's logit depends on its shard only
//   (policy_net on [rl_table_fc latent sum || cost_fc(kernel_forward(table_fc latent sum))]),
//   an empty shard being one zero feature row;
// - the legal devices are those where the unit still fits the task's memory (the memory
//   model's bytes, as every planner here counts them; the reference: fp16 GB against 5 GB);
// - the episode's predicted cost is overall_fc on the max over devices of the shard latents.
class DreamShardEpisode {
 public:
  // FAILED_PRECONDITION for a table that does not allow TABLE_WISE or a pinned unit that does
  // not fit its device (naming it and `algorithm`); INVALID_ARGUMENT for bad colocation groups.
  // `features`: DreamShardFeatures of `task`. `net`, `task` and `features` must outlive it.
  static absl::StatusOr<DreamShardEpisode> Start(const Task& task, std::span<const float> features,
                                                 const DreamShardNet& net,
                                                 absl::string_view algorithm);

  bool done() const { return step_ >= order_.size(); }
  size_t step() const { return step_; }
  size_t num_steps() const { return order_.size(); }
  const PlacementUnit& current_unit() const { return units_[order_[step_]]; }
  // The devices the current unit fits on, ascending, and their logits.
  const std::vector<int32_t>& legal() const { return legal_; }
  const std::vector<float>& legal_logits() const { return legal_logits_; }
  // FAILED_PRECONDITION naming the current unit and its size when legal() is empty.
  absl::Status NoLegalDevice() const;
  // Puts the current unit on legal()[legal_index] and advances.
  void Place(size_t legal_index);

  // The predicted overall cost of the shards as they are (the reward is its negation).
  float PredictedOverall() const;
  // The table-wise plan of the finished episode.
  Plan ToPlan() const;

  const std::vector<PlacementUnit>& units() const { return units_; }
  // Units in placement order (pinned ones excluded).
  const std::vector<size_t>& order() const { return order_; }
  // Per device, task table indices in the order they joined the shard (pins first).
  const std::vector<std::vector<int>>& shards() const { return shards_; }
  // What the pins put on each device before the first step (a prefix of shards()).
  const std::vector<size_t>& pinned_counts() const { return pinned_counts_; }
  // The device of every unit placed so far (pinned ones included).
  const std::vector<int32_t>& device_of_unit() const { return device_of_unit_; }

 private:
  DreamShardEpisode(const Task& task, std::span<const float> features, const DreamShardNet& net,
                    std::string algorithm);
  // Sums every table of the device's shard again (the empty shard: the zero row's latents).
  void RefreshDevice(int32_t device);
  // Adds `tables`' latents to the device's running sums.
  void AddToSums(int32_t device, std::span<const int> tables);
  // The device's predicted costs and logit from its sums.
  void RefreshLogit(int32_t device);
  void RefreshLegal();

  const Task* task_;
  std::span<const float> features_;
  const DreamShardNet* net_;
  std::string algorithm_;
  std::vector<PlacementUnit> units_;
  std::vector<size_t> order_;
  size_t step_ = 0;
  MemoryLedger ledger_;
  std::vector<int32_t> device_of_unit_;
  std::vector<std::vector<int>> shards_;
  std::vector<size_t> pinned_counts_;
  std::vector<float> cost_latents_;  // per task table, table_fc
  std::vector<float> rl_latents_;    // per task table, rl_table_fc
  std::vector<float> cost_sums_;     // per device
  std::vector<float> rl_sums_;       // per device
  std::vector<float> logits_;        // per device
  std::vector<int32_t> legal_;
  std::vector<float> legal_logits_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_DREAMSHARD_DREAMSHARD_EPISODE_H_
