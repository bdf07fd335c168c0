// FormatTorchRecPlan: the plan in the JSON shape of TorchRec's ShardingPlan
// (docs/design.md section 7.4).

#include "client/cli/torchrec_format.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/cli/plan_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace shardplan::cli {
namespace {

using ::nlohmann::ordered_json;

struct ShardSpec {
  int device;
  int64_t row_offset, row_count;
  int column_offset, column_count;
};

void AddTable(shardplan::v1::Plan& plan, const std::string& name, shardplan::v1::ShardingType type,
              const std::vector<ShardSpec>& shards) {
  shardplan::v1::TableSharding* sharding = plan.add_tables();
  sharding->set_table(name);
  sharding->set_sharding_type(type);
  for (const ShardSpec& spec : shards) {
    shardplan::v1::Shard* shard = sharding->add_shards();
    shard->set_device(spec.device);
    shard->set_row_offset(spec.row_offset);
    shard->set_row_count(spec.row_count);
    shard->set_column_offset(spec.column_offset);
    shard->set_column_count(spec.column_count);
  }
}

ordered_json Format(const shardplan::v1::Plan& plan, const TorchRecOptions& options = {}) {
  absl::StatusOr<std::string> text = FormatTorchRecPlan(plan, options);
  EXPECT_TRUE(text.ok()) << text.status();
  if (!text.ok()) return nullptr;
  EXPECT_TRUE(!text->empty() && text->back() == '\n');
  return ordered_json::parse(*text);
}

TEST(FormatTorchRecPlanTest, TableWiseTableIsOneShardOnItsRank) {
  shardplan::v1::Plan plan;
  AddTable(plan, "user_id", shardplan::v1::TABLE_WISE, {{5, 0, 5000000, 0, 64}});
  TorchRecOptions options;
  options.module_path = "sparse_arch.ebc";
  options.local_world_size = 4;
  const absl::StatusOr<std::string> text = FormatTorchRecPlan(plan, options);
  ASSERT_TRUE(text.ok()) << text.status();
  // The exact text: TorchRec's key order, two-space indent.
  EXPECT_EQ(*text, R"({
  "plan": {
    "sparse_arch.ebc": {
      "user_id": {
        "sharding_type": "table_wise",
        "compute_kernel": "fused",
        "ranks": [
          5
        ],
        "shards": [
          {
            "shard_offsets": [
              0,
              0
            ],
            "shard_sizes": [
              5000000,
              64
            ],
            "placement": "rank:5/cuda:1"
          }
        ]
      }
    }
  }
}
)");
}

TEST(FormatTorchRecPlanTest, SequenceTablesGoToTheEmbeddingCollection) {
  shardplan::v1::Plan plan;
  AddTable(plan, "user_id", shardplan::v1::TABLE_WISE, {{0, 0, 100, 0, 64}});
  AddTable(plan, "history", shardplan::v1::ROW_WISE, {{0, 0, 50, 0, 64}, {1, 50, 50, 0, 64}});
  TorchRecOptions options;
  options.sequence_tables = {"history"};
  const ordered_json json = Format(plan, options);
  EXPECT_TRUE(json["plan"]["embedding_bag_collection"].contains("user_id"));
  EXPECT_FALSE(json["plan"]["embedding_bag_collection"].contains("history"));
  EXPECT_EQ(json["plan"]["embedding_collection"]["history"]["sharding_type"], "row_wise");
  // Only sequence tables: no empty EmbeddingBagCollection module.
  shardplan::v1::Plan only;
  AddTable(only, "history", shardplan::v1::DATA_PARALLEL, {{0, 0, 100, 0, 64}});
  EXPECT_FALSE(Format(only, options)["plan"].contains("embedding_bag_collection"));
  // EmbeddingCollection has no table_row_wise.
  shardplan::v1::Plan twrw;
  AddTable(twrw, "history", shardplan::v1::TABLE_ROW_WISE, {{0, 0, 50, 0, 64}, {1, 50, 50, 0, 64}});
  EXPECT_THAT(std::string(FormatTorchRecPlan(twrw, options).status().message()),
              ::testing::HasSubstr("EmbeddingCollection does not support"));
}

TEST(FormatTorchRecPlanTest, ColumnShardsInOffsetOrderWithTheirRanks) {
  shardplan::v1::Plan plan;
  // An uneven NeuroShard split 128 -> 64 + 32 + 32, listed out of order, two pieces on device 2.
  AddTable(plan, "item", shardplan::v1::COLUMN_WISE,
           {{2, 0, 1000, 96, 32}, {0, 0, 1000, 0, 64}, {2, 0, 1000, 64, 32}});
  const ordered_json table = Format(plan)["plan"]["embedding_bag_collection"]["item"];
  EXPECT_EQ(table["sharding_type"], "column_wise");
  EXPECT_EQ(table["ranks"], ordered_json({0, 2, 2}));
  ASSERT_EQ(table["shards"].size(), 3u);
  EXPECT_EQ(table["shards"][0]["shard_offsets"], ordered_json({0, 0}));
  EXPECT_EQ(table["shards"][0]["shard_sizes"], ordered_json({1000, 64}));
  EXPECT_EQ(table["shards"][1]["shard_offsets"], ordered_json({0, 64}));
  EXPECT_EQ(table["shards"][2]["shard_offsets"], ordered_json({0, 96}));
  EXPECT_EQ(table["shards"][2]["shard_sizes"], ordered_json({1000, 32}));
  EXPECT_EQ(table["shards"][2]["placement"], "rank:2/cuda:2");
}

TEST(FormatTorchRecPlanTest, RowShardsInRowOrderWithTheirRanksAndTheUnevenLastBlock) {
  // TorchRec's row_wise split of 10 rows over 4 ranks: ceil(10/4) = 3, so 3, 3, 3 and 1; listed
  // out of order, rank 0 holding the last block.
  shardplan::v1::Plan plan;
  AddTable(plan, "rw", shardplan::v1::ROW_WISE,
           {{2, 6, 3, 0, 8}, {0, 9, 1, 0, 8}, {3, 0, 3, 0, 8}, {1, 3, 3, 0, 8}});
  const ordered_json table = Format(plan)["plan"]["embedding_bag_collection"]["rw"];
  EXPECT_EQ(table["sharding_type"], "row_wise");
  EXPECT_EQ(table["compute_kernel"], "fused");
  EXPECT_EQ(table["ranks"], ordered_json({3, 1, 2, 0}));
  ASSERT_EQ(table["shards"].size(), 4u);
  const std::vector<std::vector<int64_t>> offsets = {{0, 0}, {3, 0}, {6, 0}, {9, 0}};
  const std::vector<std::vector<int64_t>> sizes = {{3, 8}, {3, 8}, {3, 8}, {1, 8}};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(table["shards"][i]["shard_offsets"], ordered_json(offsets[i])) << i;
    EXPECT_EQ(table["shards"][i]["shard_sizes"], ordered_json(sizes[i])) << i;
    EXPECT_EQ(table["shards"][i]["placement"],
              absl::StrCat("rank:", table["ranks"][i].get<int>(),
                           "/cuda:", table["ranks"][i].get<int>()));
  }
}

TEST(FormatTorchRecPlanTest, TableRowWiseShardsOnTheSecondHost) {
  // Two hosts of four: TorchRec's table_row_wise(host_index=1) puts 4 row blocks on ranks 4..7,
  // the local devices cuda:0..3. Memory-proportional sizes stay as planned.
  shardplan::v1::Plan plan;
  AddTable(plan, "twrw", shardplan::v1::TABLE_ROW_WISE,
           {{4, 0, 40, 0, 16}, {5, 40, 30, 0, 16}, {6, 70, 20, 0, 16}, {7, 90, 10, 0, 16}});
  plan.set_local_world_size(4);
  const ordered_json table = Format(plan)["plan"]["embedding_bag_collection"]["twrw"];
  EXPECT_EQ(table["sharding_type"], "table_row_wise");
  EXPECT_EQ(table["compute_kernel"], "fused");
  EXPECT_EQ(table["ranks"], ordered_json({4, 5, 6, 7}));
  ASSERT_EQ(table["shards"].size(), 4u);
  EXPECT_EQ(table["shards"][1], ordered_json::parse(R"({"shard_offsets": [40, 0],
      "shard_sizes": [30, 16], "placement": "rank:5/cuda:1"})"));
  EXPECT_EQ(table["shards"][3]["shard_sizes"], ordered_json({10, 16}));
  EXPECT_EQ(table["shards"][3]["placement"], "rank:7/cuda:3");
}

TEST(FormatTorchRecPlanTest, DataParallelIsTheReplicasRanksWithoutShards) {
  shardplan::v1::Plan plan;
  AddTable(plan, "dp", shardplan::v1::DATA_PARALLEL,
           {{2, 0, 100, 0, 8}, {0, 0, 100, 0, 8}, {3, 0, 100, 0, 8}, {1, 0, 100, 0, 8}});
  plan.set_local_world_size(2);
  // TorchRec's sharding_spec is None for data_parallel, so _serialize writes no "shards".
  EXPECT_EQ(Format(plan)["plan"]["embedding_bag_collection"]["dp"], ordered_json::parse(R"({
      "sharding_type": "data_parallel", "compute_kernel": "dense", "ranks": [0, 1, 2, 3]})"));
}

TEST(FormatTorchRecPlanTest, KeepsThePlansTableOrder) {
  shardplan::v1::Plan plan;
  for (const char* name : {"zeta", "alpha", "mid"}) {
    AddTable(plan, name, shardplan::v1::TABLE_WISE, {{0, 0, 10, 0, 4}});
  }
  const ordered_json module = Format(plan)["plan"]["embedding_bag_collection"];
  std::vector<std::string> names;
  for (const auto& [name, entry] : module.items()) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"zeta", "alpha", "mid"}));
}

std::string PlacementOf(const shardplan::v1::Plan& plan, const TorchRecOptions& options = {}) {
  return Format(plan, options)["plan"]["embedding_bag_collection"]["t"]["shards"][0]["placement"];
}

TEST(FormatTorchRecPlanTest, PlacesRanksByThePlansLocalWorldSize) {
  // Rank 123 of a 16 x 8 job is the fourth device of host 15.
  shardplan::v1::Plan plan;
  AddTable(plan, "t", shardplan::v1::TABLE_WISE, {{123, 0, 10, 0, 4}});
  for (int d = 0; d < 128; ++d) plan.add_devices()->set_device(d);
  plan.set_local_world_size(8);
  EXPECT_EQ(PlacementOf(plan), "rank:123/cuda:3");
  // The caller's local world size wins over the plan's.
  EXPECT_EQ(PlacementOf(plan, {.local_world_size = 16}), "rank:123/cuda:11");
}

TEST(FormatTorchRecPlanTest, OneHostOfThePlansDevicesWithoutALocalWorldSize) {
  shardplan::v1::Plan plan;
  AddTable(plan, "t", shardplan::v1::TABLE_WISE, {{5, 0, 10, 0, 4}});
  // Without per-device figures the highest device used sets the count: 6 devices, one host.
  EXPECT_EQ(PlacementOf(plan), "rank:5/cuda:5");
  // With them, the device count is theirs (8 here), still one host.
  for (int d = 0; d < 8; ++d) plan.add_devices()->set_device(d);
  EXPECT_EQ(PlacementOf(plan), "rank:5/cuda:5");
  EXPECT_EQ(PlacementOf(plan, {.local_world_size = 2}), "rank:5/cuda:1");
}

TEST(FormatTorchRecPlanTest, TableWithoutShardsIsInvalid) {
  shardplan::v1::Plan plan;
  AddTable(plan, "empty", shardplan::v1::TABLE_WISE, {});
  const absl::Status status = FormatTorchRecPlan(plan, {}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "table empty has no shards");
}

TEST(FormatTorchRecPlanTest, EmptyPlanIsAnEmptyModule) {
  EXPECT_EQ(Format(shardplan::v1::Plan()),
            ordered_json::parse(R"({"plan": {"embedding_bag_collection": {}}})"));
}

TEST(ShardingTypeNameTest, TorchRecSpellings) {
  EXPECT_EQ(ShardingTypeName(shardplan::v1::TABLE_WISE), "table_wise");
  EXPECT_EQ(ShardingTypeName(shardplan::v1::COLUMN_WISE), "column_wise");
  EXPECT_EQ(ShardingTypeName(shardplan::v1::ROW_WISE), "row_wise");
  EXPECT_EQ(ShardingTypeName(shardplan::v1::DATA_PARALLEL), "data_parallel");
  EXPECT_EQ(ShardingTypeName(shardplan::v1::TABLE_ROW_WISE), "table_row_wise");
}

TEST(ParseTorchRecPlanTest, ReadsBackWhatFormatWrites) {
  shardplan::v1::Plan plan;
  AddTable(plan, "a", shardplan::v1::TABLE_WISE, {{5, 0, 100, 0, 16}});
  AddTable(plan, "b", shardplan::v1::COLUMN_WISE, {{3, 0, 50, 0, 8}, {3, 0, 50, 8, 8}});
  const ordered_json exported = Format(plan, {.local_world_size = 4});
  absl::StatusOr<shardplan::v1::Plan> parsed = ParseTorchRecPlan(nlohmann::json(exported));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->tables_size(), 2);
  EXPECT_EQ(parsed->tables(0).table(), "a");
  EXPECT_EQ(parsed->tables(0).sharding_type(), shardplan::v1::TABLE_WISE);
  EXPECT_EQ(parsed->tables(0).shards(0).device(), 5);  // rank 5, cuda:1
  EXPECT_EQ(parsed->tables(0).shards(0).row_count(), 100);
  EXPECT_EQ(parsed->tables(1).sharding_type(), shardplan::v1::COLUMN_WISE);
  ASSERT_EQ(parsed->tables(1).shards_size(), 2);
  EXPECT_EQ(parsed->tables(1).shards(1).column_offset(), 8);
  EXPECT_EQ(parsed->tables(1).shards(1).column_count(), 8);
}

TEST(ParseTorchRecPlanTest, ReadsEveryModuleAndCpuPlacements) {
  const nlohmann::json plan = nlohmann::json::parse(R"({"plan": {
    "sparse.ebc": {"x": {"sharding_type": "table_wise", "compute_kernel": "fused",
      "ranks": [1], "shards": [{"shard_offsets": [0, 0], "shard_sizes": [10, 4],
                                "placement": "rank:1/cpu"}]}},
    "over.ebc": {"y": {"sharding_type": "row_wise", "compute_kernel": "fused", "ranks": [0, 1],
      "shards": [{"shard_offsets": [0, 0], "shard_sizes": [5, 4], "placement": "rank:0/cuda:0"},
                 {"shard_offsets": [5, 0], "shard_sizes": [5, 4], "placement": "rank:1/cuda:1"}]}}
  }})");
  absl::StatusOr<shardplan::v1::Plan> parsed = ParseTorchRecPlan(plan);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->tables_size(), 2);
  // Modules come in key order (plans are order-free: the server sorts tables by name).
  const auto& y = parsed->tables(0);
  const auto& x = parsed->tables(1);
  ASSERT_EQ(x.table(), "x");
  ASSERT_EQ(y.table(), "y");
  EXPECT_EQ(x.shards(0).device(), 1);
  EXPECT_EQ(y.sharding_type(), shardplan::v1::ROW_WISE);
  EXPECT_EQ(y.shards(1).row_offset(), 5);
  EXPECT_EQ(y.shards(1).device(), 1);
}

// TorchRec's table_row_wise(host_index=1) on two hosts of four: ceil(10/4) = 3 rows per rank.
constexpr char kTableRowWise[] = R"({"plan": {"ebc": {"t": {
  "sharding_type": "table_row_wise", "compute_kernel": "fused", "ranks": [4, 5, 6, 7], "shards": [
    {"shard_offsets": [0, 0], "shard_sizes": [3, 8], "placement": "rank:4/cuda:0"},
    {"shard_offsets": [3, 0], "shard_sizes": [3, 8], "placement": "rank:5/cuda:1"},
    {"shard_offsets": [6, 0], "shard_sizes": [3, 8], "placement": "rank:6/cuda:2"},
    {"shard_offsets": [9, 0], "shard_sizes": [1, 8], "placement": "rank:7/cuda:3"}]}}}})";

TEST(ParseTorchRecPlanTest, ReadsTableRowWise) {
  absl::StatusOr<shardplan::v1::Plan> parsed =
      ParseTorchRecPlan(nlohmann::json::parse(kTableRowWise));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const auto& table = parsed->tables(0);
  EXPECT_EQ(table.sharding_type(), shardplan::v1::TABLE_ROW_WISE);
  ASSERT_EQ(table.shards_size(), 4);
  EXPECT_EQ(table.shards(3).device(), 7);
  EXPECT_EQ(table.shards(3).row_offset(), 9);
  EXPECT_EQ(table.shards(3).row_count(), 1);
  EXPECT_EQ(table.shards(3).column_count(), 8);
}

TEST(ParseTorchRecPlanTest, DropsTheZeroRowShardsOfTorchRecsRowSplit) {
  // TorchRec's row_wise split of 5 rows over 4 ranks is 2, 2, 1, 0: rank 3 holds nothing.
  const nlohmann::json plan = nlohmann::json::parse(R"({"plan": {"ebc": {"t": {
    "sharding_type": "row_wise", "compute_kernel": "fused", "ranks": [0, 1, 2, 3], "shards": [
      {"shard_offsets": [0, 0], "shard_sizes": [2, 4], "placement": "rank:0/cuda:0"},
      {"shard_offsets": [2, 0], "shard_sizes": [2, 4], "placement": "rank:1/cuda:1"},
      {"shard_offsets": [4, 0], "shard_sizes": [1, 4], "placement": "rank:2/cuda:2"},
      {"shard_offsets": [5, 0], "shard_sizes": [0, 4], "placement": "rank:3/cuda:3"}]}}}})");
  absl::StatusOr<shardplan::v1::Plan> parsed = ParseTorchRecPlan(plan);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->tables(0).shards_size(), 3);
  EXPECT_EQ(parsed->tables(0).shards(2).device(), 2);
  EXPECT_EQ(parsed->tables(0).shards(2).row_count(), 1);
}

TEST(ParseTorchRecPlanTest, DataParallelWithoutShardsIsAFullReplicaPerRank) {
  const nlohmann::json plan = nlohmann::json::parse(R"({"plan": {"ebc": {"dp": {
    "sharding_type": "data_parallel", "compute_kernel": "dense", "ranks": [0, 1, 2, 3]}}}})");
  absl::StatusOr<shardplan::v1::Plan> parsed = ParseTorchRecPlan(plan, {{"dp", {1000, 16}}});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const auto& table = parsed->tables(0);
  EXPECT_EQ(table.sharding_type(), shardplan::v1::DATA_PARALLEL);
  ASSERT_EQ(table.shards_size(), 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(table.shards(i).device(), i);
    EXPECT_EQ(table.shards(i).row_offset(), 0);
    EXPECT_EQ(table.shards(i).row_count(), 1000);
    EXPECT_EQ(table.shards(i).column_offset(), 0);
    EXPECT_EQ(table.shards(i).column_count(), 16);
  }
}

TEST(ParseTorchRecPlanTest, DataParallelNeedsTheTablesShapeAndItsRanks) {
  const auto message = [](const char* text, const TableShapes& shapes) {
    return std::string(ParseTorchRecPlan(nlohmann::json::parse(text), shapes).status().message());
  };
  const char* dp = R"({"plan": {"m": {"dp": {"sharding_type": "data_parallel",
                      "compute_kernel": "dense", "ranks": [0, 1]}}}})";
  const absl::Status unknown = ParseTorchRecPlan(nlohmann::json::parse(dp), {}).status();
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(unknown.message(),
            "plan.m.dp: a data_parallel table without \"shards\" is a full replica on each of "
            "its \"ranks\", so shardplan needs its shape, and the task has no table \"dp\"");
  EXPECT_EQ(message(dp, {{"other", {10, 4}}}), std::string(unknown.message()));
  EXPECT_THAT(
      message(R"({"plan": {"m": {"dp": {"sharding_type": "data_parallel"}}}})", {{"dp", {10, 4}}}),
      ::testing::StartsWith("plan.m.dp.ranks: expected the replicas' ranks"));
  EXPECT_EQ(message(R"({"plan": {"m": {"dp": {"sharding_type": "data_parallel",
                       "ranks": [0, -1]}}}})",
                    {{"dp", {10, 4}}}),
            "plan.m.dp.ranks[1]: -1 is not a rank");
}

TEST(ParseTorchRecPlanTest, ReadsBackEveryTypeFormatWrites) {
  shardplan::v1::Plan plan;
  AddTable(plan, "tw", shardplan::v1::TABLE_WISE, {{5, 0, 100, 0, 16}});
  AddTable(plan, "cw", shardplan::v1::COLUMN_WISE, {{3, 0, 50, 0, 8}, {3, 0, 50, 8, 8}});
  AddTable(plan, "rw", shardplan::v1::ROW_WISE,
           {{0, 0, 3, 0, 8}, {1, 3, 3, 0, 8}, {2, 6, 3, 0, 8}, {3, 9, 1, 0, 8}});
  AddTable(plan, "twrw", shardplan::v1::TABLE_ROW_WISE, {{4, 0, 6, 0, 4}, {5, 6, 4, 0, 4}});
  AddTable(plan, "dp", shardplan::v1::DATA_PARALLEL,
           {{0, 0, 7, 0, 4}, {1, 0, 7, 0, 4}, {2, 0, 7, 0, 4}, {3, 0, 7, 0, 4}});
  const ordered_json exported = Format(plan, {.local_world_size = 4});
  absl::StatusOr<shardplan::v1::Plan> parsed =
      ParseTorchRecPlan(nlohmann::json(exported), {{"dp", {7, 4}}});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  // The plan's tables were listed in TorchRec's order already; the JSON object sorts them.
  std::map<std::string, std::string> want, got;
  for (const auto& table : plan.tables()) want[table.table()] = table.SerializeAsString();
  for (const auto& table : parsed->tables()) got[table.table()] = table.SerializeAsString();
  EXPECT_EQ(got, want);
}

TEST(ParseTorchRecPlanTest, ErrorsNameTheField) {
  const auto message = [](const char* text) {
    return std::string(ParseTorchRecPlan(nlohmann::json::parse(text)).status().message());
  };
  EXPECT_EQ(message(R"({"plan": {"m": {"t": {"sharding_type": "grid_shard", "shards": []}}}})"),
            "plan.m.t.sharding_type: \"grid_shard\" is not one shardplan reads (table_wise, "
            "column_wise, row_wise, table_row_wise, data_parallel)");
  EXPECT_THAT(message(R"({"plan": {"m": {"t": {"sharding_type": "row_wise"}}}})"),
              ::testing::StartsWith("plan.m.t.shards: missing"));
  EXPECT_THAT(message(R"({"plan": {"m": {"t": {"sharding_type": "row_wise", "shards": []}}}})"),
              ::testing::StartsWith("plan.m.t.shards: missing"));
  EXPECT_THAT(message(R"({"plan": {"m": {"t": {"sharding_type": "table_wise", "shards": [
                {"shard_offsets": [0, 0], "shard_sizes": [1, 4], "placement": "cuda:0"}]}}}})"),
              ::testing::StartsWith("plan.m.t.shards[0].placement: \"cuda:0\" is not"));
  EXPECT_THAT(message(R"({"plan": {"m": {"t": {"sharding_type": "table_wise", "shards": [
                {"shard_offsets": [0], "shard_sizes": [1, 4], "placement": "rank:0/cuda:0"}]}}}})"),
              ::testing::StartsWith("plan.m.t.shards[0].shard_offsets: expected [rows, columns]"));
  EXPECT_THAT(message(R"({"plan": {"m": {"t": {"sharding_type": "table_wise", "shards": [
                {"shard_offsets": [0, 0], "shard_sizes": [1, 4], "placement": "rank:0/cpu"}]}},
              "n": {"t": {"sharding_type": "table_wise", "shards": [
                {"shard_offsets": [0, 0], "shard_sizes": [1, 4], "placement": "rank:0/cpu"}]}}}})"),
              ::testing::StartsWith("plan.n.t: table \"t\" appears in more than one module"));
  EXPECT_FALSE(LooksLikeTorchRecPlan(nlohmann::json::parse(R"({"plan": {"tables": []}})")));
  EXPECT_FALSE(LooksLikeTorchRecPlan(nlohmann::json::parse("[1]")));
}

// Layouts TorchRec has no sharding for are refused by table and reason, never exported as if
// they were one of its types.
TEST(FormatTorchRecPlanTest, RefusesLayoutsTorchRecCannotRun) {
  shardplan::v1::Plan plan;
  AddTable(plan, "hot", shardplan::v1::ROW_WISE,
           {{0, 0, 10, 0, 8}, {1, 0, 10, 0, 8}, {0, 10, 90, 0, 8}});
  EXPECT_EQ(FormatTorchRecPlan(plan, {}).status().message(),
            "table hot has no TorchRec sharding: rows [0, 10) are replicated (TorchRec has no "
            "replicated row groups)");

  plan.Clear();
  AddTable(plan, "dp", shardplan::v1::DATA_PARALLEL, {{0, 0, 100, 0, 8}, {1, 0, 100, 0, 8}});
  EXPECT_TRUE(FormatTorchRecPlan(plan, {}).ok());  // without figures the ranks are unknown
  for (int d = 0; d < 4; ++d) plan.add_devices()->set_device(d);
  EXPECT_EQ(FormatTorchRecPlan(plan, {}).status().message(),
            "table dp has no TorchRec sharding: it is data_parallel on 2 of 4 ranks (TorchRec "
            "replicates on every rank)");

  plan.Clear();
  AddTable(plan, "ranked", shardplan::v1::ROW_WISE, {{0, 0, 50, 0, 8}, {1, 50, 50, 0, 8}});
  plan.mutable_tables(0)->mutable_row_layout()->set_row_order(shardplan::v1::FREQUENCY_RANK);
  EXPECT_THAT(std::string(FormatTorchRecPlan(plan, {}).status().message()),
              ::testing::HasSubstr("frequency-rank order"));
}

}  // namespace
}  // namespace shardplan::cli
