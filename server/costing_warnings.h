#ifndef SHARDPLAN_SERVER_COSTING_WARNINGS_H_
#define SHARDPLAN_SERVER_COSTING_WARNINGS_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/domain/cost_model.h"
#include "planner/domain/task.h"
#include "planner/framework/stop_signal.h"
#include "server/planning_result.h"

namespace shardplan {

// How a task's tables are costed, and what the caller is told about it: the typical histogram
// of tables sent without one (TypicalAccessBins), and warnings for imputed histograms and for
// tables or topologies outside a cost model's training data. Every function is linear in the
// task's tables (a 100,000-table task is checked in milliseconds).

// A name from a request as an error or warning quotes it: a hostile megabyte-long name is cut.
std::string QuotedName(const std::string& name);

// The request-order index and name of every table of `task` sent without an access histogram
// or an access profile (a profiled table's histogram is its curve's: ImputeHistograms).
std::vector<std::pair<size_t, std::string>> TablesWithoutHistogram(const Task& task);

// One IMPUTED_ACCESS_HISTOGRAM warning per table of `without_bins`, in its order, for a task
// costed under `model_id` (a cost model or a ground-truth hardware profile).
std::vector<PlanWarning> ImputedHistogramWarnings(
    const std::vector<std::pair<size_t, std::string>>& without_bins, const std::string& model_id);

// OUTSIDE_TRAINING_RANGE warnings, in `task`'s order: one per table that lies outside the data
// `model` was trained on (CostModel::OutsideTrainingRange) and one for its topology when the
// comm models never saw such a layout. With `skip_tables_without_histogram`, tables sent
// without a histogram are left to ImputeHistograms, which checks them once imputed.
std::vector<PlanWarning> OutsideTrainingWarnings(const Task& task, const CostModel& model,
                                                 const std::string& model_id,
                                                 bool skip_tables_without_histogram);

// Gives every table of `task` without a histogram its profile curve's (AccessBinsOfRanks), or,
// without a profile, the typical one of its rows and pooling factor (counted in `imputed`),
// and returns, by table name in `task`'s order, the OUTSIDE_TRAINING_RANGE warnings of
// those tables under `model` (none when `model` is null). `imputed` gets the count. About a
// quarter of a millisecond a table (half a minute for 100,000), so it stops with `stop`'s
// CANCELLED or DEADLINE_EXCEEDED (checked every 256 tables) once `stop` (may be null) fires.
absl::StatusOr<std::vector<TableWarning>> ImputeHistograms(Task& task, const CostModel* model,
                                                           const std::string& model_id,
                                                           int64_t* imputed,
                                                           const StopSignal* stop = nullptr);

// `warnings` as plan warnings whose fields name each table by its position in `task` (the
// request's order); a warning about a table `task` lacks is dropped.
std::vector<PlanWarning> AtRequestPositions(const Task& task,
                                            const std::vector<TableWarning>& warnings);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_COSTING_WARNINGS_H_
