#include "proto/json/json_message.h"

#include <initializer_list>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "shardplan/v1/planner.pb.h"
#include "tests/unit/support/proto_fields.h"

namespace shardplan::proto_json {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string ParseError(const std::string& json) {
  v1::Task task;
  const absl::Status status = ParseJsonMessage(json, task);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << json;
  return std::string(status.message());
}

TEST(JsonMessageTest, ReadsBothSpellingsNumbersAsStringsAndEnumsByNameOrNumber) {
  v1::Task task;
  ASSERT_TRUE(ParseJsonMessage(R"({"tables": [{"name": "a", "rows": "12", "poolingFactor": 1.5,
                                               "element_type": 2},
                                              {"name": "b", "dim": 1e1, "elementType": "INT8"}],
                                  "max_planning_time_ms": null})",
                               task)
                  .ok());
  EXPECT_EQ(task.tables(0).rows(), 12);
  EXPECT_EQ(task.tables(0).pooling_factor(), 1.5);
  EXPECT_EQ(task.tables(0).element_type(), v1::FP16);
  EXPECT_EQ(task.tables(1).dim(), 10);
  EXPECT_EQ(task.tables(1).element_type(), v1::INT8);
}

TEST(JsonMessageTest, RefusesWhatProtobufWouldAcceptSilently) {
  // A lone value for a repeated field, and one field in both spellings.
  EXPECT_EQ(ParseError(R"({"tables": {"name": "a"}})"), "tables: expected an array, got an object");
  EXPECT_EQ(ParseError(R"({"tables": [{"access_bins": 0.5}]})"),
            "tables[0].access_bins: expected an array, got 0.5");
  EXPECT_EQ(
      ParseError(R"({"tables": [{"pooling_factor": 1, "poolingFactor": 2}]})"),
      "tables[0].pooling_factor: given twice, as \"poolingFactor\" and as \"pooling_factor\"");
  // In one spelling too: JSON parsers keep one of the two values, silently.
  EXPECT_EQ(ParseError(R"({"tables": [{"rows": 1, "pooling_factor": 1, "pooling_factor": 50}]})"),
            "tables[0].pooling_factor: given twice in one object; give each field once");
  EXPECT_EQ(ParseError(R"({"tables": [{"name": "a", "access_bins": [0, 1]},
                                      {"name": "b", "rows": 1, "rows": 2}]})"),
            "tables[1].rows: given twice in one object; give each field once");
  EXPECT_EQ(ParseError(R"({"batch_size": 1, "batch_size": 1})"),
            "batch_size: given twice in one object; give each field once");
}

TEST(JsonMessageTest, UnknownFieldsListTheKnownOnes) {
  EXPECT_THAT(ParseError(R"({"tables": [{"pool": 1}]})"),
              StartsWith("tables[0].pool: unknown field (known: name, rows, dim, pooling_factor"));
  EXPECT_THAT(ParseError(R"({"task": {}})"),
              StartsWith("task: unknown field (known: tables, topology, batch_size"));
}

TEST(JsonMessageTest, ShapesAndValuesNameTheFieldPath) {
  EXPECT_EQ(ParseError(R"({"tables": [{}, {}, {"rows": "ten"}]})"),
            "tables[2].rows: expected an integer, got \"ten\"");
  EXPECT_EQ(ParseError(R"({"tables": [{"rows": 2.5}]})"),
            "tables[0].rows: expected an integer, got 2.5");
  EXPECT_EQ(ParseError(R"({"tables": [{"dim": 3000000000}]})"),
            "tables[0].dim: 3000000000 is out of range [-2147483648, 2147483647]");
  EXPECT_EQ(ParseError(R"({"tables": [{"name": 7}]})"), "tables[0].name: expected a string, got 7");
  EXPECT_EQ(ParseError(R"({"tables": [{"pooling_factor": true}]})"),
            "tables[0].pooling_factor: expected a number, got true");
  EXPECT_EQ(ParseError(R"({"tables": [{"access_bins": [0.5, "x"]}]})"),
            "tables[0].access_bins[1]: expected a number, got \"x\"");
  EXPECT_EQ(ParseError(R"({"tables": [{"element_type": "FP64"}]})"),
            "tables[0].element_type: unknown ElementType \"FP64\" (expected one of "
            "ELEMENT_TYPE_UNSPECIFIED, FP32, FP16, INT8, BF16, UINT8, NFP8)");
  EXPECT_EQ(ParseError(R"({"tables": [5]})"), "tables[0]: expected an object, got 5");
  EXPECT_EQ(ParseError(R"({"colocate": [["a"]]})"),
            "colocate[0]: expected an object, got an array");
  EXPECT_EQ(ParseError(R"({"batchSize": []})"), "batch_size: expected an integer, got an array");
  EXPECT_EQ(ParseError(R"({"topology": 4})"), "topology: expected an object, got 4");
}

TEST(JsonMessageTest, UnsignedAndMapFields) {
  v1::Plan plan;
  EXPECT_EQ(ParseJsonMessage(R"({"seed": -1})", plan).message(),
            "seed: must not be negative, got -1");
  EXPECT_EQ(ParseJsonMessage(R"({"seed": "x"})", plan).message(),
            "seed: expected an unsigned integer, got \"x\"");
  EXPECT_EQ(ParseJsonMessage(R"({"parameters": []})", plan).message(),
            "parameters: expected an object, got an array");
  EXPECT_EQ(ParseJsonMessage(R"({"parameters": {"beam_width": 4}})", plan).message(),
            "parameters.beam_width: expected a string, got 4");
  EXPECT_EQ(ParseJsonMessage(R"({"stats": {"anytime_result": 1}})", plan).message(),
            "stats.anytime_result: expected true or false, got 1");
  EXPECT_EQ(ParseJsonMessage(R"({"tables": [{"sharding_type": "SIDEWAYS"}]})", plan).message(),
            "tables[0].sharding_type: unknown ShardingType \"SIDEWAYS\" (expected one of "
            "SHARDING_TYPE_UNSPECIFIED, TABLE_WISE, COLUMN_WISE, ROW_WISE, DATA_PARALLEL, "
            "TABLE_ROW_WISE)");
}

TEST(JsonMessageTest, SyntaxErrorsAndDocumentsThatAreNoObject) {
  EXPECT_THAT(ParseError(R"({"tables": [)"), StartsWith("invalid JSON: "));
  EXPECT_THAT(ParseError(""), StartsWith("invalid JSON: "));
  // nlohmann throws out_of_range, not parse_error, for a number no double holds.
  EXPECT_THAT(ParseError(R"({"batch_size": 1e400})"), StartsWith("invalid JSON: "));
  EXPECT_EQ(ParseError("[]"), "JSON document: expected an object, got an array");
}

TEST(JsonMessageTest, AFailedParseLeavesTheMessageEmpty) {
  v1::Task task;
  task.set_batch_size(7);
  EXPECT_FALSE(ParseJsonMessage(R"({"batch_size": 5, "tables": [{"rows": "x"}]})", task).ok());
  EXPECT_EQ(task.ByteSizeLong(), 0u);
}

TEST(JsonMessageTest, WritesSnakeCaseAndDefaultsOnRequest) {
  v1::Task task;
  task.add_tables()->set_name("a");
  task.mutable_tables(0)->set_pooling_factor(2.5);
  const nlohmann::json sparse = nlohmann::json::parse(WriteJsonMessage(task));
  EXPECT_EQ(sparse["tables"][0]["pooling_factor"], 2.5);
  EXPECT_FALSE(sparse["tables"][0].contains("rows"));
  const nlohmann::json full =
      nlohmann::json::parse(WriteJsonMessage(task, {.with_defaults = true}));
  EXPECT_EQ(full["tables"][0]["rows"], "0");  // proto3 JSON writes int64 as a string
  EXPECT_EQ(full["tables"][0]["element_type"], "ELEMENT_TYPE_UNSPECIFIED");
  EXPECT_FALSE(full["tables"][0].contains("pinned_device"));  // optional: absent stays absent
  EXPECT_THAT(WriteJsonMessage(task, {.pretty = true}), HasSubstr("\n"));
  EXPECT_EQ(WriteJsonMessage(task).find('\n'), std::string::npos);
}

// What a client may send and a file may hold: any bytes in a string field. The JSON is still
// valid (nothing the cache key or the plan store parse back could choke on).
TEST(JsonMessageTest, WritesStringsWithInvalidUtf8AsValidJson) {
  v1::Task task;
  task.add_tables()->set_name(std::string("a\xff\xfe", 3));
  const std::string json = WriteJsonMessage(task);
  EXPECT_FALSE(nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false).is_discarded())
      << json;
}

// Driven by the descriptors: every field of the messages files hold, non-default, written and
// read back unchanged, in both layouts.
TEST(JsonMessageTest, EveryFieldRoundTrips) {
  v1::Task task;
  v1::Plan plan;
  v1::PlanRequest request;
  for (google::protobuf::Message* message :
       std::initializer_list<google::protobuf::Message*>{&task, &plan, &request}) {
    test_support::FillEveryField(*message);
    for (const JsonWriteOptions options :
         {JsonWriteOptions{}, JsonWriteOptions{.pretty = true, .with_defaults = true}}) {
      std::unique_ptr<google::protobuf::Message> back(message->New());
      const std::string json = WriteJsonMessage(*message, options);
      ASSERT_TRUE(ParseJsonMessage(json, *back).ok()) << json;
      EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*message, *back)) << json;
    }
  }
}

}  // namespace
}  // namespace shardplan::proto_json
