// LoadComputeDataset: compute cost records -> table feature rows (datasets.h).
#include <cmath>
#include <map>
#include <span>

#include "absl/strings/str_cat.h"
#include "costmodels/neural/table_features.h"
#include "lab/training/datasets.h"
#include "lab/training/record_lines.h"

namespace shardplan::training {

absl::StatusOr<ComputeDataset> LoadComputeDataset(const std::string& path,
                                                  const PoolLoader& load_pool) {
  ComputeDataset data;
  data.path = path;
  data.row_offsets.push_back(0);
  // Pools by (path, sha256): loaded and verified once.
  std::map<std::pair<std::string, std::string>, HashedPool> pools;
  const absl::Status status = ForEachRecord(
      path, "compute", [&](int64_t line, const CostRecord& record) -> absl::Status {
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
        if (record.tables.empty()) return RecordError(path, line, "tables: empty");
        if (!std::isfinite(record.ms)) return RecordError(path, line, "ms: not finite");
        for (size_t t = 0; t < record.tables.size(); ++t) {
          const auto [index, dim] = record.tables[t];
          if (index < 0 || static_cast<size_t>(index) >= tables.size()) {
            return RecordError(path, line,
                               absl::StrCat("tables[", t, "]: pool index ", index,
                                            " is outside the pool's ", tables.size(), " tables"));
          }
          if (dim <= 0) {
            return RecordError(path, line, absl::StrCat("tables[", t, "]: dim ", dim, " <= 0"));
          }
          const size_t at = data.features.size();
          data.features.resize(at + kNumTableFeatures);
          TableFeatures(tables[index], dim,
                        std::span<float, kNumTableFeatures>(data.features.data() + at,
                                                            kNumTableFeatures));
          data.row_keys.emplace_back(index, dim);
        }
        data.row_offsets.push_back(static_cast<int64_t>(data.row_keys.size()));
        data.labels.push_back(static_cast<float>(record.ms));
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return data;
}

}  // namespace shardplan::training
