#include "lab/training/datasets.h"

#include <zlib.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "costmodels/neural/table_features.h"
#include "gtest/gtest.h"
#include "lab/collection/cost_record.h"
#include "lab/data/table_pool.h"
#include "lab/training/gzip_lines.h"
#include "tests/unit/lab/training/training_test_data.h"
#include "tests/unit/support/test_files.h"

namespace shardplan::training {
namespace {

using testing_files::FreshDir;
using testing_files::WriteFile;

TablePool TwoTablePool() { return SmallPool(2); }

PoolLoader FixedPool(const std::string& sha) {
  return [sha](const std::string& path) -> absl::StatusOr<HashedPool> {
    if (path != "pool.json") return absl::NotFoundError("no such pool");
    return HashedPool{TwoTablePool(), sha};
  };
}

CostRecord ComputeRecord(int64_t id, std::vector<std::pair<int32_t, int32_t>> tables, double ms) {
  CostRecord record;
  record.id = id;
  record.kind = "compute";
  record.batch_size = 65536;
  record.backend = "sim";
  record.hardware_profile = "sim-test";
  record.pool = "pool.json";
  record.pool_sha256 = "abc";
  record.tables = std::move(tables);
  record.ms = ms;
  return record;
}

CostRecord CommRecord(int64_t id) {
  CostRecord record;
  record.id = id;
  record.kind = "comm";
  record.batch_size = 65536;
  record.backend = "sim";
  record.hardware_profile = "sim-test";
  record.num_devices = 2;
  record.dim_sums = {64 + id, 32};
  record.start_offsets_ms = {1.5, 0.0};
  record.forward_ms = {3.0, 4.0 + id};
  record.backward_ms = {2.0, 2.5};
  return record;
}

std::string Lines(const std::vector<CostRecord>& records) {
  std::string text;
  for (const CostRecord& record : records) absl::StrAppend(&text, CostRecordToJsonLine(record), "\n");
  return text;
}

TEST(LoadComputeDatasetTest, BuildsFeatureRowsPerSample) {
  const std::string path = FreshDir() + "/compute.jsonl.gz";
  WriteGzip(path, Lines({ComputeRecord(0, {{0, 4}, {1, 16}}, 1.25),
                         ComputeRecord(1, {{1, 8}}, 0.5)}));
  absl::StatusOr<ComputeDataset> data = LoadComputeDataset(path, FixedPool("abc"));
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ(data->size(), 2);
  EXPECT_EQ(data->backend, "sim");
  EXPECT_EQ(data->hardware_profile, "sim-test");
  EXPECT_EQ(data->row_offsets, (std::vector<int64_t>{0, 2, 3}));
  EXPECT_EQ(data->labels, (std::vector<float>{1.25f, 0.5f}));
  ASSERT_EQ(data->features.size(), 3u * kNumTableFeatures);
  std::array<float, kNumTableFeatures> expected;
  TableFeatures(TwoTablePool().tables[1], 16, expected);
  for (int f = 0; f < kNumTableFeatures; ++f) {
    EXPECT_EQ(data->features[kNumTableFeatures + f], expected[f]) << f;
  }
  EXPECT_EQ(data->row_keys[2], std::make_pair(1, 8));
}

TEST(LoadComputeDatasetTest, BadLineNamesFileAndLine) {
  const std::string path = FreshDir() + "/compute.jsonl";
  WriteFile(path, Lines({ComputeRecord(0, {{0, 4}}, 1.0)}) + "{\"id\": 1, \"kind\": \n");
  const absl::Status status = LoadComputeDataset(path, FixedPool("abc")).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find(path + ":2: "), std::string::npos) << status;
}

TEST(LoadComputeDatasetTest, PoolIndexOutOfRangeNamesTheField) {
  const std::string path = FreshDir() + "/compute.jsonl";
  WriteFile(path, Lines({ComputeRecord(0, {{0, 4}}, 1.0), ComputeRecord(1, {{0, 4}, {7, 4}}, 1.0)}));
  const absl::Status status = LoadComputeDataset(path, FixedPool("abc")).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find(":2: tables[1]: pool index 7"), std::string::npos) << status;
}

TEST(LoadComputeDatasetTest, PoolShaMismatchIsFailedPrecondition) {
  const std::string path = FreshDir() + "/compute.jsonl";
  WriteFile(path, Lines({ComputeRecord(0, {{0, 4}}, 1.0)}));
  const absl::Status status = LoadComputeDataset(path, FixedPool("def")).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find(":1: pool_sha256 abc"), std::string::npos) << status;
}

TEST(LoadComputeDatasetTest, MixedHardwareOrKindIsAnError) {
  const std::string dir = FreshDir();
  CostRecord other = ComputeRecord(1, {{0, 4}}, 1.0);
  other.hardware_profile = "sim-other";
  WriteFile(dir + "/mixed.jsonl", Lines({ComputeRecord(0, {{0, 4}}, 1.0), other}));
  absl::Status status = LoadComputeDataset(dir + "/mixed.jsonl", FixedPool("abc")).status();
  EXPECT_NE(status.message().find(":2: backend/hardware_profile"), std::string::npos) << status;
  WriteFile(dir + "/comm.jsonl", Lines({CommRecord(0)}));
  status = LoadComputeDataset(dir + "/comm.jsonl", FixedPool("abc")).status();
  EXPECT_NE(status.message().find(":1: kind: 'comm'"), std::string::npos) << status;
  WriteFile(dir + "/empty.jsonl", "\n");
  EXPECT_EQ(LoadComputeDataset(dir + "/empty.jsonl", FixedPool("abc")).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(LoadCommDatasetTest, SplitsForwardAndBackwardInputs) {
  const std::string path = FreshDir() + "/comm_2.jsonl.gz";
  WriteGzip(path, Lines({CommRecord(0), CommRecord(1)}));
  absl::StatusOr<CommDataset> data = LoadCommDataset(path);
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ(data->num_devices, 2);
  EXPECT_EQ(data->size(), 2);
  EXPECT_EQ(data->forward_inputs, (std::vector<float>{64, 32, 1.5, 0, 65, 32, 1.5, 0}));
  EXPECT_EQ(data->backward_inputs, (std::vector<float>{64, 32, 65, 32}));
  EXPECT_EQ(data->forward_labels, (std::vector<float>{3, 4, 3, 5}));
  EXPECT_EQ(data->backward_labels, (std::vector<float>{2, 2.5, 2, 2.5}));
}

TEST(LoadCommDatasetTest, WrongArrayLengthNamesLineAndField) {
  const std::string path = FreshDir() + "/comm.jsonl";
  CostRecord bad = CommRecord(1);
  bad.forward_ms = {1.0};
  CostRecord other_n = CommRecord(2);
  other_n.num_devices = 4;
  other_n.dim_sums = {1, 2, 3, 4};
  other_n.start_offsets_ms = other_n.forward_ms = other_n.backward_ms = {1, 2, 3, 4};
  WriteFile(path, Lines({CommRecord(0), bad}));
  absl::Status status = LoadCommDataset(path).status();
  EXPECT_NE(status.message().find(":2: "), std::string::npos) << status;
  EXPECT_NE(status.message().find("forward_ms"), std::string::npos) << status;
  WriteFile(path, Lines({CommRecord(0), other_n}));
  status = LoadCommDataset(path).status();
  EXPECT_NE(status.message().find(":2: num_devices: 4"), std::string::npos) << status;
}

}  // namespace
}  // namespace shardplan::training
