#ifndef SHARDPLAN_BENCH_SYNTHETIC_TASKS_H_
#define SHARDPLAN_BENCH_SYNTHETIC_TASKS_H_

#include <cstdint>

#include "planner/domain/task.h"

namespace shardplan::bench {

// A seeded DLRM-like task for speed measurements: `num_tables` tables with log-uniform rows in
// [1e2, 1e7], dims from {4, ..., 128}, pooling factors in [1, 100], on `num_devices` devices
// whose capacity leaves the tables 2x headroom in total. It needs no table pool; it is for
// timing, not for plan quality (the pool-drawn tasks are lab/data/generators.h's).
Task SyntheticTask(int num_tables, int num_devices, uint64_t seed);

}  // namespace shardplan::bench

#endif  // SHARDPLAN_BENCH_SYNTHETIC_TASKS_H_
