#include "base/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace shardplan {

double Median(std::vector<double> values) { return Percentile(std::move(values), 50.0); }

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(values.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(rank));
  const size_t above = std::min(below + 1, values.size() - 1);
  const double fraction = rank - static_cast<double>(below);
  return values[below] + fraction * (values[above] - values[below]);
}

double Mean(const std::vector<double>& values) {
  return values.empty() ? 0.0
                        : std::accumulate(values.begin(), values.end(), 0.0) /
                              static_cast<double>(values.size());
}

double SampleStdDev(const std::vector<double>& values) {
  if (values.size() < 2) return 0.0;
  const double mean = Mean(values);
  double squares = 0.0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / static_cast<double>(values.size() - 1));
}

namespace {

// The continued fraction of the incomplete beta function I_x(a, b) (modified Lentz).
double IncompleteBetaFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-15;
  double c = 1.0;
  double d = 1.0 - (a + b) * x / (a + 1.0);
  d = 1.0 / (std::fabs(d) < kTiny ? kTiny : d);
  double h = d;
  for (int m = 1; m <= 500; ++m) {
    const double m2 = 2.0 * m;
    for (int half = 0; half < 2; ++half) {
      const double numerator = half == 0 ? m * (b - m) * x / ((a + m2 - 1.0) * (a + m2))
                                         : -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
      d = 1.0 + numerator * d;
      d = 1.0 / (std::fabs(d) < kTiny ? kTiny : d);
      c = 1.0 + numerator / c;
      if (std::fabs(c) < kTiny) c = kTiny;
      h *= d * c;
      if (half == 1 && std::fabs(d * c - 1.0) < kEpsilon) return h;
    }
  }
  return h;
}

// The regularised incomplete beta function I_x(a, b).
double RegularizedIncompleteBeta(double a, double b, double x) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1.0) / (a + b + 2.0)) return front * IncompleteBetaFraction(a, b, x) / a;
  return 1.0 - front * IncompleteBetaFraction(b, a, 1.0 - x) / b;
}

}  // namespace

double FDistributionSurvival(double f, double d1, double d2) {
  if (!(f > 0.0)) return 1.0;
  return RegularizedIncompleteBeta(d2 / 2.0, d1 / 2.0, d2 / (d2 + d1 * f));
}

LeveneResult LeveneTest(const std::vector<std::vector<double>>& groups, LeveneCenter center) {
  const size_t k = groups.size();
  size_t n = 0;
  for (const std::vector<double>& g : groups) n += g.size();
  if (k < 2 || n <= k) return {};
  // z_ij = |x_ij - centre_i|; W = (N - k) sum n_i (z_i. - z..)^2 / ((k - 1) sum (z_ij - z_i.)^2).
  std::vector<std::vector<double>> z(k);
  std::vector<double> group_means(k);
  double grand = 0.0;
  for (size_t i = 0; i < k; ++i) {
    const double c = center == LeveneCenter::kMedian ? Median(groups[i]) : Mean(groups[i]);
    for (double x : groups[i]) z[i].push_back(std::fabs(x - c));
    group_means[i] = Mean(z[i]);
    grand += std::accumulate(z[i].begin(), z[i].end(), 0.0);
  }
  grand /= static_cast<double>(n);
  double between = 0.0, within = 0.0;
  for (size_t i = 0; i < k; ++i) {
    between +=
        static_cast<double>(z[i].size()) * (group_means[i] - grand) * (group_means[i] - grand);
    for (double v : z[i]) within += (v - group_means[i]) * (v - group_means[i]);
  }
  if (within <= 0.0) return {};
  const double d1 = static_cast<double>(k - 1), d2 = static_cast<double>(n - k);
  LeveneResult result;
  result.statistic = d2 * between / (d1 * within);
  result.p_value = FDistributionSurvival(result.statistic, d1, d2);
  return result;
}

}  // namespace shardplan
