// The shards and collective cost data: record lines, the generators and their collection.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "groundtruth/shard_kernels.h"
#include "gtest/gtest.h"
#include "lab/collection/collector.h"
#include "lab/collection/cost_record.h"
#include "lab/collection/sample_generators.h"
#include "tests/unit/support/test_files.h"

namespace shardplan {
namespace {

using ::testing::HasSubstr;

// Compute: the batch and the tables' rows and dims, so each kernel call is told apart; collectives:
// each device's bytes.
class FakeShardBackend : public HardwareBackend {
 public:
  std::string name() const override { return "fake"; }
  std::string hardware_profile() const override { return "fake-1"; }
  absl::StatusOr<double> MeasureCompute(std::span<const Table> tables,
                                        int64_t batch_size) override {
    double ms = 1e-5 * batch_size;
    for (const Table& t : tables) ms += 1e-6 * t.rows * t.dim + t.pooling_factor;
    compute_calls.push_back(ms);
    return ms;
  }
  absl::StatusOr<CommMeasurement> MeasureComm(const Topology*, std::span<const int64_t>,
                                              std::span<const double>, int64_t) override {
    return absl::UnimplementedError("no comm here");
  }
  bool measures_collectives() const override { return true; }
  absl::StatusOr<CollectiveCosts> MeasureCollectives(
      const Topology& topology, std::span<const CollectiveDemand> demands) override {
    CollectiveCosts costs{std::vector<double>(topology.num_devices(), 0.0),
                          std::vector<double>(topology.num_devices(), 0.0)};
    for (const CollectiveDemand& d : demands) {
      for (int32_t peer : d.peers) {
        (d.pass == Pass::kForward ? costs.forward_ms : costs.backward_ms)[peer] += 1e-6 * d.bytes;
      }
    }
    return costs;
  }
  std::vector<double> compute_calls;
};

TablePool Pool() {
  TablePool pool;
  for (int i = 0; i < 6; ++i) {
    Table t;
    t.name = absl::StrCat("t", i);
    t.rows = 1000 + 3001 * i;
    t.dim = 128;
    t.pooling_factor = 1.0 + i;
    pool.tables.push_back(t);
  }
  return pool;
}

CostRecord Header(const std::string& kind) {
  CostRecord record;
  record.kind = kind;
  record.backend = "fake";
  record.hardware_profile = "fake-1";
  record.batch_size = 65536;
  record.pool = "pool.json";
  record.pool_sha256 = "feed";
  return record;
}

TEST(ShardCostRecordTest, ShardsAndCollectiveRecordsRoundTrip) {
  CostRecord shards = Header("shards");
  shards.shards = {
      {.table = 3, .dim = 64, .type = ShardingType::kRowWise, .group_size = 4, .rows = 1250},
      {.table = 1, .dim = 8, .type = ShardingType::kDataParallel, .group_size = 16, .rows = 4001}};
  shards.ms = 2.5;
  const std::string line = CostRecordToJsonLine(shards);
  EXPECT_THAT(line,
              HasSubstr(R"("shards":[[3,64,"ROW_WISE",4,1250],[1,8,"DATA_PARALLEL",16,4001]])"));
  absl::StatusOr<CostRecord> back = CostRecordFromJsonLine(line);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shards, shards.shards);
  EXPECT_EQ(CostRecordToJsonLine(*back), line);

  CostRecord collective = Header("collective");
  collective.num_devices = 4;
  collective.devices_per_host = 2;
  collective.demands = {{.collective = Collective::kAllToAll,
                         .pass = Pass::kForward,
                         .sharding = ShardingType::kTableRowWise,
                         .bytes = 4096.5,
                         .devices = {1},
                         .peers = {1, 3}}};
  collective.forward_ms = {0, 0.25, 0, 0.25};
  collective.backward_ms = {0, 0, 0, 0};
  const std::string collective_line = CostRecordToJsonLine(collective);
  EXPECT_THAT(
      collective_line,
      HasSubstr(R"("demands":[["all_to_all","forward","TABLE_ROW_WISE",4096.5,[1],[1,3]]])"));
  back = CostRecordFromJsonLine(collective_line);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->demands, collective.demands);
  EXPECT_EQ(CostRecordToJsonLine(*back), collective_line);

  // A device outside the layout is named.
  std::string bad = collective_line;
  bad.replace(bad.find("[1,3]"), 5, "[1,7]");
  EXPECT_THAT(std::string(CostRecordFromJsonLine(bad).status().message()),
              HasSubstr("demands[0]' peers holds 7, not a device in [0, 4)"));
  std::string bad_type = line;
  bad_type.replace(bad_type.find("ROW_WISE"), 8, "ROW_WIZE");
  EXPECT_THAT(std::string(CostRecordFromJsonLine(bad_type).status().message()),
              HasSubstr("field 'shards[0]'"));
}

TEST(ShardComputeSamplesTest, DrawEveryTypeWithRowBlocksOfTheirTable) {
  const TablePool pool = Pool();
  const SampleGenerator generate = ShardComputeSamples(pool, 9);
  std::set<ShardingType> types;
  for (int64_t id = 0; id < 60; ++id) {
    CostRecord record = Header("shards");
    ASSERT_TRUE(generate(id, record).ok());
    CostRecord again = Header("shards");
    ASSERT_TRUE(generate(id, again).ok());
    EXPECT_EQ(record.shards, again.shards);  // (seed, id) only
    ASSERT_FALSE(record.shards.empty());
    std::set<int32_t> worlds;  // of the row shards and replicas: one world per device
    for (const CostShard& s : record.shards) {
      types.insert(s.type);
      if (s.type == ShardingType::kRowWise || s.type == ShardingType::kDataParallel) {
        worlds.insert(s.group_size);
      }
      const int64_t rows = pool.tables[s.table].rows;
      if (s.type == ShardingType::kRowWise || s.type == ShardingType::kTableRowWise) {
        EXPECT_GE(s.group_size, 2);
        EXPECT_TRUE(s.rows == rows / s.group_size || s.rows == rows / s.group_size + 1);
      } else {
        EXPECT_EQ(s.rows, rows);
      }
      if (s.type == ShardingType::kTableRowWise) {
        EXPECT_LE(s.group_size, 8);
      }
    }
    EXPECT_LE(worlds.size(), 1u) << "sample " << id;
  }
  EXPECT_EQ(types.size(), 4u);  // TW, RW, TWRW, DP
}

TEST(ShardComputeSamplesTest, MaxTablesBoundsTheShardsOfADevice) {
  const TablePool pool = Pool();
  size_t most_default = 0;
  size_t most_wide = 0;
  const SampleGenerator reference = ShardComputeSamples(pool, 9);
  const SampleGenerator wide = ShardComputeSamples(pool, 9, std::nullopt, 40);
  for (int64_t id = 0; id < 60; ++id) {
    CostRecord record = Header("shards");
    ASSERT_TRUE(reference(id, record).ok());
    most_default = std::max(most_default, record.shards.size());
    CostRecord many = Header("shards");
    ASSERT_TRUE(wide(id, many).ok());
    most_wide = std::max(most_wide, many.shards.size());
    EXPECT_LE(many.shards.size(), 40u);
  }
  EXPECT_LE(most_default, 15u);  // the reference's combinations
  EXPECT_GT(most_wide, 15u);
}

// --one-call: a record's shards share one kernel call (KernelCallKey), and every call is drawn.
TEST(ShardComputeSamplesTest, OneCallRecordsHoldOneKernelCallEach) {
  const TablePool pool = Pool();
  const SampleGenerator generate = ShardComputeSamples(pool, 9, std::nullopt, 0, true);
  std::set<ShardingType> types;
  int mixed_without = 0;
  const SampleGenerator per_shard = ShardComputeSamples(pool, 9);
  for (int64_t id = 0; id < 80; ++id) {
    CostRecord record = Header("shards");
    ASSERT_TRUE(generate(id, record).ok());
    std::set<int64_t> keys;
    for (const CostShard& s : record.shards) {
      types.insert(s.type);
      const ShardView view{.table = &pool.tables[s.table],
                           .rows = s.rows,
                           .columns = s.dim,
                           .sharding = s.type,
                           .group_size = s.group_size};
      if (KernelCallKey(view) >= 0) keys.insert(KernelCallKey(view));
    }
    EXPECT_LE(keys.size(), 1u) << "sample " << id;
    CostRecord drawn = Header("shards");
    ASSERT_TRUE(per_shard(id, drawn).ok());
    std::set<ShardingType> drawn_types;
    for (const CostShard& s : drawn.shards) drawn_types.insert(s.type);
    mixed_without += drawn_types.size() > 1;
  }
  EXPECT_EQ(types.size(), 4u);   // TW, RW, TWRW, DP
  EXPECT_GT(mixed_without, 10);  // without it, devices mix calls
}

TEST(CollectiveSamplesTest, SpreadHostsPutsTableRowWiseTablesOnSeveralHosts) {
  auto hosts_sending = [](const SampleGenerator& generate) {
    int most = 0;
    for (int64_t id = 0; id < 300; ++id) {
      CostRecord record = Header("collective");
      EXPECT_TRUE(generate(id, record).ok()) << id;
      std::set<int32_t> hosts;  // of the devices a table-row-wise all-to-all charges
      for (const CostDemand& d : record.demands) {
        if (d.sharding != ShardingType::kTableRowWise || d.collective != Collective::kAllToAll) {
          continue;
        }
        for (int32_t device : d.devices) hosts.insert(device / 4);
      }
      most = std::max(most, static_cast<int>(hosts.size()));
    }
    return most;
  };
  EXPECT_EQ(hosts_sending(CollectiveSamples(4, 16, 4)), 1);
  EXPECT_GT(hosts_sending(CollectiveSamples(4, 16, 4, true)), 1);
}

TEST(CollectiveSamplesTest, EachRecordIsOneCallOfValidDevices) {
  const SampleGenerator generate = CollectiveSamples(4, 16, 4);
  std::set<Collective> collectives;
  for (int64_t id = 0; id < 80; ++id) {
    CostRecord record = Header("collective");
    ASSERT_TRUE(generate(id, record).ok()) << id;
    ASSERT_FALSE(record.demands.empty());
    EXPECT_EQ(record.num_devices, 16);
    EXPECT_EQ(record.devices_per_host, 4);
    std::set<std::tuple<Collective, Pass, std::vector<int32_t>>> calls;
    for (const CostDemand& d : record.demands) {
      std::vector<int32_t> peers = d.peers;
      std::sort(peers.begin(), peers.end());
      calls.emplace(d.collective, d.pass, peers);
      for (int32_t p : d.peers) EXPECT_LT(p, record.num_devices);
      EXPECT_GT(d.bytes, 0.0);
      collectives.insert(d.collective);
    }
    EXPECT_EQ(calls.size(), 1u) << id;
  }
  EXPECT_EQ(collectives.size(), 4u);
  CostRecord record = Header("collective");
  EXPECT_FALSE(CollectiveSamples(4, 4, 8)(0, record).ok());  // hosts larger than the layout
}

TEST(CollectShardsTest, MeasuresEveryKernelCallAndEveryDevicesCall) {
  const std::string dir = testing_files::FreshDir();
  const TablePool pool = Pool();
  FakeShardBackend backend;
  CollectOptions options;
  options.kind = "shards";
  options.samples = 5;
  options.out_path = dir + "/shards.jsonl";
  options.seed = 1;
  options.pool = "pool.json";
  options.pool_sha256 = "feed";
  options.now = [] { return std::string("2026-11-27T00:00:00Z"); };
  ASSERT_TRUE(Collect(backend, &pool, ShardComputeSamples(pool, 1), options).ok());
  const std::vector<std::string> lines =
      absl::StrSplit(testing_files::ReadFile(options.out_path), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 5u);
  // Each record's ms is the sum of its device's kernel calls (one per sharding family), as
  // ground truth measures a device.
  for (const std::string& line : lines) {
    absl::StatusOr<CostRecord> record = CostRecordFromJsonLine(line);
    ASSERT_TRUE(record.ok()) << record.status();
    std::vector<Table> tables;
    for (const CostShard& s : record->shards) {
      tables.push_back(pool.tables[s.table]);
      tables.back().dim = s.dim;
    }
    std::vector<ShardView> views;
    for (size_t i = 0; i < tables.size(); ++i) {
      const CostShard& s = record->shards[i];
      views.push_back({.table = &tables[i],
                       .rows = s.rows,
                       .columns = s.dim,
                       .sharding = s.type,
                       .group_size = s.group_size});
    }
    FakeShardBackend expected;
    double ms = 0.0;
    for (const KernelCall& call : DeviceKernelCalls(views, record->batch_size)) {
      ms += *expected.MeasureCompute(call.tables, call.batch_size);
    }
    EXPECT_NEAR(record->ms, ms, 1e-4);
  }

  options.kind = "collective";
  options.out_path = dir + "/collective.jsonl";
  options.num_devices = 8;
  options.devices_per_host = 4;
  ASSERT_TRUE(Collect(backend, nullptr, CollectiveSamples(1, 8, 4), options).ok());
  const std::vector<std::string> collective_lines =
      absl::StrSplit(testing_files::ReadFile(options.out_path), '\n', absl::SkipEmpty());
  ASSERT_EQ(collective_lines.size(), 5u);
  for (const std::string& line : collective_lines) {
    absl::StatusOr<CostRecord> record = CostRecordFromJsonLine(line);
    ASSERT_TRUE(record.ok()) << record.status();
    double peers_time = 0.0;
    for (double ms : record->forward_ms) peers_time += ms;
    for (double ms : record->backward_ms) peers_time += ms;
    EXPECT_GT(peers_time, 0.0);
  }
}

}  // namespace
}  // namespace shardplan
