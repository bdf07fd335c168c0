#include "planner/domain/rank_frequency.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace shardplan {
namespace {

// H(n) is summed term by term up to here, Euler-Maclaurin beyond (its next term is below 1e-20
// relative). Small, because a curve is built wherever a rank-ordered share is asked for.
constexpr int64_t kExactHead = 1024;

// Row counts as doubles: exact below 2^53, far above any table.
double AsDouble(int64_t n) { return static_cast<double>(n); }

}  // namespace

double BinAccessCount(int bin) {
  if (bin <= 0) return 1.0;
  if (bin >= kNumAccessBins - 1) return 1.5 * 32768.0;
  return 0.75 * std::ldexp(1.0, bin);
}

int AccessBinOfCount(double count) {
  if (!(count > 1.0)) return 0;
  const int bin = static_cast<int>(std::ceil(std::log2(count)));
  return std::clamp(bin, 0, kNumAccessBins - 1);
}

RankFrequencyCurve RankFrequencyCurve::Uniform(int64_t rows) {
  return Staircase(rows, {{.rows = rows, .weight = 1.0}});
}

RankFrequencyCurve RankFrequencyCurve::Staircase(int64_t rows, std::vector<Step> steps) {
  RankFrequencyCurve curve;
  curve.kind_ = Kind::kStaircase;
  curve.rows_ = std::max<int64_t>(rows, 0);
  double total = 0.0;
  int64_t covered = 0;
  for (Step& step : steps) {
    step.rows = std::clamp<int64_t>(step.rows, 0, curve.rows_ - covered);
    covered += step.rows;
    total += AsDouble(step.rows) * std::max(0.0, step.weight);
  }
  if (total <= 0.0) {  // nothing weighted: every row alike
    steps = {{.rows = curve.rows_, .weight = 1.0}};
    total = AsDouble(curve.rows_);
  }
  int64_t begin = 0;
  double cumulative = 0.0;
  for (const Step& step : steps) {
    if (step.rows == 0) continue;
    curve.step_begin_.push_back(begin);
    curve.cumulative_at_step_.push_back(cumulative);
    const double share = std::max(0.0, step.weight) / total;
    curve.step_share_.push_back(share);
    begin += step.rows;
    cumulative += AsDouble(step.rows) * share;
  }
  curve.step_begin_.push_back(begin);
  curve.cumulative_at_step_.push_back(std::min(1.0, cumulative));
  return curve;
}

RankFrequencyCurve RankFrequencyCurve::Zipf(int64_t rows, double exponent, double uniform_share,
                                            int64_t active_rows) {
  RankFrequencyCurve curve;
  curve.kind_ = Kind::kZipf;
  curve.rows_ = std::max<int64_t>(rows, 0);
  curve.exponent_ = exponent;
  curve.uniform_share_ = std::clamp(uniform_share, 0.0, 1.0);
  curve.active_rows_ =
      active_rows <= 0 ? curve.rows_ : std::min<int64_t>(active_rows, curve.rows_);
  const int64_t head = std::min(kExactHead, curve.active_rows_);
  curve.harmonic_head_.assign(static_cast<size_t>(head) + 1, 0.0);
  for (int64_t k = 1; k <= head; ++k) {
    curve.harmonic_head_[k] = curve.harmonic_head_[k - 1] + std::pow(AsDouble(k), -exponent);
  }
  curve.harmonic_total_ = curve.ZipfHarmonic(curve.active_rows_);
  if (!(curve.harmonic_total_ > 0.0)) curve.harmonic_total_ = 1.0;
  return curve;
}

double RankFrequencyCurve::ZipfHarmonic(int64_t n) const {
  if (n <= 0) return 0.0;
  const int64_t head = static_cast<int64_t>(harmonic_head_.size()) - 1;
  if (n <= head) return harmonic_head_[static_cast<size_t>(n)];
  // sum_{k=M+1..n} f(k) = integral_M^n f + (f(n) - f(M))/2 + (f'(n) - f'(M))/12
  //                       - (f'''(n) - f'''(M))/720, f(x) = x^-s.
  const double s = exponent_;
  const double m = AsDouble(head);
  const double x = AsDouble(n);
  const auto f = [s](double v) { return std::pow(v, -s); };
  const auto f1 = [s](double v) { return -s * std::pow(v, -s - 1); };
  const auto f3 = [s](double v) { return -s * (s + 1) * (s + 2) * std::pow(v, -s - 3); };
  const double integral = std::fabs(1.0 - s) < 1e-12
                              ? std::log(x / m)
                              : (std::pow(x, 1.0 - s) - std::pow(m, 1.0 - s)) / (1.0 - s);
  return harmonic_head_.back() + integral + (f(x) - f(m)) / 2 + (f1(x) - f1(m)) / 12 -
         (f3(x) - f3(m)) / 720;
}

double RankFrequencyCurve::ZipfShare(int64_t rank) const {
  if (rank < 0 || rank >= active_rows_) return 0.0;
  return (1.0 - uniform_share_) * std::pow(AsDouble(rank + 1), -exponent_) / harmonic_total_ +
         uniform_share_ / AsDouble(active_rows_);
}

double RankFrequencyCurve::ShareOfRank(int64_t rank) const {
  if (rank < 0 || rank >= rows_) return 0.0;
  if (kind_ == Kind::kZipf) return ZipfShare(rank);
  const auto it = std::upper_bound(step_begin_.begin(), step_begin_.end(), rank);
  const size_t step = static_cast<size_t>(it - step_begin_.begin()) - 1;
  return step < step_share_.size() ? step_share_[step] : 0.0;
}

double RankFrequencyCurve::CumulativeShare(int64_t rank) const {
  rank = std::clamp<int64_t>(rank, 0, rows_);
  if (kind_ == Kind::kZipf) {
    const int64_t active = std::min(rank, active_rows_);
    if (active == active_rows_) return 1.0;
    return (1.0 - uniform_share_) * ZipfHarmonic(active) / harmonic_total_ +
           uniform_share_ * AsDouble(active) / AsDouble(active_rows_);
  }
  const auto it = std::upper_bound(step_begin_.begin(), step_begin_.end(), rank);
  const size_t step = static_cast<size_t>(it - step_begin_.begin()) - 1;
  if (step >= step_share_.size()) return cumulative_at_step_.back();
  return cumulative_at_step_[step] + AsDouble(rank - step_begin_[step]) * step_share_[step];
}

int64_t RankFrequencyCurve::RowsToCover(double share) const {
  if (share <= 0.0) return 0;
  int64_t low = 0;  // CumulativeShare(low) < share
  int64_t high = rows_;
  if (CumulativeShare(high) < share) return rows_;
  while (high - low > 1) {
    const int64_t mid = low + (high - low) / 2;
    (CumulativeShare(mid) >= share ? high : low) = mid;
  }
  return high;
}

std::array<double, kNumAccessBins> RankFrequencyCurve::AccessClasses(int64_t begin, int64_t end,
                                                                     double lookups) const {
  std::array<double, kNumAccessBins> rows_per_bin{};
  begin = std::clamp<int64_t>(begin, 0, rows_);
  end = std::clamp<int64_t>(end, begin, rows_);
  const auto add = [&](double rows, double share) {
    const double count = lookups * share;
    if (!(count > 0.0)) return;
    rows_per_bin[AccessBinOfCount(count)] += count > 1.0 ? rows : rows * -std::expm1(-count);
  };
  if (kind_ == Kind::kStaircase) {
    for (size_t s = 0; s < step_share_.size(); ++s) {
      const int64_t a = std::max(begin, step_begin_[s]);
      const int64_t b = std::min(end, step_begin_[s + 1]);
      if (a < b) add(AsDouble(b - a), step_share_[s]);
    }
    return rows_per_bin;
  }
  for (int64_t a = begin; a < end;) {
    const int64_t b = std::min(
        end, std::max(a + 1, static_cast<int64_t>(std::ceil(AsDouble(a + 1) * kBucketGrowth)) - 1));
    // The bucket's middle rank (geometric, in 1-based ranks) stands for all of it.
    const double middle = std::sqrt(AsDouble(a + 1) * AsDouble(b)) - 1.0;
    add(AsDouble(b - a), ZipfShare(static_cast<int64_t>(std::llround(middle))));
    a = b;
  }
  return rows_per_bin;
}

}  // namespace shardplan
