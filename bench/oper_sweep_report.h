#ifndef SHARDPLAN_BENCH_OPER_SWEEP_REPORT_H_
#define SHARDPLAN_BENCH_OPER_SWEEP_REPORT_H_

// bench/oper_sweeps's entries as markdown. An entry is a JSON object with "topology" ("1x8"),
// "objective" ("INFERENCE"), "zipf_exponent", "sweep_value" (the extra memory share, or the
// threshold) and the plan's reported figures under their dotted keys (docs/oper.md).

#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace shardplan::bench {

// "1x8 INFERENCE s=1.05": the series an entry belongs to; EntryKey adds its sweep value.
std::string SeriesKey(const nlohmann::json& entry);
std::string EntryKey(const nlohmann::json& entry);

// The communication sweep: a row per entry (series in order, each by ascending extra memory),
// then each series' cut from its first entry. `violations` gets every series whose communication
// grows with extra memory somewhere (once each).
std::string MemoryReport(const nlohmann::json& entries, std::vector<std::string>& violations);

// The threshold sweep: a row per entry, with the paper's Table 3 beside the thresholds it has.
std::string ThresholdReport(const nlohmann::json& entries);

// Issue 29's target: the cut from 0% to 1% of the 1x8 inference series at `exponent`, at least
// 5x; one line saying met or MISSED, or that the sweep does not hold those entries.
std::string TargetLine(double exponent, const nlohmann::json& entries);

}  // namespace shardplan::bench

#endif  // SHARDPLAN_BENCH_OPER_SWEEP_REPORT_H_
