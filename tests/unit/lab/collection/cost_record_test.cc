#include "lab/collection/cost_record.h"

#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

using ::testing::HasSubstr;

CostRecord ComputeRecord() {
  CostRecord record;
  record.id = 17;
  record.kind = "compute";
  record.backend = "sim";
  record.hardware_profile = "sim-rtx2080ti";
  record.seed = 3;
  record.batch_size = 65536;
  record.pool = "data/table_pool/dlrm_856.json";
  record.pool_sha256 = "ab12";
  record.tables = {{812, 64}, {3, 4}};
  record.ms = 3.217;
  record.time = "2026-11-21T09:00:00Z";
  return record;
}

CostRecord CommRecord() {
  CostRecord record = ComputeRecord();
  record.kind = "comm";
  record.tables.clear();
  record.ms = 0;
  record.num_devices = 2;
  record.dim_sums = {128, 64};
  record.start_offsets_ms = {0, 3.5};
  record.forward_ms = {1.25, 0.5};
  record.backward_ms = {2, 2.5};
  return record;
}

TEST(CollectionCostRecord, ComputeLineHasTheDocumentedShape) {
  EXPECT_EQ(CostRecordToJsonLine(ComputeRecord()),
            R"({"id":17,"kind":"compute","backend":"sim","hardware_profile":"sim-rtx2080ti",)"
            R"("seed":3,"batch_size":65536,"pool":"data/table_pool/dlrm_856.json",)"
            R"("pool_sha256":"ab12","tables":[[812,64],[3,4]],"ms":3.217,)"
            R"("time":"2026-11-21T09:00:00Z"})");
}

TEST(CollectionCostRecord, ComputeRoundTrips) {
  const CostRecord record = ComputeRecord();
  absl::StatusOr<CostRecord> back = CostRecordFromJsonLine(CostRecordToJsonLine(record));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->id, record.id);
  EXPECT_EQ(back->seed, record.seed);
  EXPECT_EQ(back->tables, record.tables);
  EXPECT_EQ(back->ms, record.ms);
  EXPECT_EQ(back->time, record.time);
  EXPECT_EQ(CostRecordToJsonLine(*back), CostRecordToJsonLine(record));
}

TEST(CollectionCostRecord, CommRoundTrips) {
  const CostRecord record = CommRecord();
  const std::string line = CostRecordToJsonLine(record);
  EXPECT_THAT(line, Not(HasSubstr("tables")));
  absl::StatusOr<CostRecord> back = CostRecordFromJsonLine(line);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->num_devices, 2);
  EXPECT_EQ(back->dim_sums, record.dim_sums);
  EXPECT_EQ(back->start_offsets_ms, record.start_offsets_ms);
  EXPECT_EQ(back->forward_ms, record.forward_ms);
  EXPECT_EQ(back->backward_ms, record.backward_ms);
  EXPECT_EQ(CostRecordToJsonLine(*back), line);
}

std::string Replace(std::string text, const std::string& from, const std::string& to);

TEST(CollectionCostRecord, TheHostLayoutIsWrittenOnlyWhenChosen) {
  EXPECT_THAT(CostRecordToJsonLine(CommRecord()), Not(HasSubstr("devices_per_host")));
  CostRecord record = CommRecord();
  record.devices_per_host = 1;
  const std::string line = CostRecordToJsonLine(record);
  EXPECT_THAT(line, HasSubstr(R"("num_devices":2,"devices_per_host":1,)"));
  absl::StatusOr<CostRecord> back = CostRecordFromJsonLine(line);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->devices_per_host, 1);
  for (const char* bad : {R"("devices_per_host":3)", R"("devices_per_host":0)"}) {
    absl::StatusOr<CostRecord> refused =
        CostRecordFromJsonLine(Replace(line, R"("devices_per_host":1)", bad));
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_THAT(refused.status().message(), HasSubstr("devices_per_host")) << bad;
  }
}

TEST(CollectionCostRecord, LargeSeedSurvives) {
  CostRecord record = ComputeRecord();
  record.seed = 18446744073709551615ULL;
  absl::StatusOr<CostRecord> back = CostRecordFromJsonLine(CostRecordToJsonLine(record));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->seed, record.seed);
}

void ExpectInvalid(const std::string& line, const std::string& message) {
  absl::StatusOr<CostRecord> record = CostRecordFromJsonLine(line);
  ASSERT_FALSE(record.ok()) << line;
  EXPECT_EQ(record.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(record.status().message(), HasSubstr(message)) << line;
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(CollectionCostRecord, MalformedLinesNameTheField) {
  const std::string compute = CostRecordToJsonLine(ComputeRecord());
  const std::string comm = CostRecordToJsonLine(CommRecord());
  ExpectInvalid("{\"id\":", "not valid JSON");
  ExpectInvalid("[1,2]", "not a JSON object");
  ExpectInvalid(Replace(compute, R"("id":17,)", ""), "missing field 'id'");
  ExpectInvalid(Replace(compute, R"("id":17)", R"("id":1.5)"), "field 'id' is not an integer");
  ExpectInvalid(Replace(compute, R"("id":17)", R"("id":-1)"), "field 'id' is negative");
  ExpectInvalid(Replace(compute, R"("backend":"sim")", R"("backend":3)"), "field 'backend'");
  ExpectInvalid(Replace(compute, R"("kind":"compute")", R"("kind":"io")"), "field 'kind'");
  ExpectInvalid(Replace(compute, R"([3,4])", R"([3])"), "field 'tables[1]'");
  ExpectInvalid(Replace(compute, R"([3,4])", R"([3,0])"), "field 'tables[1]'");
  ExpectInvalid(Replace(compute, R"("ms":3.217)", R"("ms":"fast")"), "field 'ms'");
  ExpectInvalid(Replace(compute, R"("batch_size":65536)", R"("batch_size":0)"),
                "field 'batch_size'");
  ExpectInvalid(Replace(comm, R"("dim_sums":[128,64])", R"("dim_sums":[128])"),
                "field 'dim_sums' has 1 entries");
  ExpectInvalid(Replace(comm, R"("forward_ms":[1.25,0.5])", R"("forward_ms":[1.25,"x"])"),
                "field 'forward_ms'");
  ExpectInvalid(Replace(comm, R"("num_devices":2)", R"("num_devices":0)"), "num_devices");
}

}  // namespace
}  // namespace shardplan
