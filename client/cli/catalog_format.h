#ifndef SHARDPLAN_CLIENT_CLI_CATALOG_FORMAT_H_
#define SHARDPLAN_CLIENT_CLI_CATALOG_FORMAT_H_

#include <string>

#include "shardplan/v1/admin.pb.h"
#include "shardplan/v1/planner.pb.h"

namespace shardplan::cli {

// The algorithms table (name, default, cost model use, sharding types, description), then each
// algorithm's parameters with type, default, range and description.
std::string FormatAlgorithmsText(const shardplan::v1::ListAlgorithmsResponse& response);

// The models table: name, version, kind, default/latest, hardware profile, device counts,
// description.
std::string FormatModelsText(const shardplan::v1::ListModelsResponse& response);
// `models reload`: one line per loaded/removed/refused version and a summary line.
std::string FormatReloadText(const shardplan::v1::ReloadModelsResponse& response);

}  // namespace shardplan::cli

#endif  // SHARDPLAN_CLIENT_CLI_CATALOG_FORMAT_H_
