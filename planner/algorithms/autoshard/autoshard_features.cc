#include "planner/algorithms/autoshard/autoshard_features.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "planner/domain/memory.h"
#include "planner/estimators/typical_access.h"

namespace shardplan {
namespace {

constexpr const char* kNormalizedNames[kAutoShardNormalized] = {"dims", "rows", "pooling_factors"};
constexpr double kFeatureBytesPerGb = 1024.0 * 1024.0 * 1024.0;

double RawNormalized(const Table& table, int k) {
  switch (k) {
    case 0:
      return table.dim;
    case 1:
      return static_cast<double>(table.rows);
    default:
      return table.pooling_factor;
  }
}

std::vector<std::pair<std::string, bool AutoShardAblation::*>> AblationFields() {
  return {{"dim", &AutoShardAblation::dim},
          {"rows", &AutoShardAblation::rows},
          {"pooling_factor", &AutoShardAblation::pooling_factor},
          {"size", &AutoShardAblation::size},
          {"distribution", &AutoShardAblation::distribution},
          {"cost_model", &AutoShardAblation::cost_model}};
}

}  // namespace

const char* AutoShardNormalizedName(int k) { return kNormalizedNames[k]; }

AutoShardFeatureStats ComputeAutoShardFeatureStats(std::span<const Task> tasks) {
  AutoShardFeatureStats stats;
  for (int k = 0; k < kAutoShardNormalized; ++k) {
    double sum = 0.0;
    int64_t count = 0;
    for (const Task& task : tasks) {
      for (const Table& table : task.tables) {
        sum += RawNormalized(table, k);
        ++count;
      }
    }
    const double mean = count > 0 ? sum / static_cast<double>(count) : 0.0;
    double squares = 0.0;
    for (const Task& task : tasks) {
      for (const Table& table : task.tables) {
        const double d = RawNormalized(table, k) - mean;
        squares += d * d;
      }
    }
    stats.mean[k] = mean;
    stats.stddev[k] = count > 0 ? std::sqrt(squares / static_cast<double>(count)) : 0.0;
  }
  return stats;
}

std::map<std::string, double> AutoShardConstants(const AutoShardFeatureConfig& config) {
  std::map<std::string, double> constants;
  for (int k = 0; k < kAutoShardNormalized; ++k) {
    constants[absl::StrCat("feature_mean.", kNormalizedNames[k])] = config.stats.mean[k];
    constants[absl::StrCat("feature_std.", kNormalizedNames[k])] = config.stats.stddev[k];
  }
  for (const auto& [name, field] : AblationFields()) {
    constants[absl::StrCat("ablate.", name)] = config.ablation.*field ? 1.0 : 0.0;
  }
  return constants;
}

absl::StatusOr<AutoShardFeatureConfig> AutoShardConfigFromConstants(
    const std::map<std::string, double>& constants) {
  AutoShardFeatureConfig config;
  size_t known = 0;
  auto read = [&](const std::string& name) -> absl::StatusOr<double> {
    const auto it = constants.find(name);
    if (it == constants.end()) {
      return absl::FailedPreconditionError(absl::StrCat("constant ", name, " is missing"));
    }
    if (!std::isfinite(it->second)) {
      return absl::FailedPreconditionError(absl::StrCat("constant ", name, " is not finite"));
    }
    ++known;
    return it->second;
  };
  for (int k = 0; k < kAutoShardNormalized; ++k) {
    absl::StatusOr<double> mean = read(absl::StrCat("feature_mean.", kNormalizedNames[k]));
    if (!mean.ok()) return mean.status();
    const std::string std_name = absl::StrCat("feature_std.", kNormalizedNames[k]);
    absl::StatusOr<double> stddev = read(std_name);
    if (!stddev.ok()) return stddev.status();
    if (*stddev < 0.0) {
      return absl::FailedPreconditionError(
          absl::StrCat("constant ", std_name, " is ", *stddev, ", a standard deviation >= 0"));
    }
    config.stats.mean[k] = *mean;
    config.stats.stddev[k] = *stddev;
  }
  for (const auto& [name, field] : AblationFields()) {
    const std::string full = absl::StrCat("ablate.", name);
    absl::StatusOr<double> value = read(full);
    if (!value.ok()) return value.status();
    if (*value != 0.0 && *value != 1.0) {
      return absl::FailedPreconditionError(
          absl::StrCat("constant ", full, " is ", *value, ", not 0 or 1"));
    }
    config.ablation.*field = *value == 1.0;
  }
  if (known != constants.size()) {
    for (const auto& [name, value] : constants) {
      if (!AutoShardConstants(config).contains(name)) {
        return absl::FailedPreconditionError(
            absl::StrCat("constant ", name, " is not one AutoShard reads"));
      }
    }
  }
  return config;
}

double AutoShardTableSizeGb(const Table& table, const MemoryOptions& memory) {
  return static_cast<double>(TableMemoryBytes(table, memory)) / kFeatureBytesPerGb;
}

std::vector<float> AutoShardTableFeatures(const Task& task, const AutoShardFeatureConfig& config) {
  const AutoShardAblation& ablate = config.ablation;
  const bool zeroed[kAutoShardNormalized] = {ablate.dim, ablate.rows, ablate.pooling_factor};
  std::vector<float> features(task.tables.size() * kAutoShardFeatures, 0.0f);
  for (size_t i = 0; i < task.tables.size(); ++i) {
    const Table& table = task.tables[i];
    float* row = features.data() + i * kAutoShardFeatures;
    for (int k = 0; k < kAutoShardNormalized; ++k) {
      if (zeroed[k]) continue;
      const double centred = RawNormalized(table, k) - config.stats.mean[k];
      const double stddev = config.stats.stddev[k];
      row[k] = static_cast<float>(stddev == 0.0 ? centred : centred / stddev);
    }
    if (!ablate.size) row[3] = static_cast<float>(AutoShardTableSizeGb(table, task.memory));
    if (ablate.distribution) continue;
    const std::vector<double> bins = table.access_bins.size() == static_cast<size_t>(kNumAccessBins)
                                         ? table.access_bins
                                         : TypicalAccessBins(table.rows, table.pooling_factor);
    for (int j = 0; j < kNumAccessBins; ++j) row[4 + j] = static_cast<float>(bins[j]);
  }
  return features;
}

}  // namespace shardplan
