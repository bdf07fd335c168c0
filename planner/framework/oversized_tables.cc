#include "planner/framework/oversized_tables.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "planner/domain/memory.h"

namespace shardplan {
namespace {

constexpr ShardingType kAllTypes[] = {ShardingType::kTableWise, ShardingType::kColumnWise,
                                      ShardingType::kRowWise, ShardingType::kDataParallel,
                                      ShardingType::kTableRowWise};

bool Contains(const std::vector<ShardingType>& types, ShardingType type) {
  return std::find(types.begin(), types.end(), type) != types.end();
}

bool Allows(const Table& table, ShardingType type) {
  return table.allowed_sharding_types.empty() || Contains(table.allowed_sharding_types, type);
}

std::string Names(const std::vector<ShardingType>& types) {
  std::vector<std::string> names;
  for (ShardingType type : types) names.push_back(ShardingTypeName(type));
  return absl::StrJoin(names, ", ");
}

// "A", "A or B", "A, B or C".
std::string Alternatives(const std::vector<ShardingType>& types) {
  if (types.size() < 2) return Names(types);
  const std::vector<ShardingType> head(types.begin(), types.end() - 1);
  return absl::StrCat(Names(head), " or ", ShardingTypeName(types.back()));
}

// Whether shards of `type` can hold a table of `bytes` that no single device holds. Row shards
// spread it over every device (ROW_WISE) or one host's (TABLE_ROW_WISE); whether the planner's
// blocks then fit each device is the planner's to say, with the device it names.
bool CanHold(ShardingType type, const Table& table, int64_t bytes, const Task& task,
             int64_t largest_device_bytes) {
  const Topology& topology = task.topology;
  switch (type) {
    case ShardingType::kRowWise: {
      int64_t total = 0;
      for (int64_t capacity : topology.memory_bytes) total = AddBytes(total, capacity);
      return bytes <= total;
    }
    case ShardingType::kTableRowWise: {
      std::vector<int64_t> host_bytes(static_cast<size_t>(topology.num_hosts()), 0);
      for (int d = 0; d < topology.num_devices(); ++d) {
        int64_t& host = host_bytes[static_cast<size_t>(topology.host_of(d))];
        host = AddBytes(host, topology.memory_bytes[static_cast<size_t>(d)]);
      }
      return bytes <= *std::max_element(host_bytes.begin(), host_bytes.end());
    }
    case ShardingType::kColumnWise:
      return table.dim >= 2 * kNarrowestColumnShard &&
             ShardMemoryBytes(table, table.rows, kNarrowestColumnShard, task.memory) <=
                 largest_device_bytes;
    case ShardingType::kTableWise:
    case ShardingType::kDataParallel:
      return false;  // the whole table on one device (every device, for a replica)
  }
  return false;
}

}  // namespace

std::vector<OversizedTable> OversizedTables(const Task& task) {
  std::vector<OversizedTable> out;
  const std::vector<int64_t>& capacity = task.topology.memory_bytes;
  if (capacity.empty()) return out;
  const int largest =
      static_cast<int>(std::max_element(capacity.begin(), capacity.end()) - capacity.begin());
  const int64_t largest_bytes = capacity[static_cast<size_t>(largest)];
  for (size_t t = 0; t < task.tables.size(); ++t) {
    const Table& table = task.tables[t];
    const int64_t bytes = TableMemoryBytes(table, task.memory);
    if (bytes <= largest_bytes) continue;
    OversizedTable oversized{.index = t,
                             .bytes = bytes,
                             .largest_device = largest,
                             .largest_device_bytes = largest_bytes,
                             .holders = {}};
    for (ShardingType type : kAllTypes) {
      if (CanHold(type, table, bytes, task, largest_bytes)) oversized.holders.push_back(type);
    }
    out.push_back(std::move(oversized));
  }
  return out;
}

std::vector<ShardingType> UsableHolders(const OversizedTable& oversized, const Task& task,
                                        const AlgorithmInfo& algorithm, const CostModel* model) {
  std::vector<ShardingType> usable;
  for (ShardingType type : oversized.holders) {
    if (Allows(task.tables[oversized.index], type) && Contains(algorithm.sharding_types, type) &&
        (model == nullptr || model->CostsShardingType(type))) {
      usable.push_back(type);
    }
  }
  return usable;
}

absl::Status CheckOversizedTables(const AlgorithmInfo& algorithm, const CostModel* model,
                                  const Task& task) {
  for (const OversizedTable& oversized : OversizedTables(task)) {
    if (!UsableHolders(oversized, task, algorithm, model).empty()) continue;
    const Table& table = task.tables[oversized.index];
    std::string message = absl::StrCat("task is infeasible for ", algorithm.name, ": table \"",
                                       table.name, "\" needs ", FormatGiB(oversized.bytes),
                                       " but the largest device (device ", oversized.largest_device,
                                       ") holds ", FormatGiB(oversized.largest_device_bytes));
    if (oversized.holders.empty()) {
      absl::StrAppend(&message, ", and no sharding type can hold it on these devices");
      return absl::FailedPreconditionError(message);
    }
    // Why each type that would hold it is out: the table excludes it, else the algorithm does
    // not place it, else the model cannot cost it.
    std::vector<ShardingType> excluded, unplaced, uncosted;
    for (ShardingType type : oversized.holders) {
      if (!Allows(table, type)) {
        excluded.push_back(type);
      } else if (!Contains(algorithm.sharding_types, type)) {
        unplaced.push_back(type);
      } else {
        uncosted.push_back(type);
      }
    }
    std::vector<std::string> reasons;
    if (!excluded.empty()) {
      reasons.push_back(absl::StrCat("tables[", oversized.index,
                                     "].allowed_sharding_types excludes ", Names(excluded),
                                     " (it allows ", Names(table.allowed_sharding_types), ")"));
    }
    if (!unplaced.empty()) {
      reasons.push_back(absl::StrCat(algorithm.name, " does not place ", Alternatives(unplaced),
                                     " shards (it places ", Names(algorithm.sharding_types), ")"));
    }
    if (!uncosted.empty() && model != nullptr) {
      reasons.push_back(absl::StrCat("cost model ", model->id(), " cannot cost ",
                                     Alternatives(uncosted), " shards"));
    }
    absl::StrAppend(&message, "; only ", Alternatives(oversized.holders),
                    " shards would hold it, and ", absl::StrJoin(reasons, "; "));
    return absl::FailedPreconditionError(message);
  }
  return absl::OkStatus();
}

}  // namespace shardplan
