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

// The sample standard deviation (n - 1 in the denominator); 0 for fewer than two values.
double SampleStdDev(const std::vector<double>& values);

// Levene's test that groups have equal variances, centred on each group's median (the
// Brown-Forsythe form, SciPy's `scipy.stats.levene` default) or mean: W and its p-value under
// F(k - 1, N - k). The ALIS paper tests the spread of latency across updates with it.
// W = 0, p = 1 when fewer than two groups, N <= k, or no spread within groups at all.
struct LeveneResult {
  double statistic = 0.0;
  double p_value = 1.0;
};
enum class LeveneCenter { kMedian, kMean };
LeveneResult LeveneTest(const std::vector<std::vector<double>>& groups,
                        LeveneCenter center = LeveneCenter::kMedian);

// P(X > f) for X ~ F(d1, d2), through the regularised incomplete beta function (Lentz's
// continued fraction, Numerical Recipes 6.4).
double FDistributionSurvival(double f, double d1, double d2);

}  // namespace shardplan

#endif  // SHARDPLAN_BASE_STATISTICS_H_
