#include "lab/traces/request_trace_file.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan::traces {
namespace {

using ::testing::HasSubstr;

std::vector<RowSpaceTable> Tables() {
  return {{.name = "user", .rows = 10, .row_bytes = 64},
          {.name = "item", .rows = 5, .row_bytes = 32}};
}

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/" + name + ".sptrace";
}

std::string WriteTrace(const std::string& name, const std::vector<std::vector<uint64_t>>& requests,
                       bool finish = true) {
  const std::string path = TempPath(name);
  RequestTraceWriter writer = *RequestTraceWriter::Create(path, Tables());
  for (const auto& request : requests) EXPECT_TRUE(writer.Write(request).ok());
  if (finish) EXPECT_TRUE(writer.Finish().ok());
  return path;
}

std::string ReadAll(const std::string& path) {
  absl::StatusOr<RequestTraceReader> reader = RequestTraceReader::Open(path);
  if (!reader.ok()) return std::string(reader.status().message());
  std::vector<uint64_t> request;
  while (true) {
    absl::StatusOr<bool> more = reader->Next(request);
    if (!more.ok()) return std::string(more.status().message());
    if (!*more) return "ok";
  }
}

TEST(RequestTraceFileTest, RoundTripsRequestsOneAtATime) {
  const std::vector<std::vector<uint64_t>> requests = {
      {PackRowKey(0, 3), PackRowKey(1, 4)}, {}, {PackRowKey(0, 9), PackRowKey(0, 9)}};
  const std::string path = WriteTrace("round_trip", requests);
  RequestTraceReader reader = *RequestTraceReader::Open(path);
  ASSERT_EQ(reader.tables().size(), 2u);
  EXPECT_EQ(reader.tables()[1].name, "item");
  EXPECT_EQ(reader.tables()[1].row_bytes, 32);
  std::vector<uint64_t> request;
  for (const auto& expected : requests) {
    ASSERT_TRUE(*reader.Next(request));
    EXPECT_EQ(request, expected);
  }
  EXPECT_FALSE(*reader.Next(request));
  EXPECT_FALSE(*reader.Next(request));
  EXPECT_EQ(reader.requests_read(), 3);
  RequestTraceReader batched = *RequestTraceReader::Open(path);
  RequestBatch batch;
  EXPECT_EQ(*batched.ReadInto(2, batch), 2);
  EXPECT_EQ(*batched.ReadInto(5, batch), 1);
  EXPECT_EQ(batch.size(), 3);
}

TEST(RequestTraceFileTest, ErrorsNameTheField) {
  EXPECT_THAT(ReadAll(WriteTrace("unfinished", {{PackRowKey(0, 1)}}, false)),
              HasSubstr("request 1: truncated"));
  EXPECT_THAT(ReadAll(WriteTrace("bad_table", {{PackRowKey(0, 1)}, {PackRowKey(2, 0)}})),
              HasSubstr("request 1.keys[0].table: 2 is not one of the 2 tables"));
  EXPECT_THAT(ReadAll(WriteTrace("bad_row", {{PackRowKey(1, 1), PackRowKey(1, 5)}})),
              HasSubstr("request 0.keys[1].row: 5 is outside table \"item\"'s 5 rows"));
  const std::string not_a_trace = TempPath("not_a_trace");
  std::ofstream(not_a_trace) << "SPLOOKv1 something else";
  EXPECT_THAT(ReadAll(not_a_trace), HasSubstr("magic"));
  // Version 2 in place of 1.
  const std::string future = WriteTrace("future", {});
  {
    std::fstream file(future, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(8);
    const uint32_t version = 2;
    file.write(reinterpret_cast<const char*>(&version), 4);
  }
  EXPECT_THAT(ReadAll(future), HasSubstr("version: 2 is not supported"));
  EXPECT_THAT(RequestTraceReader::Open(TempPath("missing")).status().message(),
              HasSubstr("cannot open"));
  EXPECT_THAT(
      RequestTraceWriter::Create(TempPath("bad_header"), {{.name = "t", .rows = 0, .row_bytes = 4}})
          .status()
          .message(),
      HasSubstr("tables[0].rows"));
}

}  // namespace
}  // namespace shardplan::traces
