#ifndef SHARDPLAN_LAB_TRACES_REQUEST_TRACE_FILE_H_
#define SHARDPLAN_LAB_TRACES_REQUEST_TRACE_FILE_H_

// Request traces on disk (docs/alis.md, "Request traces"): time-ordered inference requests, each
// the rows it looks up across all tables. The lookup files of lab/data/lookup_reader.h hold one
// batch table by table, so reading them request by request would need every table of the batch
// in memory at once; a trace is a stream of requests of unbounded length, hence a format of its
// own, read one request at a time.
//
// Binary, little-endian, version 1:
//   "SPREQTRC" (8 bytes), uint32 version (1), uint32 table count T,
//   per table: uint32 name length, the name's bytes, int64 rows, int64 row bytes;
//   per request: uint32 lookup count n (< 2^31), n x uint64 keys (PackRowKey(table, row));
//   the end: uint32 0xFFFFFFFF, uint64 the request count.
// A file without its end (a writer that died) is refused, as is every key outside the tables.

#include <cstdint>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "planner/domain/row_shard_map.h"
#include "planner/traffic/request_batch.h"

namespace shardplan::traces {

inline constexpr char kRequestTraceMagic[] = "SPREQTRC";
inline constexpr uint32_t kRequestTraceVersion = 1;
// A request's lookups, at most: guards the reader against a corrupt count.
inline constexpr uint32_t kMaxTraceRequestLookups = uint32_t{1} << 24;

class RequestTraceWriter {
 public:
  // Writes the header; INVALID_ARGUMENT naming the field for a bad table (as RowShardMap::Create).
  static absl::StatusOr<RequestTraceWriter> Create(const std::string& path,
                                                   const std::vector<RowSpaceTable>& tables);
  absl::Status Write(std::span<const uint64_t> request);
  // Writes the end; the file is complete only after it.
  absl::Status Finish();

 private:
  explicit RequestTraceWriter(std::string path);
  std::string path_;
  std::ofstream out_;
  int64_t requests_ = 0;
};

class RequestTraceReader {
 public:
  // Reads the header. NOT_FOUND for a missing file; INVALID_ARGUMENT "<path>: <field>: <why>"
  // for a bad magic, version or table.
  static absl::StatusOr<RequestTraceReader> Open(const std::string& path);

  const std::vector<RowSpaceTable>& tables() const { return tables_; }
  // The next request's keys into `request`; false after the last one (the end checked).
  // INVALID_ARGUMENT "<path>: request <i>: <field>: <why>" for a truncated file, a lookup count
  // over the limit, a key outside the tables, or an end whose count disagrees.
  absl::StatusOr<bool> Next(std::vector<uint64_t>& request);
  // Up to `count` next requests appended to `batch`; how many were read.
  absl::StatusOr<int64_t> ReadInto(int64_t count, RequestBatch& batch);
  int64_t requests_read() const { return requests_read_; }

 private:
  explicit RequestTraceReader(std::string path);
  absl::Status Error(const std::string& field, const std::string& why) const;

  std::string path_;
  std::ifstream in_;
  std::vector<RowSpaceTable> tables_;
  int64_t requests_read_ = 0;
  bool ended_ = false;
};

}  // namespace shardplan::traces

#endif  // SHARDPLAN_LAB_TRACES_REQUEST_TRACE_FILE_H_
