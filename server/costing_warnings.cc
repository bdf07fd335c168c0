#include "server/costing_warnings.h"


#include <string_view>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "planner/domain/table_access.h"
#include "planner/estimators/typical_access.h"

namespace shardplan {
namespace {

std::string OutsideTableMessage(const std::string& name, const std::vector<std::string>& outside,
                                const std::string& model_id) {
  return absl::StrCat("table ", QuotedName(name), " lies outside the data cost model ", model_id,
                      " was trained on (", absl::StrJoin(outside, ", "),
                      "): its cost is an extrapolation and may be far off (docs/cost-models.md, "
                      "\"Outside the training data\")");
}

}  // namespace

std::string QuotedName(const std::string& name) {
  constexpr size_t kMaxShown = 128;
  return absl::StrCat("\"", name.size() > kMaxShown ? name.substr(0, kMaxShown) + "..." : name,
                      "\"");
}

std::vector<std::pair<size_t, std::string>> TablesWithoutHistogram(const Task& task) {
  std::vector<std::pair<size_t, std::string>> out;
  for (size_t i = 0; i < task.tables.size(); ++i) {
    // A table with an access profile has its histogram in its curve (ImputeHistograms).
    const Table& table = task.tables[i];
    if (table.access_bins.empty() && !table.access_profile.has_curve()) {
      out.emplace_back(i, table.name);
    }
  }
  return out;
}

std::vector<PlanWarning> ImputedHistogramWarnings(
    const std::vector<std::pair<size_t, std::string>>& without_bins, const std::string& model_id) {
  std::vector<PlanWarning> warnings;
  warnings.reserve(without_bins.size());
  for (const auto& [index, name] : without_bins) {
    warnings.push_back(PlanWarning{
        .code = std::string(kImputedAccessHistogram),
        .field = absl::StrCat("task.tables[", index, "].access_bins"),
        .message = absl::StrCat(
            "table ", QuotedName(name), " has no access histogram, which cost model ", model_id,
            " reads: it was costed with the typical histogram of a table of its rows and pooling "
            "factor (docs/cost-models.md, \"Tables without a histogram\"); send the table's own "
            "histogram for a plan that fits its access pattern")});
  }
  return warnings;
}

std::vector<PlanWarning> OutsideTrainingWarnings(const Task& task, const CostModel& model,
                                                 const std::string& model_id,
                                                 bool skip_tables_without_histogram) {
  std::vector<PlanWarning> warnings;
  for (size_t k = 0; k < task.tables.size(); ++k) {
    const Table& table = task.tables[k];
    if (skip_tables_without_histogram && table.access_bins.empty()) continue;
    const std::vector<std::string> outside = model.OutsideTrainingRange(table);
    if (outside.empty()) continue;
    warnings.push_back(PlanWarning{.code = std::string(kOutsideTrainingRange),
                                   .field = absl::StrCat("task.tables[", k, "]"),
                                   .message = OutsideTableMessage(table.name, outside, model_id)});
  }
  if (const std::string outside = model.OutsideTrainedTopology(task.topology); !outside.empty()) {
    warnings.push_back(PlanWarning{
        .code = std::string(kOutsideTrainingRange),
        .field = "task.topology",
        .message = absl::StrCat(
            "the task's devices lie outside the layouts cost model ", model_id,
            "'s comm models were trained on (", outside,
            "): its comm costs are extrapolations and may be far off (docs/cost-models.md, "
            "\"Comm models for any device count\")")});
  }
  return warnings;
}

absl::StatusOr<std::vector<TableWarning>> ImputeHistograms(Task& task, const CostModel* model,
                                                           const std::string& model_id,
                                                           int64_t* imputed,
                                                           const StopSignal* stop) {
  constexpr int64_t kTablesBetweenChecks = 256;
  std::vector<TableWarning> warnings;
  int64_t count = 0, visited = 0;
  for (Table& table : task.tables) {
    if (!table.access_bins.empty()) continue;
    if (stop != nullptr && visited++ % kTablesBetweenChecks == 0) {
      if (absl::Status go_on = stop->Check(); !go_on.ok()) return go_on;
    }
    if (table.access_profile.has_curve()) {
      // Not imputed: the client sent how its rows are read; the histogram is its curve's.
      table.access_bins = AccessBinsOfRanks(table, 0, table.rows, task.batch_size);
    } else {
      table.access_bins = TypicalAccessBins(table.rows, table.pooling_factor);
      ++count;
    }
    if (model == nullptr) continue;
    const std::vector<std::string> outside = model->OutsideTrainingRange(table);
    if (outside.empty()) continue;
    warnings.push_back(TableWarning{.table = table.name,
                                    .code = std::string(kOutsideTrainingRange),
                                    .message = OutsideTableMessage(table.name, outside, model_id)});
  }
  if (imputed != nullptr) *imputed = count;
  return warnings;
}

std::vector<PlanWarning> AtRequestPositions(const Task& task,
                                            const std::vector<TableWarning>& warnings) {
  std::vector<PlanWarning> out;
  if (warnings.empty()) return out;
  std::unordered_map<std::string_view, size_t> position;
  position.reserve(task.tables.size());
  for (size_t k = 0; k < task.tables.size(); ++k) position.emplace(task.tables[k].name, k);
  for (const TableWarning& warning : warnings) {
    const auto found = position.find(warning.table);
    if (found == position.end()) continue;
    out.push_back(PlanWarning{.code = warning.code,
                              .field = absl::StrCat("task.tables[", found->second, "]"),
                              .message = warning.message});
  }
  return out;
}

}  // namespace shardplan
