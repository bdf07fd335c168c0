#include "bench/synthetic_tasks.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "base/seeded_rng.h"
#include "planner/domain/memory.h"

namespace shardplan::bench {

Task SyntheticTask(int num_tables, int num_devices, uint64_t seed) {
  std::mt19937_64 rng(seed);
  constexpr int32_t kDims[] = {4, 8, 16, 32, 64, 128};
  Task task;
  int64_t total_bytes = 0;
  for (int i = 0; i < num_tables; ++i) {
    Table table;
    table.name = "t" + std::to_string(i);
    table.rows = static_cast<int64_t>(std::pow(10.0, 2.0 + 5.0 * Uniform01(rng)));
    table.dim = kDims[rng() % 6];
    table.pooling_factor = 1.0 + 99.0 * Uniform01(rng);
    total_bytes += TableMemoryBytes(table, task.memory);
    task.tables.push_back(std::move(table));
  }
  int64_t largest = 0;
  for (const Table& table : task.tables) {
    largest = std::max(largest, TableMemoryBytes(table, task.memory));
  }
  const int64_t capacity = std::max(2 * total_bytes / num_devices, 2 * largest);
  task.topology.memory_bytes.assign(static_cast<size_t>(num_devices), capacity);
  return task;
}

}  // namespace shardplan::bench
