#ifndef SHARDPLAN_CLIENT_CLI_CATALOG_FORMAT_H_
#define SHARDPLAN_CLIENT_CLI_CATALOG_FORMAT_H_

#include <string>

#include "shardplan/v1/admin.pb.h"
#include "shardplan/v1/planner.pb.h"

namespace shardplan::cli {

// The algorithms table (name, default, cost model use, sharding types, description), then each
// algorithm's parameters with type, default, range and description; long cells wrap so that
// lines keep within 100 columns.
std::string FormatAlgorithmsText(const shardplan::v1::ListAlgorithmsResponse& response);

// The models table, one line per version within 100 columns: name, version, kind, default,
// latest, hardware profile (backend), device counts, training data size. `long_view`
// (`models --long`): a block per version with every field, the test MSE per sub-model, the
// creation time and the description too.
std::string FormatModelsText(const shardplan::v1::ListModelsResponse& response,
                             bool long_view = false);
// `models reload`: one line per loaded/removed/refused version and a summary line.
std::string FormatReloadText(const shardplan::v1::ReloadModelsResponse& response);

}  // namespace shardplan::cli

#endif  // SHARDPLAN_CLIENT_CLI_CATALOG_FORMAT_H_
