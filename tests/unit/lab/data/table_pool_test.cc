#include "lab/data/table_pool.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/support/test_files.h"

namespace shardplan {
namespace {

using testing::HasSubstr;

Table MakeTable(const std::string& name, int64_t rows, double pooling) {
  Table t;
  t.name = name;
  t.rows = rows;
  t.pooling_factor = pooling;
  t.access_bins.assign(kNumAccessBins, 0.0);
  t.access_bins[0] = 0.25;
  t.access_bins[16] = 0.75;
  return t;
}

std::string OneTable(const std::string& table_json) {
  return "{\"format_version\": 1, \"source\": \"s\", \"tables\": [" + table_json + "]}";
}

const char kBins[] = "[1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]";

TEST(CostDataTablePool, SaveThenLoadRoundTrips) {
  TablePool pool;
  pool.source = "unit test \"quoted\"";
  pool.tables = {MakeTable("a", 100, 1.5), MakeTable("b", 12543670, 0.0)};
  pool.tables[1].access_bins.assign(kNumAccessBins, 0.0);  // an empty table
  const std::string path = testing_files::FreshDir() + "/pool.json";
  ASSERT_TRUE(SaveTablePool(pool, path).ok());
  absl::StatusOr<TablePool> loaded = LoadTablePool(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->source, pool.source);
  ASSERT_EQ(loaded->tables.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(loaded->tables[i].name, pool.tables[i].name);
    EXPECT_EQ(loaded->tables[i].rows, pool.tables[i].rows);
    EXPECT_EQ(loaded->tables[i].pooling_factor, pool.tables[i].pooling_factor);
    EXPECT_EQ(loaded->tables[i].access_bins, pool.tables[i].access_bins);
    EXPECT_EQ(loaded->tables[i].dim, 0);
  }
}

TEST(CostDataTablePool, MissingFileIsNotFound) {
  EXPECT_EQ(LoadTablePool("/nonexistent/pool.json").status().code(), absl::StatusCode::kNotFound);
}

TEST(CostDataTablePool, SaveRefusesTablesWithoutBins) {
  TablePool pool;
  pool.tables = {MakeTable("a", 100, 1.0)};
  pool.tables[0].access_bins.clear();
  EXPECT_THAT(SaveTablePool(pool, testing_files::FreshDir() + "/p.json").message(),
              HasSubstr("tables[0].access_bins"));
}

struct BadPoolCase {
  std::string text;
  std::string expected;
};

TEST(CostDataTablePool, ErrorsNameTheFileAndField) {
  const std::string ok_table = std::string("{\"name\": \"a\", \"rows\": 100, ") +
                               "\"pooling_factor\": 1, \"access_bins\": " + kBins + "}";
  const BadPoolCase cases[] = {
      {"not json", "p.json: (file): not valid JSON"},
      {"{\"tables\": []}", "format_version: missing"},
      {"{\"format_version\": 2, \"tables\": []}", "format_version: unsupported"},
      {"{\"format_version\": 1}", "tables: missing"},
      {"{\"format_version\": 1, \"tables\": [], \"extra\": 1}", "extra: unknown field"},
      {OneTable("{\"rows\": 100, \"pooling_factor\": 1, \"access_bins\": " + std::string(kBins) +
                "}"),
       "tables[0].name: missing"},
      {OneTable("{\"name\": \"a\", \"rows\": 0, \"pooling_factor\": 1, \"access_bins\": " +
                std::string(kBins) + "}"),
       "tables[0].rows: expected an integer >= 1"},
      {OneTable("{\"name\": \"a\", \"rows\": 100, \"pooling_factor\": -1, \"access_bins\": " +
                std::string(kBins) + "}"),
       "tables[0].pooling_factor"},
      {OneTable("{\"name\": \"a\", \"rows\": 100, \"pooling_factor\": 1, \"access_bins\": [1]}"),
       "tables[0].access_bins: expected 17 numbers"},
      {OneTable("{\"name\": \"a\", \"rows\": 100, \"pooling_factor\": 1, \"access_bins\": "
                "[0.5,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}"),
       "sum to 0.5"},
      {OneTable("{\"name\": \"a\", \"rows\": 100, \"pooling_factor\": 1, \"access_bins\": "
                "[2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}"),
       "tables[0].access_bins[0]: expected a number in [0, 1]"},
      {OneTable(ok_table + ", " + ok_table), "tables[1].name: duplicate name \"a\""},
      {OneTable("{\"name\": \"a\", \"dim\": 4}"), "tables[0].dim: unknown field"},
  };
  for (const BadPoolCase& c : cases) {
    absl::StatusOr<TablePool> pool = TablePoolFromJsonText(c.text, "p.json");
    EXPECT_EQ(pool.status().code(), absl::StatusCode::kInvalidArgument) << c.text;
    EXPECT_THAT(pool.status().message(), HasSubstr(c.expected)) << c.text;
  }
  EXPECT_TRUE(TablePoolFromJsonText(OneTable(ok_table), "p.json").ok());
}

}  // namespace
}  // namespace shardplan
