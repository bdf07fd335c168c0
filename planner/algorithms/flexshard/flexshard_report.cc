#include "planner/algorithms/flexshard/flexshard_report.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "planner/framework/parameters.h"

namespace shardplan::flexshard {
namespace {

std::string Bytes(double bytes) { return absl::StrFormat("%.0f", std::round(bytes)); }

}  // namespace

std::map<std::string, std::string> TierReport(const TierInputs& inputs, const TierResult& result,
                                              const TierPlan& plan) {
  std::map<std::string, std::string> report;
  const std::pair<const char*, const Tier*> tiers[] = {
      {"dp", &plan.dp}, {"flex", &plan.flex}, {"rw", &plan.rw}};
  for (const auto& [name, tier] : tiers) {
    report[absl::StrCat("tier.", name, ".rows")] = absl::StrCat(tier->rows);
    report[absl::StrCat("tier.", name, ".coverage")] = ReportedNumber(tier->coverage);
    for (size_t t = 0; t < inputs.tables.size() && t < tier->ranks.size(); ++t) {
      const TierTable& table = inputs.tables[t];
      const auto [begin, end] = tier->ranks[t];
      const std::string prefix = absl::StrCat("table.", table.name, ".", name);
      report[prefix + ".rows"] = absl::StrCat(end - begin);
      report[prefix + ".coverage"] = ReportedNumber(table.curve->Share(begin, end));
    }
  }
  const TierMemory& memory = plan.memory;
  report["memory.row_wise_bytes"] = Bytes(memory.row_wise_bytes);
  report["memory.replicated_static_bytes"] = Bytes(memory.replicated_static_bytes);
  report["memory.row_wise_static_saved_bytes"] = Bytes(memory.row_wise_static_saved);
  report["memory.dynamic_saved_bytes"] = Bytes(memory.dynamic_saved);
  report["memory.marginal_bytes"] = Bytes(memory.marginal_bytes);
  report["memory.budget_bytes"] = Bytes(inputs.memory_budget_bytes);
  report["memory.multiplier"] = ReportedNumber(result.multiplier);
  report["memory.within_budget"] = plan.within_budget ? "true" : "false";
  report["breakpoint.memory"] = ReportedNumber(result.breakpoints.memory);
  report["breakpoint.dp_comm"] = ReportedNumber(result.breakpoints.dp_comm);
  report["breakpoint.flex_comm"] = ReportedNumber(result.breakpoints.flex_comm);
  report["comm.all_to_all_reduction"] = ReportedNumber(plan.comm.all_to_all_reduction);
  report["comm.non_overlappable_ms"] = ReportedNumber(plan.comm.non_overlappable_ms);
  return report;
}

}  // namespace shardplan::flexshard
