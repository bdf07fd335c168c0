#ifndef SHARDPLAN_CLIENT_CLI_INPUT_FILES_H_
#define SHARDPLAN_CLIENT_CLI_INPUT_FILES_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "client/cli/torchrec_format.h"
#include "shardplan/v1/planner.pb.h"

namespace shardplan::cli {

// The whole file, or standard input for "-". INVALID_ARGUMENT naming the file when it cannot be
// read (a missing input is a bad argument, exit 3).
absl::StatusOr<std::string> ReadInput(absl::string_view path);

// A shardplan.v1.Task from its proto JSON (snake_case or lowerCamel field names). Unknown fields
// are errors, so that a misspelt field does not silently fall back to a default. Errors are
// INVALID_ARGUMENT prefixed with the file name ("<stdin>" for "-").
absl::StatusOr<shardplan::v1::Task> ReadTask(absl::string_view path);

// A plan from any JSON the tool prints: a Plan, a PlanResponse (`plan --json`), an
// EvaluatePlanResponse (`evaluate --json`), a JobStatus with a result (`get --json`), or a
// TorchRec ShardingPlan (`--format torchrec`, or TorchRec's own planner; ParseTorchRecPlan, whose
// data_parallel tables take their shape from `shapes`).
absl::StatusOr<shardplan::v1::Plan> ReadPlan(absl::string_view path,
                                             const TableShapes& shapes = {});

// Parsers behind the two readers, for text already in memory; `source` names it in errors.
absl::StatusOr<shardplan::v1::Task> ParseTask(absl::string_view json, absl::string_view source);
absl::StatusOr<shardplan::v1::Plan> ParsePlan(absl::string_view json, absl::string_view source,
                                              const TableShapes& shapes = {});

}  // namespace shardplan::cli

#endif  // SHARDPLAN_CLIENT_CLI_INPUT_FILES_H_
