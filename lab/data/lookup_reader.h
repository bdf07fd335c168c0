#ifndef SHARDPLAN_LAB_DATA_LOOKUP_READER_H_
#define SHARDPLAN_LAB_DATA_LOOKUP_READER_H_

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lab/data/table_pool.h"

namespace shardplan {

// One table's lookups for one batch, FBGEMM layout (see ProfileTable).
struct TableLookups {
  std::string name;
  std::vector<int64_t> offsets;  // batch + 1 entries
  std::vector<int64_t> indices;
};

// First 8 bytes of the binary lookup format (docs/table-pool.md).
inline constexpr char kLookupBinaryMagic[] = "SPLOOKv1";

// Reads a lookup file one table at a time, so a file of many large tables needs memory for one
// table only. The format is detected from the first bytes (docs/table-pool.md):
//   text:   blocks of three lines per table: "table NAME", "offsets O0 O1 ... OB",
//           "indices I0 I1 ..." ('#' lines and blank lines are skipped);
//   binary: "SPLOOKv1", uint64 table count, then per table: uint32 name length, name bytes,
//           uint64 batch size B, uint64 index count N, int64 offsets[B + 1], int64 indices[N];
//           all little-endian.
// Errors are INVALID_ARGUMENT "<file>: table <i> (\"<name>\"): <field>: <reason>".
class LookupReader {
 public:
  static absl::StatusOr<LookupReader> Open(const std::string& path);

  // The next table, or nullopt after the last one.
  absl::StatusOr<std::optional<TableLookups>> Next();

 private:
  LookupReader(std::string path, bool binary);

  absl::StatusOr<std::optional<TableLookups>> NextText();
  absl::StatusOr<std::optional<TableLookups>> NextBinary();
  absl::Status Error(const std::string& name, const std::string& field,
                     const std::string& why) const;

  std::string path_;
  bool binary_ = false;
  std::ifstream in_;
  int64_t table_index_ = 0;     // of the table being read
  int64_t line_number_ = 0;     // text: last line read
  uint64_t binary_tables_ = 0;  // binary: tables announced in the header
  uint64_t file_bytes_ = 0;
};

// Profiles every table of a lookup file (ProfileTable per table) into a pool whose source is
// "profiled from <path>".
absl::StatusOr<TablePool> ProfileLookupFile(const std::string& path);

}  // namespace shardplan

#endif  // SHARDPLAN_LAB_DATA_LOOKUP_READER_H_
