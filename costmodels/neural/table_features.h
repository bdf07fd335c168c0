#ifndef SHARDPLAN_COSTMODELS_NEURAL_TABLE_FEATURES_H_
#define SHARDPLAN_COSTMODELS_NEURAL_TABLE_FEATURES_H_

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/domain/sharding_semantics.h"
#include "planner/domain/table.h"

namespace shardplan {

// Features of one (table, dim) for the neural compute model.
inline constexpr int kNumTableFeatures = 20;

// The reference's feature names in its order: the keys sorted lexicographically
// (docs/design.md section 7.2):
//   bin_0, bin_1, bin_10 ... bin_16, bin_2 ... bin_9, dim, pooling_factor, row
const std::array<std::string_view, kNumTableFeatures>& TableFeatureNames();

// Writes the raw (unnormalised) features of `table` seen with `dim` columns into `out`
// (kNumTableFeatures floats). `row` is the table's row count and `pooling_factor` is raw, as in
// the reference. An empty access histogram gives 17 zero bins.
void TableFeatures(const Table& table, int32_t dim, std::span<float, kNumTableFeatures> out);

// What a compute model is fed per shard (docs/cost-models.md, "Compute feature sets"):
//   kReference  the reference's 20 TableFeatures of the shard's table at the shard's columns
//               (`row` the table's rows): costs TABLE_WISE and COLUMN_WISE shards only;
//   kServed     what the shard serves, so that every sharding type (and later frequency-ranked
//               row groups) shares one description: the same 20 names, with `row` the rows the
//               shard holds and `pooling_factor` the lookups it serves per sample it produces
//               (pooling factor x LookupShare / BatchShare), then `batch_share` (BatchShare).
//               The bins are its table's: a block of hashed rows holds every access class in
//               proportion, and a replica serves a batch slice of the same ids, as the
//               simulator sees them (groundtruth/shard_kernels.h). For a TABLE_WISE or
//               COLUMN_WISE shard the first 20 are TableFeatures and batch_share is 1.
enum class ShardFeatureSet { kReference, kServed };
inline constexpr int kNumServedFeatures = kNumTableFeatures + 1;
// The most features any set has: the memo key's and the scratch rows' width.
inline constexpr int kMaxComputeFeatures = kNumServedFeatures;
int NumShardFeatures(ShardFeatureSet set);
// "reference" / "served", and back (false for another name).
const char* ShardFeatureSetName(ShardFeatureSet set);
bool ParseShardFeatureSet(std::string_view name, ShardFeatureSet* set);
// The feature names of `set` in order (TableFeatureNames, then "batch_share" for kServed).
std::vector<std::string> ShardFeatureNames(ShardFeatureSet set);

// Writes the kServed features of `shard` into `out`. A DATA_PARALLEL replica's batch share is
// 1 / its replica count (one replica per device).
void ServedShardFeatures(const ShardView& shard, std::span<float, kNumServedFeatures> out);

// How a compute model turns raw features into its inputs before z-scoring them
// (docs/cost-models.md, "Compute feature sets"):
//   kRaw  the reference's: as TableFeatures writes them (imports and every shipped bundle);
//   kLog  pooling_factor -> ln(1 + pooling_factor), row -> log10(max(row, 1)), so that small
//         tables are told apart (raw rows put every table under 100K rows within 0.03 sigma of
//         each other); the bins and dim stay as they are. Bundles record it
//         (compute.feature_transform, format 2).
enum class FeatureTransform { kRaw, kLog };
// "raw" / "log", and back (false for another name).
const char* FeatureTransformName(FeatureTransform transform);
bool ParseFeatureTransform(std::string_view name, FeatureTransform* transform);
// Applies `transform` to one row of raw features in place.
void TransformFeatures(FeatureTransform transform, std::span<float, kNumTableFeatures> row);

// The raw features a compute model was trained on, feature by feature (TableFeatures order):
// what the manifest records so that the server can say when a table lies outside it.
struct TableFeatureRange {
  std::vector<double> min;  // kNumTableFeatures values
  std::vector<double> max;
  friend bool operator==(const TableFeatureRange&, const TableFeatureRange&) = default;
};

// The range of the rows of `features` (rows of kNumTableFeatures raw floats); min > max for
// every feature when there are none.
TableFeatureRange RangeOfFeatures(std::span<const float> features);

// The features of `table` seen with `dim` columns that lie outside `range`, as
// "bin_15 1 (trained on 0 to 0.104)", at most `limit` of them, the farthest out first (in units
// of the range's width); empty when all are inside.
std::vector<std::string> FeaturesOutsideRange(const Table& table, int32_t dim,
                                              const TableFeatureRange& range, size_t limit = 3);

// Z-score with the training set's statistics: x' = (x - mean) / (std + 1e-6).
class FeatureNormalizer {
 public:
  static constexpr double kStdEpsilon = 1e-6;

  // INVALID_ARGUMENT when the sizes differ, are zero, or a std is negative or not finite.
  static absl::StatusOr<FeatureNormalizer> Create(std::vector<double> means,
                                                  std::vector<double> stds);

  int size() const { return static_cast<int>(means_.size()); }
  const std::vector<double>& means() const { return means_; }
  const std::vector<double>& stds() const { return stds_; }

  // Normalises `values` (size() floats) in place.
  void Apply(std::span<float> values) const;

 private:
  FeatureNormalizer(std::vector<double> means, std::vector<double> stds);

  std::vector<double> means_;
  std::vector<double> stds_;
  std::vector<float> shift_;  // mean
  std::vector<float> scale_;  // 1 / (std + 1e-6)
};

}  // namespace shardplan

#endif  // SHARDPLAN_COSTMODELS_NEURAL_TABLE_FEATURES_H_
