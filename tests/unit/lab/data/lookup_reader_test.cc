#include "lab/data/lookup_reader.h"

#include <cstring>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/support/test_files.h"

namespace shardplan {
namespace {

using testing::ElementsAre;
using testing::HasSubstr;
using testing_files::FreshDir;
using testing_files::WriteFile;

template <typename T>
void Append(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

// The binary format of docs/table-pool.md, written by hand.
std::string Binary(const std::vector<TableLookups>& tables) {
  std::string out = kLookupBinaryMagic;
  Append<uint64_t>(out, tables.size());
  for (const TableLookups& t : tables) {
    Append<uint32_t>(out, static_cast<uint32_t>(t.name.size()));
    out += t.name;
    Append<uint64_t>(out, t.offsets.size() - 1);
    Append<uint64_t>(out, t.indices.size());
    for (int64_t o : t.offsets) Append(out, o);
    for (int64_t i : t.indices) Append(out, i);
  }
  return out;
}

TEST(CostDataLookupReader, ReadsTextBlocksWithCommentsAndBlankLines) {
  const std::string path = FreshDir() + "/lookups.txt";
  WriteFile(path,
            "# two tables\n"
            "table user_id\n"
            "offsets 0 3 5\n"
            "indices 7 3 7 0 7\n"
            "\n"
            "table empty\r\n"
            "offsets 0 0\r\n"
            "indices\r\n");
  absl::StatusOr<TablePool> pool = ProfileLookupFile(path);
  ASSERT_TRUE(pool.ok()) << pool.status();
  ASSERT_EQ(pool->tables.size(), 2u);
  EXPECT_EQ(pool->tables[0].name, "user_id");
  EXPECT_DOUBLE_EQ(pool->tables[0].pooling_factor, 2.5);
  EXPECT_DOUBLE_EQ(pool->tables[0].access_bins[0], 2.0 / 3);
  EXPECT_EQ(pool->tables[1].name, "empty");
  EXPECT_EQ(pool->tables[1].pooling_factor, 0.0);
  EXPECT_EQ(pool->tables[1].rows, 100);
  EXPECT_THAT(pool->source, HasSubstr(path));
}

TEST(CostDataLookupReader, ReadsBinaryTablesOneAtATime) {
  const std::string path = FreshDir() + "/lookups.bin";
  WriteFile(path, Binary({{"a", {0, 1, 3}, {250, 250, 1}}, {"b", {0, 0}, {}}}));
  absl::StatusOr<LookupReader> reader = LookupReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status();
  auto first = reader->Next();
  ASSERT_TRUE(first.ok() && first->has_value());
  EXPECT_EQ((*first)->name, "a");
  EXPECT_THAT((*first)->offsets, ElementsAre(0, 1, 3));
  EXPECT_THAT((*first)->indices, ElementsAre(250, 250, 1));
  auto second = reader->Next();
  ASSERT_TRUE(second.ok() && second->has_value());
  EXPECT_EQ((*second)->name, "b");
  auto end = reader->Next();
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value());

  absl::StatusOr<TablePool> pool = ProfileLookupFile(path);
  ASSERT_TRUE(pool.ok()) << pool.status();
  EXPECT_EQ(pool->tables[0].rows, 251);
  EXPECT_DOUBLE_EQ(pool->tables[0].access_bins[0], 0.5);
  EXPECT_DOUBLE_EQ(pool->tables[0].access_bins[1], 0.5);
}

struct BadCase {
  std::string contents;
  std::string expected;
};

TEST(CostDataLookupReader, ErrorsNameFileTableFieldAndReason) {
  const std::string dir = FreshDir();
  std::string truncated = Binary({{"a", {0, 2}, {1, 2}}});
  truncated.resize(truncated.size() - 3);
  std::string trailing = Binary({{"a", {0, 1}, {1}}}) + "x";
  // A corrupt index count (2^36) must fail before allocating 512 GiB.
  std::string huge_count = Binary({{"a", {0, 1}, {1}}});
  const uint64_t bad = uint64_t{1} << 36;
  std::memcpy(huge_count.data() + 8 + 8 + 4 + 1 + 8, &bad, 8);
  const BadCase cases[] = {
      {"offsets 0 1\n", "table 0 line 1: table: expected a line \"table NAME\""},
      {"table a\nindices 1\n", "table 0 (\"a\") line 2: offsets: expected a line starting"},
      {"table a\noffsets 0 1\n", "table 0 (\"a\") line 2: indices: missing line"},
      {"table a\noffsets 0 1\nindices 1\ntable b\noffsets 0 x1\nindices 1\n",
       "table 1 (\"b\") line 5: offsets[1]: not an integer: \"x1\""},
      {"table a\noffsets 0 2\nindices 1\n", "table 0: table \"a\": offsets: last offset 2"},
      {truncated,
       "table 0 (\"a\"): offsets/indices: batch size 1 and index count 2 need 32 bytes; "
       "the file has 29 left"},
      {huge_count, "index count 68719476736 need"},
      {trailing, "trailing bytes after the last announced table"},
  };
  int i = 0;
  for (const BadCase& c : cases) {
    const std::string path = dir + "/bad" + std::to_string(i++);
    WriteFile(path, c.contents);
    absl::StatusOr<TablePool> pool = ProfileLookupFile(path);
    EXPECT_EQ(pool.status().code(), absl::StatusCode::kInvalidArgument) << c.expected;
    EXPECT_THAT(pool.status().message(), HasSubstr(path + ": ")) << c.expected;
    EXPECT_THAT(pool.status().message(), HasSubstr(c.expected));
  }
  EXPECT_EQ(ProfileLookupFile(dir + "/missing").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace shardplan
