#ifndef SHARDPLAN_CLIENT_CLI_ACCESS_FIGURES_FORMAT_H_
#define SHARDPLAN_CLIENT_CLI_ACCESS_FIGURES_FORMAT_H_

// `shardplan evaluate`'s text for OPER's figures of a plan (EvaluatePlanResponse.access_figures;
// docs/oper.md, "Access figures").

#include <string>

#include "shardplan/v1/planner.pb.h"

namespace shardplan::cli {

// A heading line with the totals and degrees of balance, the per-device table (memory, lookups,
// fetches out and in) and, up to 8 devices, the device x device communication matrix
// (microseconds per iteration, requester by row); larger matrices are in --json.
std::string FormatAccessFiguresText(const shardplan::v1::AccessFigures& figures);

}  // namespace shardplan::cli

#endif  // SHARDPLAN_CLIENT_CLI_ACCESS_FIGURES_FORMAT_H_
