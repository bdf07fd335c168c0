#include "server/oversized_alternatives.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "planner/framework/oversized_tables.h"

namespace shardplan {

std::string OversizedAlternatives(const Task& task, const AlgorithmRegistry& algorithms,
                                  const ModelRegistry& models) {
  const std::vector<OversizedTable> oversized = OversizedTables(task);
  if (oversized.empty()) return "";
  // The latest version of every model that can cost this task at all.
  std::vector<ResolvedModel> candidates;
  for (const ModelRegistry::Entry& entry : models.List()) {
    if (!entry.is_latest) continue;
    absl::StatusOr<ResolvedModel> model = models.Resolve(entry.manifest.id());
    if (!model.ok() || !model->model->CheckSupports(task).ok() ||
        !CheckCostsAllowedTypes(*model->model, task).ok()) {
      continue;
    }
    candidates.push_back(*std::move(model));
  }
  std::vector<std::string> ways;
  for (const Algorithm* algorithm : algorithms.List()) {
    const AlgorithmInfo& info = algorithm->info();
    if (info.uses_policy || !CheckOversizedTables(info, nullptr, task).ok()) continue;
    std::vector<std::string> model_ids;
    for (const ResolvedModel& model : candidates) {
      if (CheckOversizedTables(info, model.model.get(), task).ok()) {
        model_ids.push_back(model.manifest.id());
      }
    }
    if (model_ids.empty()) continue;
    std::vector<ShardingType> types;
    for (const OversizedTable& table : oversized) {
      for (ShardingType type : UsableHolders(table, task, info, nullptr)) {
        if (std::find(types.begin(), types.end(), type) == types.end()) types.push_back(type);
      }
    }
    std::sort(types.begin(), types.end());
    std::vector<std::string> type_names;
    for (ShardingType type : types) type_names.push_back(ShardingTypeName(type));
    ways.push_back(absl::StrCat("--algorithm ", info.name, " (", absl::StrJoin(type_names, ", "),
                                ") under --model ", absl::StrJoin(model_ids, " or ")));
  }
  if (ways.empty()) return "no loaded algorithm and model would plan it";
  return absl::StrCat("these would plan it: ", absl::StrJoin(ways, "; "));
}

}  // namespace shardplan
