#ifndef SHARDPLAN_LAB_DATA_SYNTHETIC_POOL_H_
#define SHARDPLAN_LAB_DATA_SYNTHETIC_POOL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lab/data/table_pool.h"
#include "planner/estimators/typical_access.h"
#include "planner/estimators/zipf_access_model.h"

namespace shardplan {

// A DLRM-like pool generated to match the published statistics of Meta's synthetic dataset
// (dlrm_datasets fbgemm_t856_bs65536; AutoShard's Table 1). The model and its fit are in
// docs/table-pool.md. Every default below is either a published target or a fitted shape.
struct SyntheticPoolOptions {
  // kDlrm: rows and pooling shaped and solved to match the published statistics (below).
  // kLogUniform: a coverage pool for training data, not a DLRM look-alike: rows log-uniform on
  // [kMinProfiledRows, max_rows] and pooling factors log-uniform on [min_pooling_factor,
  // max_pooling_factor], so that tiny tables with high pooling (every row hit thousands of
  // times per batch) are as common as any other corner; the access draws are the kDlrm ones.
  // docs/table-pool.md, "Coverage pools".
  enum class Shape { kDlrm, kLogUniform };
  Shape shape = Shape::kDlrm;
  double min_pooling_factor = 0.1;  // kLogUniform only
  uint64_t seed = 0;
  int32_t num_tables = 856;
  int64_t batch_size = TypicalAccessParams{}.batch_size;
  // Published targets. Hash sizes before the >= 100 clamp: one table is empty (rows 1).
  int64_t max_rows = 12543670;
  int64_t mean_rows = 4107458;
  double max_pooling_factor = 193.0;
  int64_t total_lookups = 887017990;  // "Avg # of indices": mean pooling factor 15.81
  // Shapes. rows = max_rows * u^gamma (u uniform, gamma solved for mean_rows);
  // pooling = exp(mu + sigma z) capped at the max (z normal, mu solved for total_lookups);
  // access: a batch touches only the table's active rows, a fraction 10^x of its hash range
  // (x ~ N(mean, sd) clipped to <= 0; hashed ids leave most of the range unused), drawn from a
  // uniform floor (share ~ N(mean, sd) clipped to [0, 1]) plus a Zipf head, exponent ~ N(mean,
  // sd) clipped to [kMinZipfExponent, kMaxZipfExponent] (ExpectedZipfAccess).
  // Fitted with seed 0 (Nelder-Mead on the histogram distances, docs/table-pool.md).
  double pooling_log_sigma = 1.0;
  // The means are the typical table's (planner/estimators/typical_access.h), which the server
  // imputes for tables sent without a histogram.
  double active_fraction_log10_mean = TypicalAccessParams{}.active_fraction_log10;
  double active_fraction_log10_sd = 0.54;
  double uniform_share_mean = TypicalAccessParams{}.uniform_share;
  double uniform_share_sd = 0.33;
  double zipf_exponent_mean = TypicalAccessParams{}.zipf_exponent;
  double zipf_exponent_sd = 0.0;
};

// What the generator decided for one table, beside the pool's statistics.
struct SyntheticTableModel {
  double zipf_exponent = 0.0;
  int64_t active_rows = 0;     // rows a batch can touch
  double uniform_share = 0.0;  // of lookups spread evenly over the active rows
  int64_t rows_unclamped = 0;  // the hash size before the >= 100 clamp
  int64_t lookups = 0;         // per batch: pooling_factor * batch_size
  ZipfAccessStats expected;    // of one batch
};

struct SyntheticPool {
  TablePool pool;
  std::vector<SyntheticTableModel> models;  // parallel to pool.tables
  double rows_gamma = 0.0;                  // solved: rows = max_rows * u^gamma
  double pooling_log_mu = 0.0;              // solved: pooling = exp(mu + sigma z)
};

absl::StatusOr<SyntheticPool> GenerateSyntheticPool(const SyntheticPoolOptions& options);

// The pool-wide figures that dlrm_datasets publishes, from the model's expectations.
struct PoolAggregate {
  double lookups = 0.0;                // "Avg # of indices"
  double distinct_rows = 0.0;          // "Avg # of unique cols"
  std::vector<double> rows_histogram;  // "Histogram of col sizes" (distinct-row weighted), 17
  std::vector<double> lookups_ratio;   // "Ratio of index distribution ..." (lookup weighted), 17
};
PoolAggregate AggregateOf(const SyntheticPool& pool);

// The published figures, fbgemm_t856_bs65536.pt block of locality_stats_2021.txt.
PoolAggregate PublishedDlrm2021Aggregate();

// A JSON report of the fit (options, published vs pool aggregates, rows and pooling
// max/mean/min, per-table exponents and expected distinct rows), for docs and plots.
std::string SyntheticPoolFitJson(const SyntheticPool& pool, const SyntheticPoolOptions& options);

// Generates the pool and writes it to `out_path` (atomically) and the fit report beside it:
// "<out_path without .json>.fit.json". The entry point of `shardplan-offline tables
// generate-pool --seed S --out F`.
absl::Status WriteSyntheticPool(const SyntheticPoolOptions& options, const std::string& out_path);

}  // namespace shardplan

#endif  // SHARDPLAN_LAB_DATA_SYNTHETIC_POOL_H_
