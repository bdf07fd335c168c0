#ifndef SHARDPLAN_BENCH_DATASET_TABLES_H_
#define SHARDPLAN_BENCH_DATASET_TABLES_H_

// Embedding tables shaped like a public data set's categorical features: one table per feature
// with the feature's published cardinality as rows, a pooling factor, and the access histogram
// of a Zipf row distribution (planner/estimators/zipf_access_model.h) whose exponent is drawn
// per table. The data sets are JSON specs under data/datasets/ (criteo_kaggle.json, avazu.json,
// criteo_terabyte.json). docs/benchmarks.md, "Criteo-shaped suites".

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/domain/table.h"
#include "planner/domain/task.h"

namespace shardplan::bench {

// data/datasets/<name>.json: {"format_version": 1, "name": "...", "source": "<citation>",
// "default_dim": 16, "cardinalities": [rows of feature 1, ...], "feature_names": [optional]}.
// Tables are named feature_names[i], or C<i+1> (Criteo's names) when the file gives none.
struct DatasetSpec {
  std::string name;
  std::string source;
  int32_t default_dim = 0;
  std::vector<int64_t> cardinalities;
  std::vector<std::string> feature_names;
};

// INVALID_ARGUMENT naming the file and the field ("spec.json: cardinalities[3]: ...").
absl::StatusOr<DatasetSpec> DatasetSpecFromJsonText(const std::string& text,
                                                    const std::string& path);
absl::StatusOr<DatasetSpec> LoadDatasetSpec(const std::string& path);

struct ZipfTableOptions {
  int32_t dim = 16;  // 0 leaves dims unset (a table pool has none)
  double pooling_factor = 1.0;
  // Table i's exponent is uniform in [min, max], drawn from SampleRng(seed, i); min == max
  // gives every table that exponent.
  double min_exponent = 0.8;
  double max_exponent = 1.4;
  int64_t batch_size = kDefaultBatchSize;  // the histograms' batch
};

struct DatasetTables {
  std::vector<Table> tables;
  std::vector<double> zipf_exponents;  // per table
};

// The spec's features as tables under `options` and `seed`. INVALID_ARGUMENT naming the option
// for exponents outside [kMinZipfExponent, kMaxZipfExponent] or min > max, a pooling factor
// <= 0, a negative dim or a batch < 1.
absl::StatusOr<DatasetTables> MakeDatasetTables(const DatasetSpec& spec,
                                                const ZipfTableOptions& options, uint64_t seed);

// The 17-bin access histogram of one batch of `batch_size` samples x `pooling_factor` lookups
// drawn from a pure Zipf(`exponent`) over all `rows` rows: ExpectedZipfAccess's expected rows
// per bin over its expected distinct rows, each bin rounded to 1e-6 as the pool files store
// them.
std::vector<double> ZipfAccessBins(int64_t rows, double pooling_factor, double exponent,
                                   int64_t batch_size);

}  // namespace shardplan::bench

#endif  // SHARDPLAN_BENCH_DATASET_TABLES_H_
