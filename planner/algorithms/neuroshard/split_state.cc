#include "planner/algorithms/neuroshard/split_state.h"

#include <algorithm>

namespace shardplan::neuroshard {

bool HalfIsSplittable(int32_t columns) {
  const int32_t half = columns / 2;
  return half > 0 && half % 4 == 0;
}

SplitState::SplitState(const Task& task) {
  pieces_.reserve(task.tables.size());
  for (size_t t = 0; t < task.tables.size(); ++t) {
    pieces_.push_back(
        Piece{.table = static_cast<int>(t), .columns = task.tables[t].dim, .column_offset = 0});
  }
}

void SplitState::Split(int index) {
  Piece& piece = pieces_[index];
  const int32_t half = piece.columns / 2;
  // Every splittable width is a multiple of 8, so the two halves are equal.
  Piece upper{.table = piece.table,
              .columns = piece.columns - half,
              .column_offset = piece.column_offset + half};
  piece.columns = half;
  pieces_.push_back(upper);
  steps_.push_back(index);
}

Plan PlanOfState(const Task& task, const SplitState& state,
                 const std::vector<int32_t>& device_of_piece) {
  std::vector<std::vector<Shard>> shards_of_table(task.tables.size());
  const std::vector<Piece>& pieces = state.pieces();
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece& piece = pieces[i];
    shards_of_table[piece.table].push_back(Shard{.device = device_of_piece[i],
                                                 .row_offset = 0,
                                                 .row_count = task.tables[piece.table].rows,
                                                 .column_offset = piece.column_offset,
                                                 .column_count = piece.columns});
  }
  Plan plan;
  plan.tables.reserve(task.tables.size());
  for (size_t t = 0; t < task.tables.size(); ++t) {
    TableSharding sharding;
    sharding.table = task.tables[t].name;
    sharding.shards = std::move(shards_of_table[t]);
    std::sort(sharding.shards.begin(), sharding.shards.end(),
              [](const Shard& a, const Shard& b) { return a.column_offset < b.column_offset; });
    // One piece is TABLE_WISE, unless the table forbids it: then one COLUMN_WISE shard.
    sharding.sharding_type =
        sharding.shards.size() == 1 && task.tables[t].Allows(ShardingType::kTableWise)
            ? ShardingType::kTableWise
            : ShardingType::kColumnWise;
    plan.tables.push_back(std::move(sharding));
  }
  for (int index : state.steps())
    plan.stats.column_splits.push_back(task.tables[pieces[index].table].name);
  return plan;
}

}  // namespace shardplan::neuroshard
