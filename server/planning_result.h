#ifndef SHARDPLAN_SERVER_PLANNING_RESULT_H_
#define SHARDPLAN_SERVER_PLANNING_RESULT_H_

#include <string>
#include <vector>

#include "planner/domain/plan.h"

namespace shardplan {

// PlanWarning::code of a table costed with an imputed access histogram.
inline constexpr char kImputedAccessHistogram[] = "IMPUTED_ACCESS_HISTOGRAM";
// A table lies outside the data the cost model was trained on (CostModel::OutsideTrainingRange).
inline constexpr char kOutsideTrainingRange[] = "OUTSIDE_TRAINING_RANGE";
// The plan fits the task's capacities but not what TorchRec's storage reservation would leave
// (TorchRecReservationShortfall).
inline constexpr char kTorchRecMemory[] = "TORCHREC_MEMORY";
// A table replicates more ranks than its profile's top_ids name (AttachHotRowIds).
inline constexpr char kHotRowIdsIncomplete[] = "HOT_ROW_IDS_INCOMPLETE";
// A device's ledger bytes and its sequence tables' all-to-all buffers exceed its capacity.
inline constexpr char kSequenceBuffers[] = "SEQUENCE_BUFFERS";

// Something the caller should know about a plan, e.g. that a table was costed with an imputed
// access histogram. `code` is stable for programs; `field` names the request field concerned.
struct PlanWarning {
  std::string code;
  std::string field;
  std::string message;
  friend bool operator==(const PlanWarning&, const PlanWarning&) = default;
};

// A warning about one table, named by the table rather than by its place in a request: what a
// plan shared by identical requests (cache, single flight) carries for the warnings that only
// its computation finds (the out-of-range check of imputed histograms), so that each request
// that gets the plan names the table at its own position (PlanningEngine::WarningsFor).
struct TableWarning {
  std::string table;
  std::string code;
  std::string message;
  friend bool operator==(const TableWarning&, const TableWarning&) = default;
};

// What a planning request yields: the plan, what the server adds to it (the API's Plan carries
// both: server/result_proto.h), and where it came from.
struct PlanningResult {
  Plan plan;
  std::string request_hash;  // the request's plan-cache key (PlanCacheKey)
  // Why this algorithm and cost model served the request, where it left them to the server.
  std::string selection;
  std::vector<PlanWarning> warnings;  // e.g. tables costed with an imputed histogram
  // The warnings computing the plan found about tables whose histogram it imputed, by table:
  // part of `warnings` too, carried apart so that another request that gets this plan names
  // them at its own positions.
  std::vector<TableWarning> imputed_table_warnings;
  bool cache_hit = false;             // the plan cache supplied the plan
  // An identical request in flight computed it and this call waited for that (SingleFlight).
  bool joined = false;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_PLANNING_RESULT_H_
