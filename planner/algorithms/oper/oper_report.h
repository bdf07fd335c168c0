#ifndef SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_REPORT_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_REPORT_H_

// What an OPER plan reports in its parameters (docs/oper.md, "What the plan reports").

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "planner/algorithms/oper/oper_copies.h"
#include "planner/algorithms/oper/oper_partitions.h"
#include "planner/algorithms/oper/oper_placement.h"

namespace shardplan::oper {

struct OperOutcome {
  double threshold = 0.0;  // the partitioning threshold of the plan
  int thresholds_tried = 1;
  bool balance_met = true;  // both degrees of balance reached the target (oper only)
  const std::vector<Partition>* partitions = nullptr;
  const Placement* placement = nullptr;
  const Copies* copies = nullptr;
  std::vector<std::vector<double>> comm_before;  // CL of the model-parallel plan
  std::vector<std::vector<double>> comm_after;   // CL with the replicas and routes
  std::optional<double> duplication_frequency;   // training: f*
  int64_t routes = 0;
};

// The degree of balance (min / max) of each device's remote fetches (CL's off-diagonal row
// sums), the paper's communication DoB.
double CommunicationBalance(const std::vector<std::vector<double>>& comm);

std::map<std::string, std::string> OperReport(const OperOutcome& outcome);

}  // namespace shardplan::oper

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_OPER_OPER_REPORT_H_
