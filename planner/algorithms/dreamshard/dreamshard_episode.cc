#include "planner/algorithms/dreamshard/dreamshard_episode.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "planner/algorithms/dreamshard/dreamshard_features.h"
#include "planner/search/pinned_placement.h"

namespace shardplan {

DreamShardEpisode::DreamShardEpisode(const Task& task, std::span<const float> features,
                                     const DreamShardNet& net, std::string algorithm)
    : task_(&task),
      features_(features),
      net_(&net),
      algorithm_(std::move(algorithm)),
      ledger_(task.topology) {}

absl::StatusOr<DreamShardEpisode> DreamShardEpisode::Start(const Task& task,
                                                           std::span<const float> features,
                                                           const DreamShardNet& net,
                                                           absl::string_view algorithm) {
  DreamShardEpisode episode(task, features, net, std::string(algorithm));
  SHARDPLAN_ASSIGN_OR_RETURN(episode.units_, TableWiseUnits(task, algorithm));
  const int num_devices = task.topology.num_devices();
  const int num_tables = static_cast<int>(task.tables.size());
  episode.cost_latents_.resize(static_cast<size_t>(num_tables) * kDreamShardLatent);
  episode.rl_latents_.resize(episode.cost_latents_.size());
  if (num_tables > 0) {
    net.TableLatents(features.data(), num_tables, episode.cost_latents_.data(),
                     episode.rl_latents_.data());
  }
  episode.shards_.assign(static_cast<size_t>(num_devices), {});
  episode.cost_sums_.assign(static_cast<size_t>(num_devices) * kDreamShardLatent, 0.0f);
  episode.rl_sums_.assign(episode.cost_sums_.size(), 0.0f);
  episode.logits_.assign(static_cast<size_t>(num_devices), 0.0f);
  episode.device_of_unit_.assign(episode.units_.size(), -1);

  std::vector<int32_t> pinned_devices(episode.units_.size(), 0);
  SHARDPLAN_ASSIGN_OR_RETURN(
      std::vector<size_t> free_units,
      PlacePinnedUnits(algorithm, task, episode.units_, /*check_memory=*/true, episode.ledger_,
                       pinned_devices));
  // The ledger holds the pins already: record them without adding their bytes again.
  for (size_t u = 0; u < episode.units_.size(); ++u) {
    if (!episode.units_[u].pinned_device.has_value()) continue;
    const int32_t device = pinned_devices[u];
    episode.device_of_unit_[u] = device;
    for (int t : episode.units_[u].tables) episode.shards_[device].push_back(t);
  }
  for (int32_t d = 0; d < num_devices; ++d) episode.RefreshDevice(d);
  episode.pinned_counts_.clear();
  for (const std::vector<int>& shard : episode.shards_) {
    episode.pinned_counts_.push_back(shard.size());
  }

  // reset(): sort by the predicted cost of each unit alone, descending, stable.
  std::vector<double> predicted(episode.units_.size(), 0.0);
  for (size_t u : free_units) {
    float sum[kDreamShardLatent] = {};
    for (int t : episode.units_[u].tables) {
      const float* latent = &episode.cost_latents_[static_cast<size_t>(t) * kDreamShardLatent];
      for (int k = 0; k < kDreamShardLatent; ++k) sum[k] += latent[k];
    }
    float costs[kDreamShardCosts];
    net.KernelCosts(sum, costs);
    // As the reference adds the three .item() values: in double.
    predicted[u] = static_cast<double>(costs[0]) + static_cast<double>(costs[1]) +
                   static_cast<double>(costs[2]);
  }
  std::stable_sort(free_units.begin(), free_units.end(),
                   [&](size_t a, size_t b) { return predicted[a] > predicted[b]; });
  episode.order_ = std::move(free_units);
  episode.RefreshLegal();
  return episode;
}

void DreamShardEpisode::RefreshDevice(int32_t device) {
  const std::vector<int>& shard = shards_[device];
  float* cost_sum = &cost_sums_[static_cast<size_t>(device) * kDreamShardLatent];
  float* rl_sum = &rl_sums_[static_cast<size_t>(device) * kDreamShardLatent];
  if (shard.empty()) {
    std::copy_n(net_->empty_cost_latent(), kDreamShardLatent, cost_sum);
    std::copy_n(net_->empty_rl_latent(), kDreamShardLatent, rl_sum);
  } else {
    // index_add_ into zeros, rows in shard order.
    std::fill_n(cost_sum, kDreamShardLatent, 0.0f);
    std::fill_n(rl_sum, kDreamShardLatent, 0.0f);
    AddToSums(device, shard);
  }
  RefreshLogit(device);
}

void DreamShardEpisode::AddToSums(int32_t device, std::span<const int> tables) {
  float* cost_sum = &cost_sums_[static_cast<size_t>(device) * kDreamShardLatent];
  float* rl_sum = &rl_sums_[static_cast<size_t>(device) * kDreamShardLatent];
  for (int t : tables) {
    const size_t at = static_cast<size_t>(t) * kDreamShardLatent;
    for (int k = 0; k < kDreamShardLatent; ++k) {
      cost_sum[k] += cost_latents_[at + k];
      rl_sum[k] += rl_latents_[at + k];
    }
  }
}

void DreamShardEpisode::RefreshLogit(int32_t device) {
  float costs[kDreamShardCosts];
  net_->KernelCosts(&cost_sums_[static_cast<size_t>(device) * kDreamShardLatent], costs);
  logits_[device] = net_->Logit(&rl_sums_[static_cast<size_t>(device) * kDreamShardLatent], costs);
}

void DreamShardEpisode::RefreshLegal() {
  legal_.clear();
  legal_logits_.clear();
  if (done()) return;
  const PlacementUnit& unit = current_unit();
  for (int32_t d = 0; d < ledger_.num_devices(); ++d) {
    if (ledger_.Fits(d, unit.bytes)) {
      legal_.push_back(d);
      legal_logits_.push_back(logits_[d]);
    }
  }
}

absl::Status DreamShardEpisode::NoLegalDevice() const {
  return ledger_.NoDeviceFits(algorithm_, *task_, current_unit());
}

void DreamShardEpisode::Place(size_t legal_index) {
  const int32_t device = legal_[legal_index];
  const size_t u = order_[step_];
  device_of_unit_[u] = device;
  ledger_.Add(device, units_[u].bytes);
  // The running sums take the new tables in shard order: the same float additions as summing
  // the whole shard again (index_add_ into zeros), without its quadratic cost.
  if (shards_[device].empty()) {
    std::fill_n(&cost_sums_[static_cast<size_t>(device) * kDreamShardLatent], kDreamShardLatent,
                0.0f);
    std::fill_n(&rl_sums_[static_cast<size_t>(device) * kDreamShardLatent], kDreamShardLatent,
                0.0f);
  }
  for (int t : units_[u].tables) shards_[device].push_back(t);
  AddToSums(device, units_[u].tables);
  RefreshLogit(device);
  ++step_;
  RefreshLegal();
}

float DreamShardEpisode::PredictedOverall() const {
  float max_latent[kDreamShardLatent];
  std::copy_n(cost_sums_.data(), kDreamShardLatent, max_latent);
  for (size_t d = 1; d < shards_.size(); ++d) {
    const float* sum = &cost_sums_[d * kDreamShardLatent];
    for (int k = 0; k < kDreamShardLatent; ++k) max_latent[k] = std::max(max_latent[k], sum[k]);
  }
  return net_->Overall(max_latent);
}

Plan DreamShardEpisode::ToPlan() const { return UnitPlan(*task_, units_, device_of_unit_); }

}  // namespace shardplan
