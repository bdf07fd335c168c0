// LoadComputeDataset: compute cost records -> table feature rows (datasets.h).
#include <cmath>
#include <map>
#include <set>
#include <span>

#include "absl/strings/str_cat.h"
#include "costmodels/neural/table_features.h"
#include "lab/training/datasets.h"
#include "lab/training/record_lines.h"

namespace shardplan::training {

namespace {

// What tells a shard's config apart besides its (table, dim): 0 for a whole table.
int64_t ShardVariant(const CostShard& shard) {
  if (shard.type == ShardingType::kTableWise || shard.type == ShardingType::kColumnWise) return 0;
  return (static_cast<int64_t>(shard.type) + 1) << 56 |
         static_cast<int64_t>(shard.group_size & 0xffff) << 40 | (shard.rows & ((int64_t{1} << 40) - 1));
}

}  // namespace

absl::StatusOr<ComputeDataset> LoadComputeDataset(const std::string& path,
                                                  const PoolLoader& load_pool,
                                                  ShardFeatureSet feature_set) {
  ComputeDataset data;
  data.path = path;
  data.feature_set = feature_set;
  data.width = NumShardFeatures(feature_set);
  const bool served = feature_set == ShardFeatureSet::kServed;
  data.row_offsets.push_back(0);
  const std::vector<std::string> kinds =
      served ? std::vector<std::string>{"compute", "shards"} : std::vector<std::string>{"compute"};
  // Pools by (path, sha256): loaded and verified once.
  std::map<std::pair<std::string, std::string>, HashedPool> pools;
  const absl::Status status = ForEachRecord(
      path, kinds, [&](int64_t line, const CostRecord& record) -> absl::Status {
        if (data.labels.empty()) {
          data.backend = record.backend;
          data.hardware_profile = record.hardware_profile;
        }
        const auto key = std::make_pair(record.pool, record.pool_sha256);
        auto it = pools.find(key);
        if (it == pools.end()) {
          absl::StatusOr<HashedPool> pool = load_pool(record.pool);
          if (!pool.ok()) {
            return absl::Status(pool.status().code(),
                                absl::StrCat(path, ":", line, ": pool '", record.pool,
                                             "': ", pool.status().message()));
          }
          if (pool->sha256 != record.pool_sha256) {
            return absl::FailedPreconditionError(absl::StrCat(
                path, ":", line, ": pool_sha256 ", record.pool_sha256, " is not the SHA-256 ",
                pool->sha256, " of pool '", record.pool,
                "' (the pool changed since the data was collected)"));
          }
          it = pools.emplace(key, *std::move(pool)).first;
        }
        const std::vector<Table>& tables = it->second.pool.tables;
        if (!std::isfinite(record.ms)) return RecordError(path, line, "ms: not finite");
        std::vector<CostShard> shards = record.shards;
        const char* field = "shards";
        if (record.kind == "compute") {
          field = "tables";
          for (const auto& [index, dim] : record.tables) {
            shards.push_back(CostShard{.table = index, .dim = dim});
          }
        }
        if (shards.empty()) return RecordError(path, line, absl::StrCat(field, ": empty"));
        const int64_t first_row = static_cast<int64_t>(data.row_keys.size());
        std::set<int64_t> calls;
        for (size_t t = 0; t < shards.size(); ++t) {
          const int32_t index = shards[t].table;
          const int32_t dim = shards[t].dim;
          if (index < 0 || static_cast<size_t>(index) >= tables.size()) {
            return RecordError(path, line,
                               absl::StrCat(field, "[", t, "]: pool index ", index,
                                            " is outside the pool's ", tables.size(), " tables"));
          }
          if (dim <= 0) {
            return RecordError(path, line, absl::StrCat(field, "[", t, "]: dim ", dim, " <= 0"));
          }
          const size_t at = data.features.size();
          if (!served) {
            data.features.resize(at + kNumTableFeatures);
            TableFeatures(tables[index], dim,
                          std::span<float, kNumTableFeatures>(data.features.data() + at,
                                                              kNumTableFeatures));
            data.row_keys.emplace_back(index, dim);
            continue;
          }
          const CostShard& shard = shards[t];
          const bool whole = record.kind == "compute";
          const ShardView view{.table = &tables[index],
                               .rows = whole ? tables[index].rows : shard.rows,
                               .columns = dim,
                               .sharding = shard.type,
                               .group_size = shard.group_size};
          if (view.rows <= 0 && shard.type != ShardingType::kDataParallel) continue;
          calls.insert(KernelCallKey(view));
          data.features.resize(at + kNumServedFeatures);
          ServedShardFeatures(view, std::span<float, kNumServedFeatures>(
                                        data.features.data() + at, kNumServedFeatures));
          data.row_keys.emplace_back(index, dim);
          data.row_variants.push_back(whole ? 0 : ShardVariant(shard));
        }
        if (static_cast<int64_t>(data.row_keys.size()) == first_row) {
          return absl::OkStatus();  // only empty blocks: nothing the model describes
        }
        if (calls.size() > 1) ++data.multi_call_samples;
        data.row_offsets.push_back(static_cast<int64_t>(data.row_keys.size()));
        data.labels.push_back(static_cast<float>(record.ms));
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return data;
}

absl::Status AppendComputeDataset(ComputeDataset& data, const ComputeDataset& more) {
  if (data.backend != more.backend || data.hardware_profile != more.hardware_profile ||
      data.feature_set != more.feature_set) {
    return absl::InvalidArgumentError(absl::StrCat(
        data.path, " and ", more.path, ": different backends, profiles or feature sets ('",
        data.backend, "/", data.hardware_profile, "' and '", more.backend, "/",
        more.hardware_profile, "'); train them apart"));
  }
  const int64_t row_base = static_cast<int64_t>(data.row_keys.size());
  data.path = absl::StrCat(data.path, ",", more.path);
  data.multi_call_samples += more.multi_call_samples;
  data.features.insert(data.features.end(), more.features.begin(), more.features.end());
  data.row_keys.insert(data.row_keys.end(), more.row_keys.begin(), more.row_keys.end());
  if (!data.row_variants.empty() || !more.row_variants.empty()) {
    data.row_variants.resize(static_cast<size_t>(row_base), 0);
    if (more.row_variants.empty()) {
      data.row_variants.resize(data.row_keys.size(), 0);
    } else {
      data.row_variants.insert(data.row_variants.end(), more.row_variants.begin(),
                               more.row_variants.end());
    }
  }
  for (size_t i = 1; i < more.row_offsets.size(); ++i) {
    data.row_offsets.push_back(row_base + more.row_offsets[i]);
  }
  data.labels.insert(data.labels.end(), more.labels.begin(), more.labels.end());
  return absl::OkStatus();
}

}  // namespace shardplan::training
