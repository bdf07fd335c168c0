// The served compute feature set's and the collective model's training data and training.
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "costmodels/neural/collective_model.h"
#include "costmodels/neural/table_features.h"
#include "gtest/gtest.h"
#include "lab/collection/cost_record.h"
#include "lab/training/datasets.h"
#include "lab/training/train_models.h"
#include "tests/unit/lab/training/training_test_data.h"
#include "tests/unit/support/test_files.h"

namespace shardplan::training {
namespace {

using testing_files::FreshDir;
using testing_files::WriteFile;

PoolLoader TwoTables() {
  return [](const std::string&) -> absl::StatusOr<HashedPool> {
    return HashedPool{SmallPool(2), "abc"};
  };
}

CostRecord Base(int64_t id, const std::string& kind) {
  CostRecord record;
  record.id = id;
  record.kind = kind;
  record.batch_size = 65536;
  record.backend = "sim";
  record.hardware_profile = "sim-test";
  record.pool = "pool.json";
  record.pool_sha256 = "abc";
  return record;
}

std::string ServedLines(const std::vector<CostRecord>& records) {
  std::string text;
  for (const CostRecord& r : records) absl::StrAppend(&text, CostRecordToJsonLine(r), "\n");
  return text;
}

TEST(ServedComputeDatasetTest, ReadsWholeTablesAndShardsAsWhatTheyServe) {
  const std::string dir = FreshDir();
  CostRecord whole = Base(0, "compute");
  whole.tables = {{1, 16}};
  whole.ms = 1.5;
  CostRecord shards = Base(0, "shards");
  shards.shards = {
      {.table = 1, .dim = 8, .type = ShardingType::kRowWise, .group_size = 4, .rows = 500},
      {.table = 0, .dim = 4, .type = ShardingType::kDataParallel, .group_size = 8, .rows = 1000},
      {.table = 0,
       .dim = 4,
       .type = ShardingType::kRowWise,
       .group_size = 4,
       .rows = 0}};  // an empty block: no row
  shards.ms = 0.75;
  WriteFile(dir + "/compute.jsonl", ServedLines({whole}));
  WriteFile(dir + "/shards.jsonl", ServedLines({shards}));

  absl::StatusOr<ComputeDataset> data =
      LoadComputeDataset(dir + "/compute.jsonl", TwoTables(), ShardFeatureSet::kServed);
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ(data->width, kNumServedFeatures);
  absl::StatusOr<ComputeDataset> more =
      LoadComputeDataset(dir + "/shards.jsonl", TwoTables(), ShardFeatureSet::kServed);
  ASSERT_TRUE(more.ok()) << more.status();
  ASSERT_TRUE(AppendComputeDataset(*data, *more).ok());
  EXPECT_EQ(data->size(), 2);
  EXPECT_EQ(data->row_offsets, (std::vector<int64_t>{0, 1, 3}));
  EXPECT_EQ(data->labels, (std::vector<float>{1.5f, 0.75f}));
  ASSERT_EQ(data->features.size(), 3u * kNumServedFeatures);
  const TablePool pool = SmallPool(2);
  // The whole table: its 20 features and batch_share 1.
  std::array<float, kNumTableFeatures> table;
  TableFeatures(pool.tables[1], 16, table);
  for (int f = 0; f < kNumTableFeatures; ++f) EXPECT_EQ(data->features[f], table[f]) << f;
  EXPECT_EQ(data->features[kNumTableFeatures], 1.0f);
  // The row block: a quarter of the lookups, its 500 rows.
  const float* rw = data->features.data() + kNumServedFeatures;
  EXPECT_FLOAT_EQ(rw[18], static_cast<float>(pool.tables[1].pooling_factor / 4));
  EXPECT_EQ(rw[19], 500.0f);
  // The replica: an eighth of the batch.
  const float* dp = data->features.data() + 2 * kNumServedFeatures;
  EXPECT_FLOAT_EQ(dp[kNumTableFeatures], 1.0f / 8);
  EXPECT_EQ(data->row_variants.size(), 3u);
  EXPECT_EQ(data->row_variants[0], 0);
  EXPECT_NE(data->row_variants[1], 0);

  // The reference feature set reads no shards records.
  const absl::Status refused = LoadComputeDataset(dir + "/shards.jsonl", TwoTables()).status();
  EXPECT_NE(refused.message().find("kind: 'shards', expected 'compute'"), std::string::npos)
      << refused;
  // Files of another feature set do not mix.
  absl::StatusOr<ComputeDataset> reference =
      LoadComputeDataset(dir + "/compute.jsonl", TwoTables());
  ASSERT_TRUE(reference.ok());
  EXPECT_FALSE(AppendComputeDataset(*reference, *more).ok());
}

// A per-kernel-call model learns from samples of one call each: the loader counts the samples
// that span several (the record above: row-wise and data-parallel shards), and training refuses
// them, naming the file and the fix.
TEST(ServedComputeDatasetTest, PerKernelCallTrainingRefusesSamplesOfSeveralCalls) {
  const std::string dir = FreshDir();
  std::vector<CostRecord> one_call;
  for (int i = 0; i < 40; ++i) {
    CostRecord r = Base(i, "shards");
    r.shards = {{.table = i % 2, .dim = 8, .type = ShardingType::kRowWise, .group_size = 4,
                 .rows = 250},
                {.table = 1 - i % 2, .dim = 4, .type = ShardingType::kRowWise, .group_size = 8,
                 .rows = 125}};
    r.ms = 0.5 + 0.01 * i;
    one_call.push_back(r);
  }
  CostRecord mixed = Base(40, "shards");
  mixed.shards = {
      {.table = 1, .dim = 8, .type = ShardingType::kRowWise, .group_size = 4, .rows = 500},
      {.table = 0, .dim = 4, .type = ShardingType::kDataParallel, .group_size = 8, .rows = 1000}};
  mixed.ms = 0.75;
  WriteFile(dir + "/calls.jsonl", ServedLines(one_call));
  std::vector<CostRecord> with_mixed = one_call;
  with_mixed.push_back(mixed);
  WriteFile(dir + "/mixed.jsonl", ServedLines(with_mixed));
  absl::StatusOr<ComputeDataset> calls =
      LoadComputeDataset(dir + "/calls.jsonl", TwoTables(), ShardFeatureSet::kServed);
  ASSERT_TRUE(calls.ok()) << calls.status();
  EXPECT_EQ(calls->multi_call_samples, 0);
  absl::StatusOr<ComputeDataset> several =
      LoadComputeDataset(dir + "/mixed.jsonl", TwoTables(), ShardFeatureSet::kServed);
  ASSERT_TRUE(several.ok()) << several.status();
  EXPECT_EQ(several->multi_call_samples, 1);

  TrainOptions options;
  options.max_epochs = 2;
  ComputeFeatureSet per_call;
  per_call.calls = ComputeCalls::kPerKernelCall;
  const absl::Status refused =
      TrainComputeModel(*several, options, per_call, ComputeLoss{}).status();
  EXPECT_NE(refused.message().find("1 samples hold shards of several kernel calls"),
            std::string::npos)
      << refused;
  absl::StatusOr<TrainedCompute> trained =
      TrainComputeModel(*calls, options, per_call, ComputeLoss{});
  ASSERT_TRUE(trained.ok()) << trained.status();
  EXPECT_EQ(trained->model.calls(), ComputeCalls::kPerKernelCall);
}

// One record per call: a DATA_PARALLEL all-reduce over `devices` devices in hosts of 2, each
// member's time a known function of its bytes and group.
CostRecord AllReduceRecord(int64_t id, int devices, double bytes) {
  CostRecord record = Base(id, "collective");
  record.num_devices = devices;
  record.devices_per_host = 2;
  std::vector<int32_t> all;
  for (int d = 0; d < devices; ++d) all.push_back(d);
  record.demands = {{.collective = Collective::kAllReduce,
                     .pass = Pass::kBackward,
                     .sharding = ShardingType::kDataParallel,
                     .bytes = bytes,
                     .devices = all,
                     .peers = all}};
  const double ms = 0.01 + bytes * 1e-7 * (2.0 - 2.0 / devices);
  record.forward_ms.assign(devices, 0.0);
  record.backward_ms.assign(devices, ms);
  return record;
}

TEST(CollectiveDatasetTest, OneRowPerMemberLabelledLnMs) {
  const std::string path = FreshDir() + "/collective.jsonl";
  WriteFile(path, ServedLines({AllReduceRecord(0, 4, 1e6), AllReduceRecord(1, 2, 5e5)}));
  absl::StatusOr<CollectiveDataset> data = LoadCollectiveDataset({path});
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ(data->size(), 2);
  EXPECT_EQ(data->record_offsets, (std::vector<int64_t>{0, 4, 6}));
  ASSERT_EQ(data->labels.size(), 6u);
  EXPECT_FLOAT_EQ(data->labels[0], static_cast<float>(std::log(0.01 + 1e6 * 1e-7 * 1.5)));
  EXPECT_EQ(data->rows.size(), 6u * kNumCollectiveCallFeatures);
  EXPECT_EQ(data->rows[3], 1.0f);  // is_all_reduce

  // A member whose time is zero is refused: the model predicts ln(ms).
  CostRecord zero = AllReduceRecord(0, 2, 1e6);
  zero.backward_ms[1] = 0.0;
  WriteFile(path, ServedLines({zero}));
  const absl::Status status = LoadCollectiveDataset({path}).status();
  EXPECT_NE(status.message().find(":1: device 1 spends 0 ms"), std::string::npos) << status;
}

TEST(CollectiveDatasetTest, TrainsAModelThatLearnsTheCalls) {
  std::vector<CostRecord> records;
  for (int i = 0; i < 200; ++i) {
    records.push_back(AllReduceRecord(i, 2 << (i % 4), std::pow(10.0, 3.0 + 4.0 * (i % 37) / 36)));
  }
  const std::string path = FreshDir() + "/collective.jsonl";
  WriteFile(path, ServedLines(records));
  absl::StatusOr<CollectiveDataset> data = LoadCollectiveDataset({path});
  ASSERT_TRUE(data.ok()) << data.status();
  TrainOptions options;
  options.max_epochs = 150;
  options.batch_size = 64;
  absl::StatusOr<TrainedCollectives> trained = TrainCollectiveModel(*data, options);
  ASSERT_TRUE(trained.ok()) << trained.status();
  // ln(ms) spans about 4 here; a model that learned the calls is far closer than that.
  EXPECT_LT(trained->report.result.test_mse, 0.05);
  // The model it returns predicts ms, not ln(ms).
  const double ms = trained->model.PredictMemberMs(
      std::span<const float>(data->rows.data(), kNumCollectiveCallFeatures));
  EXPECT_NEAR(std::log(ms), data->labels[0], 0.3);
}

}  // namespace
}  // namespace shardplan::training
