#include "planner/algorithms/oper/oper_layout.h"

#include <algorithm>

#include "planner/domain/row_layout.h"

namespace shardplan::oper {

std::vector<TableSharding> OperShardings(const std::vector<PartitionTable>& tables,
                                         const std::vector<Partition>& partitions,
                                         const Copies& copies, const Topology& topology) {
  std::vector<TableSharding> shardings(tables.size());
  std::vector<std::vector<int32_t>> partitions_of(tables.size());  // in group order
  for (size_t t = 0; t < tables.size(); ++t) {
    shardings[t].table = tables[t].table->name;
    shardings[t].sharding_type = ShardingType::kRowWise;
    // (C1) Ranks only where the table's profile gives them; else its ids, all equally hot.
    shardings[t].row_order =
        tables[t].table->access_profile.has_curve() ? RowOrder::kFrequencyRank : RowOrder::kNatural;
  }
  for (int32_t p = 0; p < static_cast<int32_t>(partitions.size()); ++p) {
    const Partition& partition = partitions[p];
    const Table& table = *tables[partition.table].table;
    std::vector<int32_t> holders = copies.devices[p];
    std::sort(holders.begin(), holders.end());
    for (int32_t device : holders) {
      shardings[partition.table].shards.push_back(Shard{.device = device,
                                                        .row_offset = partition.rank_begin,
                                                        .row_count = partition.rows(),
                                                        .column_offset = 0,
                                                        .column_count = table.dim});
    }
    partitions_of[partition.table].push_back(p);
  }
  // Routes where the fetch path is not the default one.
  for (size_t t = 0; t < tables.size(); ++t) {
    TableSharding& sharding = shardings[t];
    const TableLayout layout = LayoutOf(*tables[t].table, sharding);
    const std::vector<std::vector<int32_t>> serving = ServingShards(layout, topology);
    for (size_t g = 0; g < layout.groups.size(); ++g) {
      const RowGroup& group = layout.groups[g];
      const std::vector<int32_t>& path = copies.path[partitions_of[t][g]];
      for (int32_t requester = 0; requester < topology.num_devices(); ++requester) {
        const int32_t wanted = path[requester];
        if (sharding.shards[serving[g][requester]].device == wanted) continue;
        for (int32_t i = 0; i < group.replicas(); ++i) {
          if (group.devices[i] == wanted) {
            sharding.routes.push_back(RowRoute{.requester = requester, .shard = group.shards[i]});
          }
        }
      }
    }
  }
  return shardings;
}

}  // namespace shardplan::oper
