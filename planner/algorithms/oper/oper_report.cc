#include "planner/algorithms/oper/oper_report.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "planner/framework/parameters.h"

namespace shardplan::oper {

double CommunicationBalance(const std::vector<std::vector<double>>& comm) {
  std::vector<double> fetched(comm.size(), 0.0);
  for (size_t i = 0; i < comm.size(); ++i) {
    for (size_t j = 0; j < comm[i].size(); ++j) {
      if (i != j) fetched[i] += comm[i][j];
    }
  }
  return DegreeOfBalance(fetched);
}

std::map<std::string, std::string> OperReport(const OperOutcome& outcome) {
  const std::vector<Partition>& partitions = *outcome.partitions;
  const Placement& placement = *outcome.placement;
  const Copies& copies = *outcome.copies;
  std::map<std::string, std::string> report;
  report["threshold.used"] = ReportedNumber(outcome.threshold);
  report["thresholds.tried"] = absl::StrCat(outcome.thresholds_tried);
  report["balance.met"] = outcome.balance_met ? "true" : "false";
  const int64_t access_bounded =
      std::count_if(partitions.begin(), partitions.end(),
                    [](const Partition& p) { return p.bound == PartitionBound::kAccess; });
  report["partitions.total"] = absl::StrCat(partitions.size());
  report["partitions.access_bounded"] = absl::StrCat(access_bounded);
  report["balance.lookups"] = ReportedNumber(DegreeOfBalance(placement.lookup_bytes));
  std::vector<double> memory(placement.memory_bytes.begin(), placement.memory_bytes.end());
  report["balance.memory"] = ReportedNumber(DegreeOfBalance(memory));
  report["copies.replicas"] = absl::StrCat(copies.replicas());
  report["copies.max_bytes_per_device"] =
      absl::StrCat(copies.replica_bytes.empty() ? 0
                                                : *std::max_element(copies.replica_bytes.begin(),
                                                                    copies.replica_bytes.end()));
  report["copies.routes"] = absl::StrCat(outcome.routes);
  report["comm_us.model_parallel"] = ReportedNumber(OffDiagonalTotal(outcome.comm_before));
  report["comm_us.with_copies"] = ReportedNumber(OffDiagonalTotal(outcome.comm_after));
  report["balance.comm"] = ReportedNumber(CommunicationBalance(outcome.comm_after));
  if (outcome.duplication_frequency) {
    report["duplication.frequency"] = ReportedNumber(*outcome.duplication_frequency);
  }
  return report;
}

}  // namespace shardplan::oper
