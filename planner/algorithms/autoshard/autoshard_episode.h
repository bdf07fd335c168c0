#ifndef SHARDPLAN_PLANNER_ALGORITHMS_AUTOSHARD_AUTOSHARD_EPISODE_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_AUTOSHARD_AUTOSHARD_EPISODE_H_

// One AutoShard episode (the reference's GymWrapper reset/step loop with Net.forward): the free
// units sorted by predicted single-unit cost, descending, then one unit per step, each to the
// device a chooser picks from the policy's logits. The inference algorithm chooses by argmax,
// the trainer (lab/rl/autoshard/) samples, from the same code.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/algorithms/autoshard/autoshard_network.h"
#include "planner/domain/task.h"
#include "planner/framework/stop_signal.h"
#include "planner/search/placement_units.h"

namespace shardplan {

// What an episode did, and what its learner needs to replay it.
struct AutoShardEpisode {
  std::vector<size_t> order;        // the free units (indices into units) in placement order
  std::vector<int32_t> devices;     // per step, the chosen device
  // Recorded only when asked (the learner replays them; serving does not need them, and they
  // grow with steps x devices): steps x devices x 2 [predicted shard cost, shard GB], and
  // steps x devices logits.
  std::vector<float> action_other;
  std::vector<float> logits;
};

// Picks the device of step `step`, which places `unit`, from its logits (one per device).
using AutoShardChooser = std::function<absl::StatusOr<int32_t>(
    size_t step, const PlacementUnit& unit, std::span<const float> logits)>;

// Places the units `free_units` of `units` (TableWiseUnits of `task`); the others are pinned
// and already on device_of_unit[u], where they count for their devices' shards from the start.
// A unit's latent is the sum of its tables' latents (a table: its own), and so is a shard's;
// every action also adds the latent of the all-zero dummy table the reference appends to every
// shard. The step feature is step / free units. The order sorts by the cost head's prediction
// for each unit, descending; ties keep unit order (Python's stable sort). Fills
// device_of_unit for the free units. Polls `stop` (may be null) every few steps. Records
// action_other and logits only when `record` (the trainer).
absl::StatusOr<AutoShardEpisode> RunAutoShardEpisode(
    const AutoShardNetwork& network, const Task& task, std::span<const PlacementUnit> units,
    std::span<const size_t> free_units, const AutoShardChooser& choose, const StopSignal* stop,
    std::vector<int32_t>& device_of_unit, bool record = true);

// The first index of the largest logit among those `allowed` (torch.argmax's tie rule); -1 when
// none is allowed.
int32_t FirstArgmax(std::span<const float> logits, const std::vector<bool>& allowed);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_AUTOSHARD_AUTOSHARD_EPISODE_H_
