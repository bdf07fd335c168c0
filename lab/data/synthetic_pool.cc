#include "lab/data/synthetic_pool.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "base/atomic_file.h"
#include "base/seeded_rng.h"
#include "base/status_macros.h"
#include "lab/data/table_profiler.h"
#include "nlohmann/json.hpp"

namespace shardplan {
namespace {

// Pool files store bins to 6 decimals: enough for any histogram a batch of 65536 can produce
// at the resolution the cost models see, and short lines.
constexpr double kBinResolution = 1e6;

// The root of a decreasing `f` on [lo, hi] by bisection (f(lo) >= 0 >= f(hi)).
double SolveDecreasing(const std::function<double(double)>& f, double lo, double hi) {
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (f(mid) > 0.0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// Rounds `values` to integers whose sum is exactly `target`, putting the rounding residue on
// the entry `absorb` (clamped to [floor, ceiling]).
std::vector<int64_t> RoundToSum(const std::vector<double>& values, int64_t target, size_t absorb,
                                int64_t floor, int64_t ceiling) {
  std::vector<int64_t> out(values.size());
  int64_t sum = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    out[i] = std::llround(values[i]);
    sum += out[i];
  }
  out[absorb] = std::clamp(out[absorb] + (target - sum), floor, ceiling);
  return out;
}

// The index, among `candidates`, of the median of `values`.
size_t MedianOf(const std::vector<double>& values, std::vector<size_t> candidates) {
  std::nth_element(candidates.begin(), candidates.begin() + candidates.size() / 2, candidates.end(),
                   [&](size_t a, size_t b) { return values[a] < values[b]; });
  return candidates[candidates.size() / 2];
}

nlohmann::json MaxMeanMin(const std::vector<double>& v) {
  const auto [mn, mx] = std::minmax_element(v.begin(), v.end());
  return {
      {"max", *mx}, {"mean", std::accumulate(v.begin(), v.end(), 0.0) / v.size()}, {"min", *mn}};
}

// Rows (before the >= 100 clamp) and lookups per batch of each table, and the solved shape.
struct RowsAndLookups {
  std::vector<int64_t> rows, lookups;
  double gamma = 0.0, mu = 0.0;
};

// kDlrm: the published extremes pinned to one table each, the rest shaped and solved so that
// the means are the published ones.
RowsAndLookups DlrmRowsAndLookups(const SyntheticPoolOptions& o, const std::vector<double>& u,
                                  const std::vector<double>& z) {
  const int32_t n = o.num_tables;
  // The published minima (hash size 1, pooling 0) are one empty table: the one of least z.
  const size_t empty = std::min_element(z.begin(), z.end()) - z.begin();
  const size_t max_pooling = std::max_element(z.begin(), z.end()) - z.begin();
  size_t max_rows = empty == 0 ? 1 : 0;
  for (int32_t i = 0; i < n; ++i) {
    if (static_cast<size_t>(i) != empty && u[i] > u[max_rows]) max_rows = i;
  }
  std::vector<size_t> regular_rows, regular_pooling;
  for (int32_t i = 0; i < n; ++i) {
    if (static_cast<size_t>(i) != empty && static_cast<size_t>(i) != max_rows) {
      regular_rows.push_back(i);
    }
    if (static_cast<size_t>(i) != empty && static_cast<size_t>(i) != max_pooling) {
      regular_pooling.push_back(i);
    }
  }

  // Rows: max_rows * u^gamma with gamma such that the mean is the published one.
  const double max_r = static_cast<double>(o.max_rows);
  const double rows_target = static_cast<double>(o.mean_rows) * n;
  auto rows_at = [&](double gamma) {
    std::vector<double> rows(n, 0.0);
    rows[empty] = 1.0;
    rows[max_rows] = max_r;
    for (size_t i : regular_rows) rows[i] = std::max(1.0, max_r * std::pow(u[i], gamma));
    return rows;
  };
  const double gamma = SolveDecreasing(
      [&](double g) {
        const std::vector<double> r = rows_at(g);
        return std::accumulate(r.begin(), r.end(), 0.0) - rows_target;
      },
      0.0, 100.0);
  const std::vector<double> rows_real = rows_at(gamma);
  const std::vector<int64_t> rows =
      RoundToSum(rows_real, o.mean_rows * n, MedianOf(rows_real, regular_rows), 1, o.max_rows);

  // Lookups per batch: exp(mu + sigma z) * batch, capped, with mu such that the total matches.
  const double batch = static_cast<double>(o.batch_size);
  const double max_lookups = o.max_pooling_factor * batch;
  auto lookups_at = [&](double mu) {
    std::vector<double> l(n, 0.0);
    l[max_pooling] = max_lookups;
    for (size_t i : regular_pooling) {
      l[i] = std::min(max_lookups, std::exp(mu + o.pooling_log_sigma * z[i]) * batch);
    }
    return l;
  };
  const double mu = SolveDecreasing(
      [&](double m) {
        const std::vector<double> l = lookups_at(m);
        return static_cast<double>(o.total_lookups) - std::accumulate(l.begin(), l.end(), 0.0);
      },
      -50.0, 50.0);
  const std::vector<double> lookups_real = lookups_at(mu);
  const std::vector<int64_t> lookups =
      RoundToSum(lookups_real, o.total_lookups, MedianOf(lookups_real, regular_pooling), 0,
                 static_cast<int64_t>(max_lookups));

  return {rows, lookups, gamma, mu};
}

// kLogUniform: u and z (through the normal CDF) mapped onto log-uniform ranges; nothing solved.
RowsAndLookups LogUniformRowsAndLookups(const SyntheticPoolOptions& o, const std::vector<double>& u,
                                        const std::vector<double>& z) {
  RowsAndLookups out;
  const double log_rows_lo = std::log(static_cast<double>(kMinProfiledRows));
  const double log_rows_hi = std::log(static_cast<double>(std::max(o.max_rows, kMinProfiledRows)));
  const double log_pf_lo = std::log(o.min_pooling_factor);
  const double log_pf_hi = std::log(o.max_pooling_factor);
  const double batch = static_cast<double>(o.batch_size);
  for (size_t i = 0; i < u.size(); ++i) {
    const double v = 0.5 * std::erfc(-z[i] / std::sqrt(2.0));  // uniform on (0, 1)
    out.rows.push_back(std::llround(std::exp(log_rows_lo + u[i] * (log_rows_hi - log_rows_lo))));
    out.lookups.push_back(std::llround(std::exp(log_pf_lo + v * (log_pf_hi - log_pf_lo)) * batch));
  }
  return out;
}

}  // namespace

absl::StatusOr<SyntheticPool> GenerateSyntheticPool(const SyntheticPoolOptions& o) {
  const int32_t n = o.num_tables;
  if (n < 3) {
    return absl::InvalidArgumentError(absl::StrCat("num_tables: ", n, " < 3 (need at least 3)"));
  }
  const bool dlrm = o.shape == SyntheticPoolOptions::Shape::kDlrm;  // only it uses mean_rows
  if (o.batch_size < 1 || o.max_rows < 1 ||
      (dlrm && (o.mean_rows < 1 || o.mean_rows > o.max_rows)) || o.max_pooling_factor <= 0 ||
      o.total_lookups < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "synthetic pool targets out of range (need batch_size >= 1, max_rows >= 1, 1 <= mean_rows "
        "<= max_rows for the dlrm shape, max_pooling_factor > 0, total_lookups >= 0): batch_size ",
        o.batch_size, ", mean_rows ", o.mean_rows, ", max_rows ", o.max_rows,
        ", max_pooling_factor ", o.max_pooling_factor, ", total_lookups ", o.total_lookups));
  }
  // Per-table draws, each table from its own (seed, i) generator.
  std::vector<double> u(n), z(n), exponent(n), active_fraction(n), uniform_share(n);
  for (int32_t i = 0; i < n; ++i) {
    std::mt19937_64 rng = SampleRng(o.seed, static_cast<uint64_t>(i));
    u[i] = 1.0 - Uniform01(rng);  // (0, 1]
    z[i] = StandardNormal(rng);
    exponent[i] = std::clamp(o.zipf_exponent_mean + o.zipf_exponent_sd * StandardNormal(rng),
                             kMinZipfExponent, kMaxZipfExponent);
    uniform_share[i] =
        std::clamp(o.uniform_share_mean + o.uniform_share_sd * StandardNormal(rng), 0.0, 1.0);
    active_fraction[i] =
        std::pow(10.0, std::min(0.0, o.active_fraction_log10_mean +
                                         o.active_fraction_log10_sd * StandardNormal(rng)));
  }
  const bool log_uniform = o.shape == SyntheticPoolOptions::Shape::kLogUniform;
  if (log_uniform && !(o.min_pooling_factor > 0.0 && o.min_pooling_factor < o.max_pooling_factor)) {
    return absl::InvalidArgumentError(absl::StrCat("min_pooling_factor: ", o.min_pooling_factor,
                                                   " must be in (0, max_pooling_factor ",
                                                   o.max_pooling_factor, ")"));
  }
  const auto [rows, lookups, gamma, mu] =
      log_uniform ? LogUniformRowsAndLookups(o, u, z) : DlrmRowsAndLookups(o, u, z);
  const double batch = static_cast<double>(o.batch_size);
  SyntheticPool out;
  out.rows_gamma = gamma;
  out.pooling_log_mu = mu;
  out.pool.source =
      log_uniform
          ? absl::StrCat("synthetic coverage pool (GenerateSyntheticPool, seed ", o.seed,
                         ", log-uniform rows and pooling factors, DLRM-fitted access); "
                         "docs/table-pool.md")
          : absl::StrCat("synthetic DLRM-like pool (GenerateSyntheticPool, seed ", o.seed,
                         ") fitted to dlrm_datasets fbgemm_t856_bs65536 and AutoShard Table 1; "
                         "docs/table-pool.md");
  for (int32_t i = 0; i < n; ++i) {
    SyntheticTableModel model;
    model.zipf_exponent = exponent[i];
    model.rows_unclamped = rows[i];
    model.active_rows =
        std::max<int64_t>(1, std::llround(active_fraction[i] * static_cast<double>(rows[i])));
    model.lookups = lookups[i];
    model.uniform_share = uniform_share[i];
    model.expected =
        ExpectedZipfAccess(model.active_rows, lookups[i], exponent[i], uniform_share[i]);
    Table table;
    table.name = absl::StrCat("t", i);
    table.rows = std::max(kMinProfiledRows, rows[i]);
    table.pooling_factor = static_cast<double>(lookups[i]) / batch;
    table.access_bins.assign(kNumAccessBins, 0.0);
    if (model.expected.distinct_rows > 0.0) {
      for (int j = 0; j < kNumAccessBins; ++j) {
        table.access_bins[j] = std::round(model.expected.rows_per_bin[j] /
                                          model.expected.distinct_rows * kBinResolution) /
                               kBinResolution;
      }
    }
    out.pool.tables.push_back(std::move(table));
    out.models.push_back(std::move(model));
  }
  return out;
}

PoolAggregate AggregateOf(const SyntheticPool& pool) {
  PoolAggregate agg;
  agg.rows_histogram.assign(kNumAccessBins, 0.0);
  agg.lookups_ratio.assign(kNumAccessBins, 0.0);
  for (const SyntheticTableModel& m : pool.models) {
    agg.lookups += static_cast<double>(m.lookups);
    agg.distinct_rows += m.expected.distinct_rows;
    for (int j = 0; j < kNumAccessBins; ++j) {
      agg.rows_histogram[j] += m.expected.rows_per_bin[j];
      agg.lookups_ratio[j] += m.expected.lookups_per_bin[j];
    }
  }
  for (int j = 0; j < kNumAccessBins; ++j) {
    if (agg.distinct_rows > 0) agg.rows_histogram[j] /= agg.distinct_rows;
    if (agg.lookups > 0) agg.lookups_ratio[j] /= agg.lookups;
  }
  return agg;
}

PoolAggregate PublishedDlrm2021Aggregate() {
  PoolAggregate agg;
  agg.lookups = 887017990;
  agg.distinct_rows = 128435723;
  agg.rows_histogram = {0.473, 0.152, 0.139, 0.112, 0.072, 0.032, 0.011, 0.005, 0.002,
                        0.001, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000};
  agg.lookups_ratio = {0.069, 0.044, 0.068, 0.101, 0.121, 0.104, 0.073, 0.058, 0.052,
                       0.050, 0.049, 0.048, 0.048, 0.043, 0.031, 0.023, 0.019};
  return agg;
}

std::string SyntheticPoolFitJson(const SyntheticPool& pool, const SyntheticPoolOptions& o) {
  auto aggregate_json = [](const PoolAggregate& a) {
    return nlohmann::json{{"lookups", a.lookups},
                          {"distinct_rows", a.distinct_rows},
                          {"rows_histogram", a.rows_histogram},
                          {"lookups_ratio", a.lookups_ratio}};
  };
  std::vector<double> rows_unclamped, rows, pooling, exponents, distinct, active, shares;
  for (size_t i = 0; i < pool.models.size(); ++i) {
    rows_unclamped.push_back(static_cast<double>(pool.models[i].rows_unclamped));
    rows.push_back(static_cast<double>(pool.pool.tables[i].rows));
    pooling.push_back(pool.pool.tables[i].pooling_factor);
    exponents.push_back(pool.models[i].zipf_exponent);
    active.push_back(static_cast<double>(pool.models[i].active_rows));
    shares.push_back(pool.models[i].uniform_share);
    distinct.push_back(pool.models[i].expected.distinct_rows);
  }
  nlohmann::json report = {
      {"options",
       {{"seed", o.seed},
        {"num_tables", o.num_tables},
        {"batch_size", o.batch_size},
        {"max_rows", o.max_rows},
        {"mean_rows", o.mean_rows},
        {"max_pooling_factor", o.max_pooling_factor},
        {"total_lookups", o.total_lookups},
        {"pooling_log_sigma", o.pooling_log_sigma},
        {"active_fraction_log10_mean", o.active_fraction_log10_mean},
        {"active_fraction_log10_sd", o.active_fraction_log10_sd},
        {"uniform_share_mean", o.uniform_share_mean},
        {"uniform_share_sd", o.uniform_share_sd},
        {"zipf_exponent_mean", o.zipf_exponent_mean},
        {"zipf_exponent_sd", o.zipf_exponent_sd}}},
      {"solved", {{"rows_gamma", pool.rows_gamma}, {"pooling_log_mu", pool.pooling_log_mu}}},
      {"published", aggregate_json(PublishedDlrm2021Aggregate())},
      {"pool", aggregate_json(AggregateOf(pool))},
      {"published_rows", {{"max", 12543670}, {"mean", 4107458}, {"min", 1}}},
      {"published_pooling_factor", {{"max", 193}, {"mean", 15}, {"min", 0}}},
      {"rows_unclamped", MaxMeanMin(rows_unclamped)},
      {"rows", MaxMeanMin(rows)},
      {"pooling_factor", MaxMeanMin(pooling)},
      {"per_table",
       {{"rows_unclamped", rows_unclamped},
        {"pooling_factor", pooling},
        {"zipf_exponent", exponents},
        {"active_rows", active},
        {"uniform_share", shares},
        {"expected_distinct_rows", distinct}}}};
  if (o.shape == SyntheticPoolOptions::Shape::kLogUniform) {  // the DLRM report stays as shipped
    report["options"]["shape"] = "log-uniform";
    report["options"]["min_pooling_factor"] = o.min_pooling_factor;
  }
  return report.dump(1) + "\n";
}

absl::Status WriteSyntheticPool(const SyntheticPoolOptions& options, const std::string& out_path) {
  SHARDPLAN_ASSIGN_OR_RETURN(SyntheticPool pool, GenerateSyntheticPool(options));
  SHARDPLAN_RETURN_IF_ERROR(SaveTablePool(pool.pool, out_path));
  std::string fit_path = out_path;
  if (fit_path.size() > 5 && fit_path.ends_with(".json")) fit_path.resize(fit_path.size() - 5);
  fit_path += ".fit.json";
  return WriteFileAtomically(fit_path, SyntheticPoolFitJson(pool, options));
}

}  // namespace shardplan
