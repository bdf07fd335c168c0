#include "planner/algorithms/torchrec/partitioner.h"

#include <algorithm>
#include <functional>
#include <tuple>
#include <utility>

#include "planner/domain/memory.h"
#include "planner/search/placement_units.h"

namespace shardplan::torchrec {

Partitioner::Partitioner(const Task& task, const SearchSpace& space)
    : task_(task), space_(space), ledger_(task.topology),
      local_(task.topology.local_world_size()) {
  // A free table's groups depend on its option alone: measure them once per search.
  option_groups_.resize(space.options_of_table.size());
  for (size_t u = 0; u < space.units.size(); ++u) {
    const PlacementUnit& unit = space.units[u];
    if (unit.tables.size() > 1 || unit.pinned_device) continue;
    const int t = unit.tables[0];
    for (const ShardingOption& option : space.options_of_table[t]) {
      Group group{.partition_by = option.partition_by()};
      for (size_t s = 0; s < option.shards.size(); ++s) {
        const ShardOption& shard = option.shards[s];
        group.items.push_back(Item{.unit = static_cast<int>(u),
                                   .table = t,
                                   .shard = static_cast<int>(s),
                                   .bytes = shard.bytes,
                                   .perf = shard.perf.total()});
        group.bytes = AddBytes(group.bytes, shard.bytes);
      }
      option_groups_[t].push_back(std::move(group));
    }
  }
}

Partitioner::Item Partitioner::WholeUnit(int u, const Proposal& proposal) const {
  Item item{.unit = u};
  for (int t : space_.units[u].tables) {
    for (const ShardOption& shard : space_.options_of_table[t][proposal[t]].shards) {
      item.bytes = AddBytes(item.bytes, shard.bytes);
      item.perf += shard.perf.total();
    }
  }
  return item;
}

void Partitioner::Put(const Item& item, int device, const Proposal& proposal) {
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

int Partitioner::PutOnLowestPerfDevice(const Item& item, const Proposal& proposal) {
  // TorchRec's _device_partition: a min-heap of (perf, local rank, rank); devices without room
  // are set aside while looking, so the first that fits is the lowest key among those that do.
  auto greater = [this](int a, int b) { return Lower(b, a); };
  if (heap_dirty_) {
    heap_.resize(static_cast<size_t>(ledger_.num_devices()));
    for (int d = 0; d < ledger_.num_devices(); ++d) heap_[d] = d;
    std::make_heap(heap_.begin(), heap_.end(), greater);
    heap_dirty_ = false;
  }
  set_aside_.clear();
  int placed = -1;
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), greater);
    const int device = heap_.back();
    heap_.pop_back();
    if (ledger_.Fits(device, item.bytes)) {
      Put(item, device, proposal);
      set_aside_.push_back(device);  // back in with its new perf
      placed = device;
      break;
    }
    set_aside_.push_back(device);
  }
  for (int device : set_aside_) {
    heap_.push_back(device);
    std::push_heap(heap_.begin(), heap_.end(), greater);
  }
  return placed;
}

bool Partitioner::PutOnAHost(const Group& group, const Proposal& proposal) {
  // TorchRec's _cohost_partition for one TWRW option: the hosts with every device (W / L of
  // them) by ascending summed perf (stable); the first whose free memory holds the option and
  // whose i-th device holds shard i takes it.
  const int hosts = ledger_.num_devices() / local_;
  std::vector<std::pair<double, int>> by_perf;
  for (int h = 0; h < hosts; ++h) {
    double perf = 0.0;
    for (int i = 0; i < local_; ++i) perf += placement_.device_perf[h * local_ + i];
    by_perf.emplace_back(perf, h);
  }
  std::stable_sort(by_perf.begin(), by_perf.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  if (static_cast<int>(group.items.size()) != local_) return false;
  for (const auto& [perf, h] : by_perf) {
    int64_t free = 0;
    bool fits = true;
    for (int i = 0; i < local_; ++i) {
      const int device = h * local_ + i;
      free = AddBytes(free, ledger_.capacity(device) - ledger_.used(device));
      fits = fits && ledger_.Fits(device, group.items[i].bytes);
    }
    if (free < group.bytes || !fits) continue;
    for (int i = 0; i < local_; ++i) Put(group.items[i], h * local_ + i, proposal);
    heap_dirty_ = true;  // perfs changed behind the heap's back
    return true;
  }
  return false;
}

bool Partitioner::Partition(const Proposal& proposal, double bound) {
  ledger_.Reset(task_.topology);
  placement_.device_perf.assign(ledger_.num_devices(), 0.0);
  placement_.device_of_shard.resize(space_.options_of_table.size());
  for (size_t t = 0; t < proposal.size(); ++t) {
    placement_.device_of_shard[t].assign(space_.options_of_table[t][proposal[t]].shards.size(), 0);
  }
  heap_dirty_ = true;
  units_.clear();
  units_.reserve(space_.units.size());  // `groups_` points into it
  std::vector<const Group*>& uniform = uniform_;
  std::vector<const Group*>& groups = groups_;
  uniform.clear();
  groups.clear();
  for (size_t u = 0; u < space_.units.size(); ++u) {
    const PlacementUnit& unit = space_.units[u];
    if (unit.tables.size() > 1 || unit.pinned_device) {
      const Item whole = WholeUnit(static_cast<int>(u), proposal);
      if (unit.pinned_device) {  // no choice: place now, so the others balance around it
        if (!ledger_.Fits(*unit.pinned_device, whole.bytes)) return false;
        Put(whole, *unit.pinned_device, proposal);
      } else {
        units_.push_back(Group{.bytes = whole.bytes, .items = {whole}});
        groups.push_back(&units_.back());
      }
      continue;
    }
    const int t = unit.tables[0];
    const Group& group = option_groups_[t][proposal[t]];
    (group.partition_by == PartitionBy::kUniform ? uniform : groups).push_back(&group);
  }
  for (const Group* group : uniform) {  // TorchRec's _uniform_partition: shard i on device i
    for (size_t i = 0; i < group->items.size(); ++i) {
      const int device = static_cast<int>(i);
      if (!ledger_.Fits(device, group->items[i].bytes)) return false;
      Put(group->items[i], device, proposal);
    }
  }
  // Largest storage first; stable, so ties keep unit order.
  std::stable_sort(groups.begin(), groups.end(),
                   [](const Group* a, const Group* b) { return a->bytes > b->bytes; });
  for (const Group* group : groups) {
    if (group->partition_by == PartitionBy::kHost) {
      if (!PutOnAHost(*group, proposal)) return false;
      continue;
    }
    for (const Item& item : group->items) {
      const int device = PutOnLowestPerfDevice(item, proposal);
      // Perfs only grow: a placement already rated at `bound` cannot end below it.
      if (device < 0 || placement_.device_perf[device] >= bound) return false;
    }
  }
  placement_.device_bytes.resize(ledger_.num_devices());
  for (int d = 0; d < ledger_.num_devices(); ++d) placement_.device_bytes[d] = ledger_.used(d);
  placement_.perf_rating = MaxPerf();
  return placement_.perf_rating < bound;
}

double Partitioner::MaxPerf() const {
  return placement_.device_perf.empty()
             ? 0.0
             : *std::max_element(placement_.device_perf.begin(), placement_.device_perf.end());
}

std::optional<Placement> GreedyPerfPartition(const Task& task, const SearchSpace& space,
                                             const Proposal& proposal) {
  Partitioner partitioner(task, space);
  if (!partitioner.Partition(proposal)) return std::nullopt;
  return partitioner.placement();
}

}  // namespace shardplan::torchrec
