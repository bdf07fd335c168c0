#include "planner/domain/hot_row_ids.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "planner/domain/row_layout.h"

namespace shardplan {

std::vector<HotRowIdsShortfall> AttachHotRowIds(const Task& task, Plan& plan) {
  std::unordered_map<std::string_view, int> index_of;
  for (size_t t = 0; t < task.tables.size(); ++t) index_of.emplace(task.tables[t].name, t);
  std::vector<HotRowIdsShortfall> shortfalls;
  for (TableSharding& sharding : plan.tables) {
    sharding.hot_row_ids.clear();
    const auto it = index_of.find(sharding.table);
    if (it == index_of.end() || sharding.row_order != RowOrder::kFrequencyRank) continue;
    const Table& table = task.tables[it->second];
    if (!table.access_profile.top_k || table.access_profile.top_k->top_ids.empty()) continue;
    int64_t replicated_end = 0;
    for (const RowGroup& group : LayoutOf(table, sharding).groups) {
      if (group.replicas() > 1) {
        replicated_end = std::max(replicated_end, group.row_offset + group.row_count);
      }
    }
    const std::vector<int64_t>& ids = table.access_profile.top_k->top_ids;
    const int64_t known = static_cast<int64_t>(ids.size());
    sharding.hot_row_ids.assign(ids.begin(), ids.begin() + std::min(replicated_end, known));
    if (replicated_end > known) {
      shortfalls.push_back({.table = table.name,
                            .table_index = it->second,
                            .replicated_end = replicated_end,
                            .known_ids = known});
    }
  }
  return shortfalls;
}

}  // namespace shardplan
