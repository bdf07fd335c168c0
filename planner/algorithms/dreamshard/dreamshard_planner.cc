#include "planner/algorithms/dreamshard/dreamshard_planner.h"

#include <cstddef>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "planner/algorithms/dreamshard/dreamshard_episode.h"
#include "planner/algorithms/dreamshard/dreamshard_features.h"
#include "planner/algorithms/dreamshard/dreamshard_network.h"

namespace shardplan {
namespace {

constexpr size_t kDreamShardStopPollInterval = 64;

}  // namespace

DreamShardPlanner::DreamShardPlanner() {
  info_.name = kDreamShardAlgorithm;
  info_.description =
      "DreamShard (NeurIPS'22): tables by predicted cost, largest first, each to the legal "
      "device a trained policy scores highest (a learned cost model inside the policy).";
  info_.params = {PolicyParamSpec()};
  info_.sharding_types = {ShardingType::kTableWise};
  info_.uses_cost_model = false;
  info_.uses_policy = true;
}

absl::Status DreamShardPlanner::CheckPolicy(const Policy& policy) const {
  return CheckDreamShardPolicy(policy);
}

absl::StatusOr<Plan> DreamShardPlanner::Run(const Task& task,
                                            const PlanningContext& context) const {
  SHARDPLAN_RETURN_IF_ERROR(context.stop->Check());
  if (context.policy == nullptr) {
    return absl::FailedPreconditionError("dreamshard needs a policy and was given none");
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const DreamShardNet net, DreamShardNet::FromPolicy(*context.policy));
  const std::vector<float> features = DreamShardFeatures(task, net.missing_bins_double());
  SHARDPLAN_ASSIGN_OR_RETURN(DreamShardEpisode episode,
                             DreamShardEpisode::Start(task, features, net, info_.name));
  while (!episode.done()) {
    if (episode.step() % kDreamShardStopPollInterval == 0)
      SHARDPLAN_RETURN_IF_ERROR(context.stop->Check());
    if (episode.legal().empty()) return episode.NoLegalDevice();
    // argmax over the legal devices' logits, the first on ties (torch.argmax).
    const std::vector<float>& logits = episode.legal_logits();
    size_t best = 0;
    for (size_t k = 1; k < logits.size(); ++k) {
      if (logits[k] > logits[best]) best = k;
    }
    if (context.on_progress && episode.step() % kDreamShardStopPollInterval == 0) {
      context.on_progress(PlanningProgress{
          absl::StrCat("placing table ", episode.step() + 1, "/", episode.num_steps()),
          static_cast<double>(episode.step()) / static_cast<double>(episode.num_steps())});
    }
    episode.Place(best);
  }
  return episode.ToPlan();
}

}  // namespace shardplan
