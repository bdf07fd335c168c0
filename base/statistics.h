#ifndef SHARDPLAN_BASE_STATISTICS_H_
#define SHARDPLAN_BASE_STATISTICS_H_

#include <vector>

namespace shardplan {

// The one home of the summary statistics that measurements (cpu backend repetitions, benchmark
// timings, load-generator latencies) report, so that every report means the same thing.

// The median: the middle value, or the mean of the two middle values of an even count.
// 0 for no values (a report with nothing measured prints 0, not garbage).
double Median(std::vector<double> values);

// The p-th percentile (0 <= p <= 100) by linear interpolation between closest ranks (NumPy's
// default), so Percentile(v, 50) == Median(v). 0 for no values; p is clamped to [0, 100].
double Percentile(std::vector<double> values, double p);

// The arithmetic mean; 0 for no values.
double Mean(const std::vector<double>& values);

}  // namespace shardplan

#endif  // SHARDPLAN_BASE_STATISTICS_H_
