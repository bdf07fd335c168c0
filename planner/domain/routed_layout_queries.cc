#include "planner/domain/routed_layout_queries.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "planner/domain/table_access.h"
#include "planner/domain/traffic_matrix.h"

namespace shardplan {
namespace {

// One tier's exchange: bytes per (from, to), in a deterministic order.
using PairMap = std::map<std::pair<int32_t, int32_t>, double>;

CollectiveDemand ExchangeDemand(const Table& table, const TableSharding& sharding,
                                const Topology& topology, int32_t tier, int32_t columns,
                                Pass pass, const PairMap& pairs) {
  CollectiveDemand demand;
  demand.collective = Collective::kAllToAll;
  demand.pass = pass;
  demand.sharding = sharding.sharding_type;
  demand.table = &table;
  demand.columns = columns;
  demand.tier = tier;
  std::set<int32_t> peers, senders;
  std::map<int32_t, double> sent;
  for (const auto& [route, bytes] : pairs) {
    auto [from, to] = route;
    if (pass == Pass::kBackward) std::swap(from, to);  // gradients retrace the outputs
    demand.pairs.push_back(PairBytes{.from = from, .to = to, .bytes = bytes});
    peers.insert(from);
    peers.insert(to);
    senders.insert(from);
    sent[from] += bytes;
    if (topology.host_of(from) != topology.host_of(to)) demand.crosses_hosts = true;
  }
  demand.peers.assign(peers.begin(), peers.end());
  demand.devices.assign(senders.begin(), senders.end());
  for (const auto& [from, bytes] : sent) demand.bytes = std::max(demand.bytes, bytes);
  return demand;
}

}  // namespace

bool RowsAreRanks(const Table& table, const TableSharding& sharding) {
  return sharding.row_order == RowOrder::kFrequencyRank ||
         table.access_profile.rows_in_rank_order;
}

RowRangeAccess AccessOfRows(const Table& table, const TableSharding& sharding,
                            const RankFrequencyCurve& curve, int64_t begin, int64_t end) {
  if (!RowsAreRanks(table, sharding)) {
    return {UniformLookupShare(table, sharding.row_order, begin, end), 0, table.rows};
  }
  if (sharding.rank_bands.empty()) return {curve.Share(begin, end), begin, end};
  // Each band's share spread evenly over its rows (its ids are hashed); the classes of the
  // bands the rows touch.
  RowRangeAccess access{0.0, end, begin};
  int64_t low = 0;
  for (size_t b = 0; b <= sharding.rank_bands.size(); ++b) {
    const int64_t high = b < sharding.rank_bands.size() ? sharding.rank_bands[b] : table.rows;
    const int64_t from = std::max(begin, low), to = std::min(end, high);
    if (from < to && high > low) {
      access.share += curve.Share(low, high) * static_cast<double>(to - from) /
                      static_cast<double>(high - low);
      access.ranks_begin = std::min(access.ranks_begin, low);
      access.ranks_end = std::max(access.ranks_end, high);
    }
    low = high;
  }
  if (access.ranks_begin > access.ranks_end) access.ranks_begin = access.ranks_end = begin;
  return access;
}

RoutedTableQueries QueriesOfRoutedLayout(const Task& task, const Table& table,
                                         const TableSharding& sharding,
                                         const TableLayout& layout) {
  const Topology& topology = task.topology;
  const int32_t world = topology.num_devices();
  const bool ranked = RowsAreRanks(table, sharding);
  const RankFrequencyCurve curve = CurveOf(table, task.batch_size);
  const std::vector<std::vector<int32_t>> serving = ServingShards(layout, topology);
  const double requester_batch = static_cast<double>(task.batch_size) / world;
  const bool training = task.objective == Objective::kTraining;

  RoutedTableQueries queries;
  queries.shards.resize(sharding.shards.size());
  std::vector<int32_t> requesters(sharding.shards.size(), 0);
  for (const std::vector<int32_t>& group_serving : serving) {
    for (int32_t shard : group_serving) ++requesters[shard];
  }

  std::map<int32_t, PairMap> exchange_of_tier;
  std::map<int32_t, int32_t> columns_of_tier;
  for (size_t g = 0; g < layout.groups.size(); ++g) {
    const RowGroup& group = layout.groups[g];
    const int64_t end = group.row_offset + group.row_count;
    const RowRangeAccess access = AccessOfRows(table, sharding, curve, group.row_offset, end);
    const double share = access.share;
    for (int32_t shard : group.shards) {
      ShardView view = ViewOfShard(table, sharding, sharding.shards[shard]);
      view.group_size = group.replicas();
      view.routed = RoutedShare{.requesters = requesters[shard],
                                .world_size = world,
                                .rows_share = share,
                                .ranked = ranked,
                                .ranks_begin = access.ranks_begin,
                                .ranks_end = access.ranks_end};
      queries.shards[shard] = view;
    }

    const int32_t tier = group.replicas();
    const double bytes =
        OutputBytesPerRequester(table, group.column_count, share, requester_batch);
    PairMap& exchange = exchange_of_tier[tier];
    columns_of_tier[tier] = std::max(columns_of_tier[tier], group.column_count);
    for (int32_t r = 0; r < world; ++r) {
      const int32_t device = sharding.shards[serving[g][r]].device;
      // A whole-table replica serves its own device's samples in place.
      if (device == r && layout.sharding_type == ShardingType::kDataParallel) continue;
      if (bytes > 0.0) exchange[{device, r}] += bytes;
    }

    if (training && group.replicas() > 1) {
      // The replicas' dense gradients are summed on each of them, then every replica updates
      // all its rows (booked as a data-parallel replica's update).
      CollectiveDemand all_reduce;
      all_reduce.collective = Collective::kAllReduce;
      all_reduce.pass = Pass::kBackward;
      all_reduce.sharding = ShardingType::kDataParallel;
      all_reduce.table = &table;
      all_reduce.columns = group.column_count;
      all_reduce.devices = group.devices;
      all_reduce.peers = group.devices;
      for (int32_t device : group.devices) {
        if (topology.host_of(device) != topology.host_of(group.devices.front())) {
          all_reduce.crosses_hosts = true;
        }
      }
      all_reduce.bytes = static_cast<double>(group.row_count) * group.column_count *
                         ElementBytes(table.element_type);
      queries.collectives.push_back(std::move(all_reduce));
    }
  }
  for (Pass pass : {Pass::kForward, Pass::kBackward}) {
    if (pass == Pass::kBackward && !training) break;
    for (const auto& [tier, exchange] : exchange_of_tier) {
      // A tier every requester serves itself (a hot group on every device) exchanges nothing.
      if (std::all_of(exchange.begin(), exchange.end(),
                      [](const auto& pair) { return pair.first.first == pair.first.second; })) {
        continue;
      }
      queries.collectives.push_back(ExchangeDemand(table, sharding, topology, tier,
                                                   columns_of_tier[tier], pass, exchange));
    }
  }
  return queries;
}

}  // namespace shardplan
