#ifndef SHARDPLAN_TESTS_UNIT_GROUNDTRUTH_SIM_SIM_TEST_TABLES_H_
#define SHARDPLAN_TESTS_UNIT_GROUNDTRUTH_SIM_SIM_TEST_TABLES_H_

#include <cstdint>
#include <vector>

#include "base/seeded_rng.h"
#include "groundtruth/sim/hardware_profiles.h"
#include "groundtruth/sim/synthetic_tables.h"
#include "planner/domain/topology.h"
#include "planner/domain/table.h"

namespace shardplan::sim_test {

inline constexpr int64_t kBatch = 65536;

inline HardwareProfile Profile(const char* name) { return *FindHardwareProfile(name); }

// `num_devices` devices with `devices_per_host` per host (0: all on one host), as a task says.
inline Topology Hosts(int num_devices, int devices_per_host = 0) {
  Topology topology;
  topology.memory_bytes.assign(static_cast<size_t>(num_devices), int64_t{16} << 30);
  topology.devices_per_host = devices_per_host;
  return topology;
}

// A DLRM-like table with the published aggregate histogram's shape.
inline Table DlrmTable(int64_t rows, double pooling_factor, int32_t dim) {
  Table t;
  t.name = "t";
  t.rows = rows;
  t.dim = dim;
  t.pooling_factor = pooling_factor;
  t.access_bins = {0.473, 0.152,  0.139,  0.112,  0.072, 0.032, 0.011, 0.005, 0.002,
                   0.001, 0.0005, 0.0002, 0.0001, 0.0,   0.0,   0.0,   0.0};
  return t;
}

// `count` synthetic tables from sample `index` of seed 42.
inline std::vector<Table> Synthetic(uint64_t index, int count, int32_t max_dim = 128) {
  std::mt19937_64 rng = SampleRng(42, index);
  return SyntheticTables(rng, count, max_dim);
}

}  // namespace shardplan::sim_test

#endif  // SHARDPLAN_TESTS_UNIT_GROUNDTRUTH_SIM_SIM_TEST_TABLES_H_
