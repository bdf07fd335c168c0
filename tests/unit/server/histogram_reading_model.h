#ifndef SHARDPLAN_TESTS_UNIT_SERVER_HISTOGRAM_READING_MODEL_H_
#define SHARDPLAN_TESTS_UNIT_SERVER_HISTOGRAM_READING_MODEL_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "costmodels/model_registry.h"
#include "planner/domain/cost_model.h"

namespace shardplan::server_test {

// A stand-in for a neural bundle: comm models for `device_counts` (none: no interconnect, any
// count), costs that read the access histograms, and a record of any table it saw without one.
class HistogramReadingModel final : public CostModel {
 public:
  // Trained, it says, on tables of at most `max_rows` rows.
  // With `every_type`, it costs every sharding type (its collectives free), as the served
  // learned models do, but still no routed layout.
  HistogramReadingModel(std::string id, std::vector<int32_t> device_counts,
                        int64_t max_rows = std::numeric_limits<int64_t>::max(),
                        bool every_type = false)
      : id_(std::move(id)),
        device_counts_(std::move(device_counts)),
        max_rows_(max_rows),
        every_type_(every_type) {}

  std::string id() const override { return id_; }
  absl::Status CheckSupports(const Task& task) const override {
    if (device_counts_.empty() ||
        std::count(device_counts_.begin(), device_counts_.end(), task.topology.num_devices())) {
      return absl::OkStatus();
    }
    return absl::FailedPreconditionError("no comm models for that many devices");
  }
  bool ReadsAccessHistograms() const override { return true; }
  bool CostsShardingType(ShardingType type) const override {
    return every_type_ || IsColumnLevel(type);
  }
  CollectiveCosts CostCollectives(const CostContext& context,
                                  std::span<const CollectiveDemand>) const override {
    const size_t n = context.topology->num_devices();
    return {std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
  }
  double ComputeCost(const CostContext&, std::span<const ShardView> shards) const override {
    double cost = 0.0;
    for (const ShardView& shard : shards) {
      if (shard.table->access_bins.empty()) saw_table_without_bins_ = true;
      cost += shard.columns * shard.table->pooling_factor *
              (shard.table->access_bins.empty() ? 0.0 : 1.0 + shard.table->access_bins[0]);
    }
    return cost;
  }
  std::vector<double> BackwardCommCosts(const CostContext&,
                                        std::span<const int64_t> dim_sums) const override {
    return std::vector<double>(dim_sums.size(), 0.0);
  }
  std::vector<double> ForwardCommCosts(const CostContext&, std::span<const int64_t> dim_sums,
                                       std::span<const double>) const override {
    return std::vector<double>(dim_sums.size(), 0.0);
  }
  std::vector<std::string> OutsideTrainingRange(const Table& table) const override {
    if (table.rows <= max_rows_) return {};
    return {absl::StrCat("row ", table.rows, " (trained on 1 to ", max_rows_, ")")};
  }
  bool saw_table_without_bins() const { return saw_table_without_bins_; }

 private:
  std::string id_;
  std::vector<int32_t> device_counts_;
  int64_t max_rows_;
  bool every_type_;
  mutable std::atomic<bool> saw_table_without_bins_{false};
};

// Adds a HistogramReadingModel to `models` as name@version, a "neural" bundle for
// `device_counts` trained on tables of at most `max_rows` rows.
inline absl::Status AddHistogramReadingModel(
    ModelRegistry& models, const std::string& name, const std::string& version,
    std::vector<int32_t> device_counts, int64_t max_rows = std::numeric_limits<int64_t>::max()) {
  ModelManifest manifest;
  manifest.name = name;
  manifest.version = version;
  manifest.kind = "neural";
  manifest.device_counts = device_counts;
  return models.Add(manifest, std::make_shared<const HistogramReadingModel>(
                                  manifest.id(), std::move(device_counts), max_rows));
}

}  // namespace shardplan::server_test

#endif  // SHARDPLAN_TESTS_UNIT_SERVER_HISTOGRAM_READING_MODEL_H_
