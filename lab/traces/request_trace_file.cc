#include "lab/traces/request_trace_file.h"

#include <bit>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace shardplan::traces {
namespace {

static_assert(std::endian::native == std::endian::little,
              "request traces are read by reinterpreting little-endian bytes");

constexpr size_t kTraceMagicSize = sizeof(kRequestTraceMagic) - 1;
constexpr uint32_t kEndMarker = 0xFFFFFFFFu;
constexpr uint32_t kMaxTraceNameBytes = 1 << 16;

template <typename T>
void Put(std::ofstream& out, T value) {
  out.write(reinterpret_cast<const char*>(&value), sizeof(T));
}

template <typename T>
bool Get(std::ifstream& in, T& value) {
  return static_cast<bool>(in.read(reinterpret_cast<char*>(&value), sizeof(T)));
}

}  // namespace

RequestTraceWriter::RequestTraceWriter(std::string path)
    : path_(std::move(path)), out_(path_, std::ios::binary | std::ios::trunc) {}

absl::StatusOr<RequestTraceWriter> RequestTraceWriter::Create(
    const std::string& path, const std::vector<RowSpaceTable>& tables) {
  SHARDPLAN_RETURN_IF_ERROR(RowShardMap::Create(tables, 1).status());
  RequestTraceWriter writer(path);
  if (!writer.out_) return absl::NotFoundError(absl::StrCat(path, ": cannot create"));
  writer.out_.write(kRequestTraceMagic, kTraceMagicSize);
  Put<uint32_t>(writer.out_, kRequestTraceVersion);
  Put<uint32_t>(writer.out_, static_cast<uint32_t>(tables.size()));
  for (const RowSpaceTable& table : tables) {
    Put<uint32_t>(writer.out_, static_cast<uint32_t>(table.name.size()));
    writer.out_.write(table.name.data(), static_cast<std::streamsize>(table.name.size()));
    Put<int64_t>(writer.out_, table.rows);
    Put<int64_t>(writer.out_, table.row_bytes);
  }
  return writer;
}

absl::Status RequestTraceWriter::Write(std::span<const uint64_t> request) {
  if (request.size() >= kMaxTraceRequestLookups) {
    return absl::InvalidArgumentError(absl::StrCat("request ", requests_, ": ", request.size(),
                                                   " lookups, at most ",
                                                   kMaxTraceRequestLookups - 1));
  }
  Put<uint32_t>(out_, static_cast<uint32_t>(request.size()));
  out_.write(reinterpret_cast<const char*>(request.data()),
             static_cast<std::streamsize>(request.size() * sizeof(uint64_t)));
  ++requests_;
  if (!out_) return absl::InternalError(absl::StrCat(path_, ": write failed"));
  return absl::OkStatus();
}

absl::Status RequestTraceWriter::Finish() {
  Put<uint32_t>(out_, kEndMarker);
  Put<uint64_t>(out_, static_cast<uint64_t>(requests_));
  out_.close();
  if (!out_) return absl::InternalError(absl::StrCat(path_, ": write failed"));
  return absl::OkStatus();
}

RequestTraceReader::RequestTraceReader(std::string path)
    : path_(std::move(path)), in_(path_, std::ios::binary) {}

absl::Status RequestTraceReader::Error(const std::string& field, const std::string& why) const {
  return absl::InvalidArgumentError(absl::StrCat(path_, ": ", field, ": ", why));
}

absl::StatusOr<RequestTraceReader> RequestTraceReader::Open(const std::string& path) {
  RequestTraceReader reader(path);
  if (!reader.in_) return absl::NotFoundError(absl::StrCat(path, ": cannot open request trace"));
  char magic[kTraceMagicSize] = {};
  if (!reader.in_.read(magic, kTraceMagicSize) ||
      std::memcmp(magic, kRequestTraceMagic, kTraceMagicSize) != 0) {
    return reader.Error(
        "magic", absl::StrCat("not a request trace (expected \"", kRequestTraceMagic, "\")"));
  }
  uint32_t version = 0, tables = 0;
  if (!Get(reader.in_, version)) return reader.Error("version", "truncated");
  if (version != kRequestTraceVersion) {
    return reader.Error("version", absl::StrCat(version, " is not supported (this reader reads ",
                                                kRequestTraceVersion, ")"));
  }
  if (!Get(reader.in_, tables)) return reader.Error("tables", "truncated count");
  if (tables < 1 || static_cast<int64_t>(tables) > kMaxRowKeyTables) {
    return reader.Error("tables",
                        absl::StrCat(tables, " tables is outside [1, ", kMaxRowKeyTables, "]"));
  }
  for (uint32_t t = 0; t < tables; ++t) {
    const std::string field = absl::StrCat("tables[", t, "]");
    RowSpaceTable table;
    uint32_t name_bytes = 0;
    if (!Get(reader.in_, name_bytes)) return reader.Error(field + ".name", "truncated");
    if (name_bytes < 1 || name_bytes > kMaxTraceNameBytes) {
      return reader.Error(field + ".name", absl::StrCat(name_bytes, " bytes is outside [1, ",
                                                        kMaxTraceNameBytes, "]"));
    }
    table.name.resize(name_bytes);
    if (!reader.in_.read(table.name.data(), name_bytes)) {
      return reader.Error(field + ".name", "truncated");
    }
    if (!Get(reader.in_, table.rows)) return reader.Error(field + ".rows", "truncated");
    if (!Get(reader.in_, table.row_bytes)) return reader.Error(field + ".row_bytes", "truncated");
    reader.tables_.push_back(std::move(table));
  }
  const absl::Status valid = RowShardMap::Create(reader.tables_, 1).status();
  if (!valid.ok()) return reader.Error("header", std::string(valid.message()));
  return reader;
}

absl::StatusOr<bool> RequestTraceReader::Next(std::vector<uint64_t>& request) {
  if (ended_) return false;
  const std::string where = absl::StrCat("request ", requests_read_);
  uint32_t count = 0;
  if (!Get(in_, count)) {
    return Error(where, "truncated: the file ends without its end marker (an unfinished trace?)");
  }
  if (count == kEndMarker) {
    uint64_t announced = 0;
    if (!Get(in_, announced)) return Error("end", "truncated request count");
    if (announced != static_cast<uint64_t>(requests_read_)) {
      return Error("end", absl::StrCat("announces ", announced, " requests, the file holds ",
                                       requests_read_));
    }
    ended_ = true;
    return false;
  }
  if (count >= kMaxTraceRequestLookups) {
    return Error(where + ".lookups",
                 absl::StrCat(count, " is over the limit of ", kMaxTraceRequestLookups - 1));
  }
  request.resize(count);
  if (!in_.read(reinterpret_cast<char*>(request.data()),
                static_cast<std::streamsize>(count * sizeof(uint64_t)))) {
    return Error(where + ".keys", absl::StrCat("truncated (", count, " announced)"));
  }
  for (uint32_t i = 0; i < count; ++i) {
    const int64_t table = TableOfKey(request[i]);
    if (table >= static_cast<int64_t>(tables_.size())) {
      return Error(absl::StrCat(where, ".keys[", i, "].table"),
                   absl::StrCat(table, " is not one of the ", tables_.size(), " tables"));
    }
    if (RowOfKey(request[i]) >= tables_[table].rows) {
      return Error(absl::StrCat(where, ".keys[", i, "].row"),
                   absl::StrCat(RowOfKey(request[i]), " is outside table \"", tables_[table].name,
                                "\"'s ", tables_[table].rows, " rows"));
    }
  }
  ++requests_read_;
  return true;
}

absl::StatusOr<int64_t> RequestTraceReader::ReadInto(int64_t count, RequestBatch& batch) {
  std::vector<uint64_t> request;
  int64_t read = 0;
  while (read < count) {
    SHARDPLAN_ASSIGN_OR_RETURN(bool more, Next(request));
    if (!more) break;
    batch.Add(request);
    ++read;
  }
  return read;
}

}  // namespace shardplan::traces
