#include "planner/estimators/zipf_access_model.h"

#include <algorithm>
#include <cmath>

#include "planner/domain/table.h"

namespace shardplan {
namespace {

// Tail buckets grow by this factor: lambda changes by at most 3% * exponent inside a bucket.
constexpr double kBucketGrowth = 1.03;
constexpr int kMaxIterations = 1000000;
constexpr double kEpsilon = 1e-15;

// Regularised lower incomplete gamma P(a, x) by its series (x < a + 1).
double GammaPSeries(double a, double x) {
  double term = 1.0 / a, sum = term;
  for (int n = 1; n < kMaxIterations; ++n) {
    term *= x / (a + n);
    sum += term;
    if (std::abs(term) < std::abs(sum) * kEpsilon) break;
  }
  return sum * std::exp(-x + a * std::log(x) - std::lgamma(a));
}

// Regularised upper incomplete gamma Q(a, x) by Lentz's continued fraction (x >= a + 1).
double GammaQContinuedFraction(double a, double x) {
  constexpr double kTiny = 1e-300;
  double b = x + 1.0 - a, c = 1.0 / kTiny, d = 1.0 / b, h = d;
  for (int i = 1; i < kMaxIterations; ++i) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (std::abs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::abs(delta - 1.0) < kEpsilon) break;
  }
  return std::exp(-x + a * std::log(x) - std::lgamma(a)) * h;
}

// P(X <= k) for X ~ Poisson(lambda) at every k in `ks` (ascending). Small lambdas sum the
// pmf once (cheap, and exact to rounding); large ones call PoissonCdf per k.
constexpr double kRecurrenceMaxLambda = 200.0;
void PoissonCdfs(double lambda, const std::vector<int64_t>& ks, std::vector<double>& out) {
  out.resize(ks.size());
  if (lambda > kRecurrenceMaxLambda) {
    for (size_t i = 0; i < ks.size(); ++i) out[i] = PoissonCdf(ks[i], lambda);
    return;
  }
  const int64_t limit = static_cast<int64_t>(lambda + 12.0 * std::sqrt(lambda) + 30.0);
  double pmf = std::exp(-lambda), cdf = pmf;
  int64_t k = 0;
  for (size_t i = 0; i < ks.size(); ++i) {
    if (ks[i] < 0) {
      out[i] = 0.0;
      continue;
    }
    if (ks[i] > limit) {
      out[i] = 1.0;
      continue;
    }
    while (k < ks[i]) {
      ++k;
      pmf *= lambda / static_cast<double>(k);
      cdf += pmf;
    }
    out[i] = std::min(cdf, 1.0);
  }
}

// The ks at which AddRows needs the CDF: each bin (lo, hi] needs lo, hi, lo - 1 and hi - 1.
const std::vector<int64_t>& EdgeKs() {
  static const std::vector<int64_t>* ks = [] {
    auto* v = new std::vector<int64_t>{-1, 0};
    for (int64_t e = 1; e <= 32768; e *= 2) {
      if (e - 1 > v->back()) v->push_back(e - 1);
      v->push_back(e);
    }
    return v;
  }();
  return *ks;
}

// Adds one group of `weight` rows of mean count `lambda` to the stats.
void AddRows(double weight, double lambda, ZipfAccessStats& stats) {
  if (lambda <= 0.0) return;
  stats.distinct_rows += weight * -std::expm1(-lambda);
  const std::vector<int64_t>& ks = EdgeKs();
  thread_local std::vector<double> cdf;
  PoissonCdfs(lambda, ks, cdf);
  auto at = [&](int64_t k) { return cdf[std::lower_bound(ks.begin(), ks.end(), k) - ks.begin()]; };
  // Bin j holds counts (lo, hi]; E[X 1{lo < X <= hi}] = lambda P(lo <= X <= hi - 1).
  int64_t lo = 0, hi = 1;
  for (int j = 0; j < kNumAccessBins; ++j) {
    const bool last = j == kNumAccessBins - 1;
    const double p_rows = (last ? 1.0 : at(hi)) - at(lo);
    const double p_lookups = (last ? 1.0 : at(hi - 1)) - at(lo - 1);
    stats.rows_per_bin[j] += weight * p_rows;
    stats.lookups_per_bin[j] += weight * lambda * p_lookups;
    lo = hi;
    hi *= 2;
  }
}

}  // namespace

double PoissonCdf(int64_t k, double lambda) {
  if (k < 0) return 0.0;
  if (lambda <= 0.0) return 1.0;
  const double sd = std::sqrt(lambda);
  const double kd = static_cast<double>(k);
  // Beyond 12 sd (plus a margin for small lambda) the tail is below 1e-30.
  if (kd > lambda + 12.0 * sd + 30.0) return 1.0;
  if (kd + 1.0 < lambda - 12.0 * sd - 30.0) return 0.0;
  const double a = kd + 1.0;  // P(X <= k) = Q(k + 1, lambda)
  if (lambda < a + 1.0) return 1.0 - GammaPSeries(a, lambda);
  return GammaQContinuedFraction(a, lambda);
}

ZipfAccessStats ExpectedZipfAccess(int64_t rows, int64_t lookups, double exponent,
                                   double uniform_share) {
  ZipfAccessStats stats;
  stats.rows_per_bin.assign(kNumAccessBins, 0.0);
  stats.lookups_per_bin.assign(kNumAccessBins, 0.0);
  if (rows <= 0 || lookups <= 0) return stats;
  // Quadrature nodes: (number of ranks, representative rank).
  std::vector<std::pair<double, double>> nodes;
  const int64_t head = std::min(rows, kExactHeadRanks);
  for (int64_t r = 1; r <= head; ++r) nodes.push_back({1.0, static_cast<double>(r)});
  for (int64_t a = head + 1; a <= rows;) {
    const int64_t b =
        std::min(rows + 1, std::max(a + 1, static_cast<int64_t>(std::ceil(a * kBucketGrowth))));
    // Ranks a..b-1; the rank of their mean weight, for a power law, is near the geometric mean.
    nodes.push_back({static_cast<double>(b - a), std::sqrt(static_cast<double>(a) * (b - 1))});
    a = b;
  }
  // Normalising with the same quadrature makes the lambdas sum to `lookups` exactly.
  double norm = 0.0;
  for (const auto& [weight, rank] : nodes) norm += weight * std::pow(rank, -exponent);
  const double n = static_cast<double>(lookups);
  const double floor = n * uniform_share / static_cast<double>(rows);
  const double scale = n * (1.0 - uniform_share) / norm;
  for (const auto& [weight, rank] : nodes) {
    AddRows(weight, floor + scale * std::pow(rank, -exponent), stats);
  }
  return stats;
}

}  // namespace shardplan
