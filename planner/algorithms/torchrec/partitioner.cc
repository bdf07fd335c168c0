#include "planner/algorithms/torchrec/partitioner.h"

#include <algorithm>

#include "planner/domain/memory.h"
#include "planner/search/memory_ledger.h"
#include "planner/search/placement_units.h"

namespace shardplan::torchrec {
namespace {

// What moves in one step: one shard of a free table, or every shard of a unit that must stay
// on one device (a colocation group or a pinned table).
struct Item {
  int unit = 0;
  int table = -1;  // >= 0: shard `shard` of this table alone
  int shard = 0;
  int64_t bytes = 0;
  double perf = 0.0;
};

// Storage and perf of an item; `item.unit`, `item.table` and `item.shard` are set.
void Measure(const SearchSpace& space, const Proposal& proposal, Item& item) {
  auto add = [&item](const ShardOption& shard) {
    item.bytes = AddBytes(item.bytes, shard.bytes);
    item.perf += shard.perf.total();
  };
  if (item.table >= 0) {
    add(space.options_of_table[item.table][proposal[item.table]].shards[item.shard]);
    return;
  }
  for (int t : space.units[item.unit].tables) {
    for (const ShardOption& shard : space.options_of_table[t][proposal[t]].shards) add(shard);
  }
}

class Devices {
 public:
  Devices(const Task& task, const SearchSpace& space, const Proposal& proposal)
      : space_(space), ledger_(task.topology) {
    placement_.device_perf.assign(task.topology.num_devices(), 0.0);
    placement_.device_of_shard.resize(space.options_of_table.size());
    for (size_t t = 0; t < proposal.size(); ++t) {
      placement_.device_of_shard[t].assign(space.options_of_table[t][proposal[t]].shards.size(), 0);
    }
  }

  // The device with the lowest (perf, index) that has room for `item`, or -1.
  int LowestPerfFit(const Item& item) const {
    int best = -1;
    for (int d = 0; d < ledger_.num_devices(); ++d) {
      if (!ledger_.Fits(d, item.bytes)) continue;
      if (best < 0 || placement_.device_perf[d] < placement_.device_perf[best]) best = d;
    }
    return best;
  }

  void Put(const Item& item, int device) {
    ledger_.Add(device, item.bytes);
    placement_.device_perf[device] += item.perf;
    if (item.table >= 0) {
      placement_.device_of_shard[item.table][item.shard] = device;
      return;
    }
    for (int t : space_.units[item.unit].tables) {
      std::fill(placement_.device_of_shard[t].begin(), placement_.device_of_shard[t].end(), device);
    }
  }

  bool Fits(int device, const Item& item) const { return ledger_.Fits(device, item.bytes); }

  Placement Finish() && {
    placement_.device_bytes.resize(ledger_.num_devices());
    for (int d = 0; d < ledger_.num_devices(); ++d) placement_.device_bytes[d] = ledger_.used(d);
    placement_.perf_rating =
        placement_.device_perf.empty()
            ? 0.0
            : *std::max_element(placement_.device_perf.begin(), placement_.device_perf.end());
    return std::move(placement_);
  }

 private:
  const SearchSpace& space_;
  MemoryLedger ledger_;
  Placement placement_;
};

}  // namespace

std::optional<Placement> GreedyPerfPartition(const Task& task, const SearchSpace& space,
                                             const Proposal& proposal) {
  Devices devices(task, space, proposal);
  // Per option (free table) or unit: its items and their storage sum, the sort key.
  struct Group {
    int64_t bytes = 0;
    std::vector<Item> items;
  };
  std::vector<Group> groups;
  for (size_t u = 0; u < space.units.size(); ++u) {
    const PlacementUnit& unit = space.units[u];
    Item whole{.unit = static_cast<int>(u)};
    if (unit.tables.size() > 1 || unit.pinned_device) {
      Measure(space, proposal, whole);
      if (unit.pinned_device) {  // no choice: place now, so the others balance around it
        if (!devices.Fits(*unit.pinned_device, whole)) return std::nullopt;
        devices.Put(whole, *unit.pinned_device);
      } else {
        groups.push_back(Group{.bytes = whole.bytes, .items = {whole}});
      }
      continue;
    }
    const int t = unit.tables[0];
    Group group;
    const size_t num_shards = space.options_of_table[t][proposal[t]].shards.size();
    for (size_t s = 0; s < num_shards; ++s) {
      Item item{.unit = static_cast<int>(u), .table = t, .shard = static_cast<int>(s)};
      Measure(space, proposal, item);
      group.bytes = AddBytes(group.bytes, item.bytes);
      group.items.push_back(item);
    }
    groups.push_back(std::move(group));
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const Group& a, const Group& b) { return a.bytes > b.bytes; });
  for (const Group& group : groups) {
    for (const Item& item : group.items) {
      const int device = devices.LowestPerfFit(item);
      if (device < 0) return std::nullopt;
      devices.Put(item, device);
    }
  }
  return std::move(devices).Finish();
}

}  // namespace shardplan::torchrec
