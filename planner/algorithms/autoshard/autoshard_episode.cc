#include "planner/algorithms/autoshard/autoshard_episode.h"

#include <algorithm>
#include <numeric>

#include "planner/domain/memory.h"

namespace shardplan {
namespace {

constexpr int kStopPollInterval = 16;
constexpr double kBytesPerGb = 1024.0 * 1024.0 * 1024.0;
constexpr int kT = kAutoShardTableLatent;
constexpr int kOther = kAutoShardActionSize - kAutoShardTableLatent;

void AddLatent(const float* latent, float* sum) {
  for (int i = 0; i < kT; ++i) sum[i] += latent[i];
}

}  // namespace

absl::StatusOr<AutoShardEpisode> RunAutoShardEpisode(
    const AutoShardNetwork& network, const Task& task, std::span<const PlacementUnit> units,
    std::span<const size_t> free_units, const AutoShardChooser& choose, const StopSignal* stop,
    std::vector<int32_t>& device_of_unit, bool record) {
  const int num_devices = task.topology.num_devices();
  const size_t num_tables = task.tables.size();
  // Table latents, then the dummy's (the zero row) last.
  std::vector<float> features = AutoShardTableFeatures(task, network.config());
  features.resize(features.size() + kAutoShardFeatures, 0.0f);
  std::vector<float> latents((num_tables + 1) * kT);
  network.TableLatents(features.data(), static_cast<int>(num_tables + 1), latents.data());
  const float* dummy = latents.data() + num_tables * kT;

  std::vector<float> unit_latents(units.size() * kT, 0.0f);
  std::vector<float> unit_costs(units.size(), 0.0f);
  for (size_t u = 0; u < units.size(); ++u) {
    for (int t : units[u].tables) {
      AddLatent(latents.data() + static_cast<size_t>(t) * kT, unit_latents.data() + u * kT);
    }
    unit_costs[u] = network.PredictCost(unit_latents.data() + u * kT);
  }

  // Shards: latent sums, bytes and predicted costs, the pinned units in from the start.
  std::vector<bool> is_free(units.size(), false);
  for (size_t u : free_units) is_free[u] = true;
  std::vector<float> shard_sums(static_cast<size_t>(num_devices) * kT, 0.0f);
  std::vector<int64_t> shard_bytes(num_devices, 0);
  std::vector<bool> shard_used(num_devices, false);
  for (size_t u = 0; u < units.size(); ++u) {
    if (is_free[u]) continue;
    const int32_t d = device_of_unit[u];
    AddLatent(unit_latents.data() + u * kT, shard_sums.data() + static_cast<size_t>(d) * kT);
    shard_bytes[d] = AddBytes(shard_bytes[d], units[u].bytes);
    shard_used[d] = true;
  }
  std::vector<float> shard_costs(num_devices, 0.0f);  // an empty shard's cost is 0
  for (int d = 0; d < num_devices; ++d) {
    if (shard_used[d]) shard_costs[d] = network.PredictCost(shard_sums.data() + d * kT);
  }

  AutoShardEpisode episode;
  episode.order.assign(free_units.begin(), free_units.end());
  std::stable_sort(episode.order.begin(), episode.order.end(),
                   [&](size_t a, size_t b) { return unit_costs[a] > unit_costs[b]; });
  const size_t steps = episode.order.size();
  episode.devices.reserve(steps);
  if (record) {
    episode.action_other.reserve(steps * num_devices * kAutoShardActionOther);
    episode.logits.reserve(steps * num_devices);
  }
  std::vector<float> step_other(static_cast<size_t>(num_devices) * kAutoShardActionOther);
  std::vector<float> step_logits(num_devices);

  Lstm::State core_state = network.core().ZeroState();
  std::vector<float> core_input(kAutoShardCoreSize), state(kAutoShardCoreSize);
  std::vector<float> action_out(static_cast<size_t>(num_devices) * kOther);
  std::vector<float> rows(static_cast<size_t>(num_devices) * kAutoShardPolicyInput);
  for (size_t step = 0; step < steps; ++step) {
    if (stop != nullptr && step % kStopPollInterval == 0) {
      if (absl::Status stopped = stop->Check(); !stopped.ok()) return stopped;
    }
    const size_t u = episode.order[step];
    std::copy_n(unit_latents.data() + u * kT, kT, core_input.data());
    const auto fraction =
        static_cast<float>(static_cast<double>(step) / static_cast<double>(steps));
    network.StepLatent(fraction, core_input.data() + kT);
    network.core().Step(core_input.data(), core_state, state.data());

    float* other = step_other.data();
    for (int d = 0; d < num_devices; ++d) {
      other[2 * d] = shard_costs[d];
      other[2 * d + 1] = static_cast<float>(static_cast<double>(shard_bytes[d]) / kBytesPerGb);
    }
    network.ActionOther(other, num_devices, action_out.data());
    for (int d = 0; d < num_devices; ++d) {
      AutoShardPolicyRow(state.data(), shard_sums.data() + d * kT, dummy,
                         action_out.data() + d * kOther, rows.data() + d * kAutoShardPolicyInput);
    }
    float* logits = step_logits.data();
    network.PolicyLogits(rows.data(), num_devices, logits);
    if (record) {
      episode.action_other.insert(episode.action_other.end(), step_other.begin(), step_other.end());
      episode.logits.insert(episode.logits.end(), step_logits.begin(), step_logits.end());
    }

    absl::StatusOr<int32_t> device =
        choose(step, units[u], std::span<const float>(logits, num_devices));
    if (!device.ok()) return device.status();
    const int32_t d = *device;
    episode.devices.push_back(d);
    device_of_unit[u] = d;
    AddLatent(unit_latents.data() + u * kT, shard_sums.data() + static_cast<size_t>(d) * kT);
    shard_bytes[d] = AddBytes(shard_bytes[d], units[u].bytes);
    shard_costs[d] = network.PredictCost(shard_sums.data() + static_cast<size_t>(d) * kT);
  }
  return episode;
}

int32_t FirstArgmax(std::span<const float> logits, const std::vector<bool>& allowed) {
  int32_t best = -1;
  for (size_t d = 0; d < logits.size(); ++d) {
    if (!allowed[d]) continue;
    if (best < 0 || logits[d] > logits[best]) best = static_cast<int32_t>(d);
  }
  return best;
}

}  // namespace shardplan
