#include "costmodels/artifacts/model_bundle.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/sha256.h"
#include "costmodels/artifacts/weights_file.h"
#include "costmodels/neural/access_shapes.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/unit/costmodels/artifacts/bundle_test_util.h"
#include "tests/unit/planner/planner_test_util.h"

namespace shardplan {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing_bundle::MakeTempDir;
using testing_bundle::RandomDeviceSetModel;
using testing_bundle::RandomModel;
using testing_bundle::RandomServedModel;
using testing_bundle::ReadFile;
using testing_bundle::WriteFile;

using test::MakeTable;
using test::ShardingOf;

SubModelTraining Training(const std::string& data, int64_t samples, double test_mse) {
  return {absl::StrCat("data/", data, ".jsonl"),
          Sha256Hex(data),
          samples,
          40,
          0.5 * test_mse,
          0.9 * test_mse,
          test_mse,
          {},
          ""};
}

BundleInfo Info(const std::string& name, const std::string& version) {
  BundleInfo info;
  info.name = name;
  info.version = version;
  info.description = "test bundle \"quoted\" ünïcode";
  info.hardware_profile = "sim-rtx2080ti";
  info.backend = "sim";
  info.created = "2026-11-21T10:00:00Z";
  info.seed = 18446744073709551557ull;  // needs all 64 bits
  info.training["compute"] = Training("compute", 100000, 0.0123456789);
  info.training["comm_4_forward"] = Training("comm4", 5000, 0.25);
  info.training["comm_4_backward"] = Training("comm4", 5000, 0.125);
  info.training["comm_8_forward"] = Training("comm8", 7000, 1.5);
  return info;
}

std::vector<Table> SomeTables() {
  std::vector<Table> tables;
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int i = 0; i < 6; ++i) {
    Table t;
    t.name = absl::StrCat("t", i);
    t.rows = 1000 + static_cast<int64_t>(u(rng) * 3e6);
    t.dim = 16 << (i % 3);
    t.pooling_factor = 1 + 30 * u(rng);
    if (i % 2 == 0) {
      for (int j = 0; j < kNumAccessBins; ++j) t.access_bins.push_back(u(rng) / kNumAccessBins);
    }
    tables.push_back(t);
  }
  return tables;
}

void ExpectSamePredictions(const NeuralCostModel& a, const NeuralCostModel& b) {
  const std::vector<Table> tables = SomeTables();
  std::vector<ShardView> shards;
  for (const Table& t : tables) {
    shards.push_back({&t, t.rows, t.dim});
    // Bit-identical, not close: the bundle stores the exact floats and doubles.
    EXPECT_EQ(a.compute().Predict(shards), b.compute().Predict(shards)) << shards.size();
  }
  ASSERT_EQ(a.comm().size(), b.comm().size());
  for (const auto& [n, models] : a.comm()) {
    std::vector<int64_t> dims;
    std::vector<double> waits;
    for (int i = 0; i < n; ++i) {
      dims.push_back(64 * (i + 1) + 7);
      waits.push_back(0.37 * i);
    }
    const NeuralCommModels& other = b.comm().at(n);
    EXPECT_EQ(models.forward.Predict(dims, waits), other.forward.Predict(dims, waits));
    EXPECT_EQ(models.backward.Predict(dims, {}), other.backward.Predict(dims, {}));
  }
  EXPECT_EQ(a.comm_costs(), b.comm_costs());
}

class ModelBundleTest : public ::testing::Test {
 protected:
  ModelBundleTest() : root_(MakeTempDir()) {}
  ~ModelBundleTest() override { fs::remove_all(root_); }

  // Writes the standard bundle and returns its directory.
  std::string WriteStandard(const std::string& name = "neuro", const std::string& version = "3") {
    const NeuralCostModel model = RandomModel(name, version, {4, 8});
    const absl::Status status = WriteModelBundle(root_, Info(name, version), model);
    EXPECT_TRUE(status.ok()) << status;
    return ModelBundleDirectory(root_, name, version);
  }

  nlohmann::json ReadManifest(const std::string& dir) {
    return nlohmann::json::parse(ReadFile(dir + "/manifest.json"));
  }
  void WriteManifest(const std::string& dir, const nlohmann::json& manifest) {
    WriteFile(dir + "/manifest.json", manifest.dump(2));
  }

  // The error of reading `dir`, which must fail with FAILED_PRECONDITION.
  std::string Refusal(const std::string& dir) {
    auto bundle = ReadModelBundle(dir);
    EXPECT_FALSE(bundle.ok());
    if (bundle.ok()) return "";
    EXPECT_EQ(bundle.status().code(), absl::StatusCode::kFailedPrecondition) << bundle.status();
    return std::string(bundle.status().message());
  }

  std::string root_;
};

TEST_F(ModelBundleTest, RoundTripIsExact) {
  const NeuralCostModel model = RandomModel("neuro", "3", {4, 8});
  const BundleInfo info = Info("neuro", "3");
  ASSERT_TRUE(WriteModelBundle(root_, info, model).ok());
  const std::string dir = ModelBundleDirectory(root_, "neuro", "3");
  EXPECT_EQ(dir, root_ + "/neuro/3");

  auto bundle = ReadModelBundle(dir);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_EQ(bundle->directory, dir);
  EXPECT_EQ(bundle->manifest_sha256, Sha256Hex(ReadFile(dir + "/manifest.json")));
  EXPECT_EQ(bundle->model->id(), "neuro@3");
  ExpectSamePredictions(model, *bundle->model);

  const BundleInfo& read = bundle->info;
  EXPECT_EQ(read.name, info.name);
  EXPECT_EQ(read.version, info.version);
  EXPECT_EQ(read.description, info.description);
  EXPECT_EQ(read.hardware_profile, info.hardware_profile);
  EXPECT_EQ(read.backend, info.backend);
  EXPECT_EQ(read.created, info.created);
  EXPECT_EQ(read.seed, info.seed);
  ASSERT_EQ(read.training.size(), info.training.size());
  for (const auto& [sub_model, t] : info.training) {
    const SubModelTraining& r = read.training.at(sub_model);
    EXPECT_EQ(r.data_file, t.data_file);
    EXPECT_EQ(r.data_sha256, t.data_sha256);
    EXPECT_EQ(r.samples, t.samples);
    EXPECT_EQ(r.epochs, t.epochs);
    EXPECT_EQ(r.train_mse, t.train_mse);
    EXPECT_EQ(r.valid_mse, t.valid_mse);
    EXPECT_EQ(r.test_mse, t.test_mse);
  }
  // Normalisation statistics are doubles and must survive JSON exactly.
  EXPECT_EQ(bundle->model->compute().normalizer().means(), model.compute().normalizer().means());
  EXPECT_EQ(bundle->model->compute().normalizer().stds(), model.compute().normalizer().stds());
  EXPECT_EQ(bundle->model->comm().at(8).forward.normalizer().stds(),
            model.comm().at(8).forward.normalizer().stds());
}

TEST_F(ModelBundleTest, WritesTheDocumentedLayout) {
  const std::string dir = WriteStandard();
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) files.push_back(entry.path().filename());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"comm_4_backward.weights", "comm_4_forward.weights",
                                             "comm_8_backward.weights", "comm_8_forward.weights",
                                             "compute.weights", "manifest.json"}));
  const nlohmann::json m = ReadManifest(dir);
  EXPECT_EQ(m["format_version"], 1);
  EXPECT_EQ(m["kind"], "neural");
  EXPECT_EQ(m["comm_costs"], "neural");
  EXPECT_EQ(m["compute"]["table_mlp_sizes"], nlohmann::json({20, 128, 32}));
  EXPECT_EQ(m["compute"]["pred_mlp_sizes"], nlohmann::json({32, 64, 1}));
  EXPECT_EQ(m["compute"]["features"][0], "bin_0");
  EXPECT_EQ(m["compute"]["features"][19], "row");
  EXPECT_EQ(m["compute"]["sha256"], Sha256Hex(ReadFile(dir + "/compute.weights")));
  EXPECT_EQ(m["comm"][0]["num_devices"], 4);
  EXPECT_EQ(m["comm"][0]["direction"], "forward");
  EXPECT_EQ(m["comm"][0]["weights"], "comm_4_forward.weights");
  EXPECT_EQ(m["comm"][0]["mlp_sizes"], nlohmann::json({8, 16, 8, 4}));
  EXPECT_EQ(m["comm"][0]["inputs"],
            nlohmann::json({"dim_sum_0", "dim_sum_1", "dim_sum_2", "dim_sum_3", "wait_0", "wait_1",
                            "wait_2", "wait_3"}));
  EXPECT_EQ(m["comm"][1]["inputs"],
            nlohmann::json({"dim_sum_0", "dim_sum_1", "dim_sum_2", "dim_sum_3"}));
  EXPECT_EQ(m["comm"][1]["training"]["test_mse"], 0.125);
  EXPECT_FALSE(m["comm"][3].contains("training"));  // comm_8_backward was given none
}

TEST_F(ModelBundleTest, ManifestOfBundle) {
  const std::string dir = WriteStandard();
  auto bundle = ReadModelBundle(dir);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  const ModelManifest& m = bundle->manifest;
  EXPECT_EQ(m.id(), "neuro@3");
  EXPECT_EQ(m.kind, "neural");
  EXPECT_EQ(m.hardware_profile, "sim-rtx2080ti");
  EXPECT_EQ(m.backend, "sim");
  EXPECT_EQ(m.created, "2026-11-21T10:00:00Z");
  EXPECT_EQ(m.description, Info("neuro", "3").description);
  // compute 100000 + comm4 5000 (shared by fw and bw) + comm8 7000.
  EXPECT_EQ(m.data_size, 112000);
  EXPECT_EQ(m.test_mse, (std::map<std::string, double>{{"compute", 0.0123456789},
                                                       {"comm_4_forward", 0.25},
                                                       {"comm_4_backward", 0.125},
                                                       {"comm_8_forward", 1.5}}));
  EXPECT_EQ(m.device_counts, (std::vector<int32_t>{4, 8}));
  // The same as computed from the in-memory model.
  const ModelManifest direct =
      ManifestOfBundle(Info("neuro", "3"), RandomModel("neuro", "3", {4, 8}));
  EXPECT_EQ(direct.data_size, m.data_size);
  EXPECT_EQ(direct.device_counts, m.device_counts);
}

TEST_F(ModelBundleTest, ZeroCommBundleRoundTrips) {
  const NeuralCostModel model = RandomModel("cpu-model", "1.0", {});
  BundleInfo info = Info("cpu-model", "1.0");
  info.backend = "cpu";
  info.training = {{"compute", Training("cpu", 300, 0.5)}};
  info.created.clear();  // the writer fills it
  ASSERT_TRUE(WriteModelBundle(root_, info, model).ok());
  auto bundle = ReadModelBundle(ModelBundleDirectory(root_, "cpu-model", "1.0"));
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_EQ(bundle->model->comm_costs(), NeuralCostModel::CommCosts::kZero);
  EXPECT_THAT(bundle->model->comm(), IsEmpty());
  EXPECT_THAT(bundle->manifest.device_counts, IsEmpty());
  EXPECT_EQ(bundle->manifest.data_size, 300);
  EXPECT_THAT(bundle->info.created, ::testing::MatchesRegex("20[0-9-]+T[0-9:]+Z"));
  ExpectSamePredictions(model, *bundle->model);
  EXPECT_EQ(ReadManifest(bundle->directory)["comm_costs"], "zero");
}

// A compute model of the "log" feature set is format 2, records its transform, and predicts as
// before after the round trip; the transform is refused in format 1 and by an unknown name.
TEST_F(ModelBundleTest, TheComputeFeatureTransformRoundTripsAsFormat2) {
  const NeuralCostModel plain = RandomModel("logged", "1", {4, 8});
  const NeuralComputeModel& c = plain.compute();
  const NeuralCostModel logged = *NeuralCostModel::Create(
      "logged", "1",
      *NeuralComputeModel::Create(c.normalizer(), c.table_mlp(), c.pred_mlp(),
                                  NeuralComputeModel::kDefaultLatentMemoCapacity,
                                  FeatureTransform::kLog),
      plain.comm());
  ASSERT_TRUE(WriteModelBundle(root_, Info("logged", "1"), logged).ok());
  const std::string dir = ModelBundleDirectory(root_, "logged", "1");
  nlohmann::json m = ReadManifest(dir);
  EXPECT_EQ(m["format_version"], 2);
  EXPECT_EQ(m["compute"]["feature_transform"], "log");
  auto bundle = ReadModelBundle(dir);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_EQ(bundle->model->compute().feature_transform(), FeatureTransform::kLog);
  ExpectSamePredictions(logged, *bundle->model);
  // The transform changes what the same weights predict: it is part of the model.
  const std::vector<Table> tables = SomeTables();
  const ShardView shard{&tables[0], tables[0].rows, tables[0].dim};
  EXPECT_NE(bundle->model->compute().Predict({&shard, 1}), plain.compute().Predict({&shard, 1}));

  m["compute"]["feature_transform"] = "sqrt";
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir), HasSubstr("compute.feature_transform 'sqrt' is not 'raw' or 'log'"));
  m["compute"]["feature_transform"] = "log";
  m["format_version"] = 1;
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir), HasSubstr("'compute.feature_transform' needs format_version 2"));
  // A raw model writes no transform and stays format 1.
  EXPECT_FALSE(ReadManifest(WriteStandard())["compute"].contains("feature_transform"));
}

// A served bundle's training record: device-set comm models and collectives, no fixed-N comm.
BundleInfo ServedInfo(const std::string& name, const std::string& version) {
  BundleInfo info = Info(name, version);
  info.training.erase("comm_4_forward");
  info.training.erase("comm_4_backward");
  info.training.erase("comm_8_forward");
  info.training["collectives"] = Training("collectives", 4000, 0.02);
  return info;
}

TEST_F(ModelBundleTest, ServedFeaturesAndTheCollectiveModelRoundTripAsFormat2) {
  const NeuralCostModel model = RandomServedModel("served", "6");
  const BundleInfo info = ServedInfo("served", "6");
  ASSERT_TRUE(WriteModelBundle(root_, info, model).ok());
  const std::string dir = ModelBundleDirectory(root_, "served", "6");
  nlohmann::json m = ReadManifest(dir);
  EXPECT_EQ(m["format_version"], 2);
  EXPECT_EQ(m["compute"]["feature_set"], "served");
  EXPECT_EQ(m["compute"]["features"].size(), 21u);
  EXPECT_EQ(m["compute"]["features"].back(), "batch_share");
  EXPECT_EQ(m["collectives"]["output"], "log_ms");
  EXPECT_EQ(m["collectives"]["weights"], "collectives.weights");
  auto bundle = ReadModelBundle(dir);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  const NeuralCostModel& read = *bundle->model;
  EXPECT_EQ(read.compute().feature_set(), ShardFeatureSet::kServed);
  ASSERT_TRUE(read.collectives().has_value());
  EXPECT_TRUE(read.CostsShardingType(ShardingType::kDataParallel));
  EXPECT_EQ(bundle->info.training.at("collectives").samples, 4000);
  ExpectSamePredictions(model, read);
  // Bit-identical collective costs for a row-wise table on 2 hosts of 4.
  Table table = MakeTable("t", 1000, 32, 3);
  Topology topology;
  topology.memory_bytes.assign(8, int64_t{1} << 34);
  topology.devices_per_host = 4;
  TableSharding sharding = ShardingOf(ShardingType::kRowWise);
  for (int d = 0; d < 8; ++d) sharding.shards.push_back({d, d * 125, 125, 0, 32});
  const std::vector<CollectiveDemand> demands = TableCollectives(table, sharding, topology, 65536);
  const CostContext context{&topology, 65536};
  const CollectiveCosts a = model.CostCollectives(context, demands);
  const CollectiveCosts b = read.CostCollectives(context, demands);
  EXPECT_EQ(a.forward_ms, b.forward_ms);
  EXPECT_EQ(a.backward_ms, b.backward_ms);

  // A corrupt collective model is refused, naming its file.
  const std::string weights = dir + "/collectives.weights";
  const std::string good = ReadFile(weights);
  std::string bytes = good;
  bytes[bytes.size() - 5] ^= 0x10;
  WriteFile(weights, bytes);
  EXPECT_THAT(Refusal(dir), HasSubstr(weights + ": SHA-256 mismatch"));
  WriteFile(weights, good);
  m["collectives"]["output"] = "ms";
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir), HasSubstr("collectives.output 'ms' is not 'log_ms'"));
  m["collectives"]["output"] = "log_ms";
  m["compute"]["feature_set"] = "reference";
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir), HasSubstr("is not this build's feature order"));
  m["compute"]["feature_set"] = "served";
  m["format_version"] = 1;
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir), HasSubstr("'compute.feature_set' needs format_version 2"));
  // A reference model writes neither field.
  const nlohmann::json standard = ReadManifest(WriteStandard());
  EXPECT_FALSE(standard["compute"].contains("feature_set"));
  EXPECT_FALSE(standard.contains("collectives"));
}

TEST_F(ModelBundleTest, PerKernelCallComputeRoundTripsAndOlderBundlesStayPerDevice) {
  const NeuralCostModel model =
      RandomServedModel("calls", "7", 13, ComputeCalls::kPerKernelCall);
  const BundleInfo info = ServedInfo("calls", "7");
  ASSERT_TRUE(WriteModelBundle(root_, info, model).ok());
  const std::string dir = ModelBundleDirectory(root_, "calls", "7");
  nlohmann::json m = ReadManifest(dir);
  EXPECT_EQ(m["compute"]["calls"], "kernel_call");
  auto bundle = ReadModelBundle(dir);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_EQ(bundle->model->compute().calls(), ComputeCalls::kPerKernelCall);
  ExpectSamePredictions(model, *bundle->model);

  m["compute"]["calls"] = "shard";
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir), HasSubstr("compute.calls 'shard' is not 'device' or 'kernel_call'"));
  m["compute"]["calls"] = "kernel_call";
  WriteManifest(dir, m);
  EXPECT_TRUE(ReadModelBundle(dir).ok());
  // A per-device model writes no field, and reads back per device.
  const NeuralCostModel per_device = RandomServedModel("device", "6");
  ASSERT_TRUE(WriteModelBundle(root_, ServedInfo("device", "6"), per_device).ok());
  const std::string device_dir = ModelBundleDirectory(root_, "device", "6");
  EXPECT_FALSE(ReadManifest(device_dir)["compute"].contains("calls"));
  auto read = ReadModelBundle(device_dir);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->model->compute().calls(), ComputeCalls::kOnePerDevice);
}

TEST_F(ModelBundleTest, TheTrainingRangeRoundTripsAndIsOptional) {
  const NeuralCostModel plain = RandomModel("ranged", "1", {4, 8});
  TableFeatureRange range;
  for (int f = 0; f < kNumTableFeatures; ++f) {
    range.min.push_back(f);
    range.max.push_back(2.0 * f + 0.5);
  }
  const NeuralCostModel ranged = *NeuralCostModel::Create(
      "ranged", "1", plain.compute(), plain.comm(), NeuralCostModel::CommCosts::kNeural, range);
  ASSERT_TRUE(WriteModelBundle(root_, Info("ranged", "1"), ranged).ok());
  auto bundle = ReadModelBundle(ModelBundleDirectory(root_, "ranged", "1"));
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  ASSERT_TRUE(bundle->model->training_range().has_value());
  EXPECT_EQ(*bundle->model->training_range(), range);
  EXPECT_EQ(ReadManifest(bundle->directory)["compute"]["training_range"]["max"][1], 2.5);

  // A bundle written before the field: no range, no warnings.
  const std::string dir = WriteStandard();
  nlohmann::json m = ReadManifest(dir);
  ASSERT_FALSE(m["compute"].contains("training_range"));
  auto old = ReadModelBundle(dir);
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_FALSE(old->model->training_range().has_value());
  Table table;
  table.name = "t";
  table.rows = 10;
  table.dim = 4;
  EXPECT_TRUE(old->model->OutsideTrainingRange(table).empty());

  // A malformed one is refused, naming the field.
  m["compute"]["training_range"] = {{"min", {1.0, 2.0}}, {"max", {3.0, 4.0}}};
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir), HasSubstr("compute.training_range: min and max need 20 values"));
  m["compute"]["training_range"] = {{"min", range.max}, {"max", range.min}};  // min > max
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir), HasSubstr("finite min <= max pairs"));
}

TEST_F(ModelBundleTest, TheAccessShapesRoundTripAndAreOptional) {
  AccessShapeSummary shapes;
  AccessShape hot{}, cold{};
  hot[15] = 0.75;
  hot[16] = 0.25;
  cold[0] = 0.125;
  cold[1] = 0.875;
  shapes.centres = {hot, cold};
  shapes.cover_radius = 0.0625;
  shapes.threshold = 0.3;
  const NeuralCostModel shaped =
      *NeuralCostModel::WithAccessShapes(RandomModel("shaped", "1", {4, 8}), shapes);
  ASSERT_TRUE(WriteModelBundle(root_, Info("shaped", "1"), shaped).ok());
  auto bundle = ReadModelBundle(ModelBundleDirectory(root_, "shaped", "1"));
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  ASSERT_TRUE(bundle->model->access_shapes().has_value());
  EXPECT_EQ(*bundle->model->access_shapes(), shapes);
  nlohmann::json m = ReadManifest(bundle->directory);
  EXPECT_EQ(m["compute"]["access_shapes"]["metric"], "lookup_l1");
  EXPECT_EQ(m["compute"]["access_shapes"]["centres"][1][1], 0.875);
  // Additive: the format stays 1 for a raw model without device-set comm models.
  EXPECT_EQ(m["format_version"], 1);

  // A bundle written before the field never flags by shape, however odd the histogram.
  const std::string dir = WriteStandard();
  m = ReadManifest(dir);
  ASSERT_FALSE(m["compute"].contains("access_shapes"));
  auto old = ReadModelBundle(dir);
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_FALSE(old->model->access_shapes().has_value());
  Table table;
  table.name = "t";
  table.rows = 1000;
  table.dim = 4;
  table.access_bins.assign(kNumAccessBins, 0.0);
  table.access_bins[8] = 1.0;
  EXPECT_TRUE(old->model->OutsideTrainingRange(table).empty());
  EXPECT_FALSE(bundle->model->OutsideTrainingRange(table).empty());

  // Malformed ones are refused, naming the field.
  m["compute"]["access_shapes"] = {
      {"metric", "lookup_l1"},
      {"threshold", 0.3},
      {"cover_radius", 0.0},
      {"centres", nlohmann::json::array({nlohmann::json::array({0.5, 0.5})})}};
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir),
              HasSubstr("compute.access_shapes.centres[0] must be an array of 17 numbers"));
  m["compute"]["access_shapes"]["centres"] = nlohmann::json::array({hot});
  m["compute"]["access_shapes"]["metric"] = "emd";
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir), HasSubstr("compute.access_shapes.metric 'emd' is not 'lookup_l1'"));
  m["compute"]["access_shapes"]["metric"] = "lookup_l1";
  m["compute"]["access_shapes"]["threshold"] = -1.0;
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir), HasSubstr("compute.access_shapes: access shapes: threshold is -1"));
}

TEST_F(ModelBundleTest, VersionsAreImmutable) {
  const std::string dir = WriteStandard();
  const std::string before = ReadFile(dir + "/manifest.json");
  const absl::Status again =
      WriteModelBundle(root_, Info("neuro", "3"), RandomModel("neuro", "3", {4, 8}, 99));
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists) << again;
  EXPECT_THAT(std::string(again.message()), HasSubstr(dir));
  EXPECT_EQ(ReadFile(dir + "/manifest.json"), before);
  // Even an empty directory of that version is not replaced.
  fs::create_directories(ModelBundleDirectory(root_, "neuro", "4"));
  EXPECT_EQ(WriteModelBundle(root_, Info("neuro", "4"), RandomModel("neuro", "4", {4, 8})).code(),
            absl::StatusCode::kAlreadyExists);
}

TEST_F(ModelBundleTest, NoTemporaryDirectoryIsLeftBehind) {
  WriteStandard("neuro", "3");
  // A failed write (existing version) leaves nothing either.
  (void)WriteModelBundle(root_, Info("neuro", "3"), RandomModel("neuro", "3", {4, 8}));
  std::vector<std::string> entries;
  for (const auto& e : fs::directory_iterator(root_ + "/neuro")) {
    entries.push_back(e.path().filename());
  }
  EXPECT_EQ(entries, std::vector<std::string>{"3"});
}

TEST_F(ModelBundleTest, StaleTemporaryDirectoryIsReplaced) {
  fs::create_directories(root_ + "/neuro");
  const std::string stale = root_ + "/neuro/." + "5.tmp-" + std::to_string(::getpid());
  fs::create_directories(stale);  // a crashed writer's leftover with our pid
  WriteFile(stale + "/junk", "x");
  ASSERT_TRUE(WriteModelBundle(root_, Info("neuro", "5"), RandomModel("neuro", "5", {4, 8})).ok());
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(ReadModelBundle(root_ + "/neuro/5").ok());
}

TEST_F(ModelBundleTest, RefusesInvalidNamesAndVersions) {
  for (const std::string bad : {"../x", "", ".hidden", "a/b", "sp ace", ".", ".."}) {
    // NeuralCostModel refuses an empty name itself; use a valid model with a mismatching info.
    BundleInfo info = Info(bad, "1");
    const absl::Status status = WriteModelBundle(root_, info, RandomModel("ok", "1", {4}));
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << "'" << bad << "'";
    EXPECT_THAT(std::string(status.message()), HasSubstr("name")) << bad;
    info = Info("ok", bad);
    const absl::Status version_status = WriteModelBundle(root_, info, RandomModel("ok", "1", {4}));
    EXPECT_EQ(version_status.code(), absl::StatusCode::kInvalidArgument) << "'" << bad << "'";
    EXPECT_THAT(std::string(version_status.message()), HasSubstr("version")) << bad;
  }
  EXPECT_TRUE(fs::is_empty(root_));
}

TEST_F(ModelBundleTest, RefusesInfoThatDoesNotMatchTheModel) {
  EXPECT_EQ(WriteModelBundle(root_, Info("a", "1"), RandomModel("b", "1", {4})).code(),
            absl::StatusCode::kInvalidArgument);
  // Training for a sub-model the model does not have.
  EXPECT_EQ(WriteModelBundle(root_, Info("a", "1"), RandomModel("a", "1", {4})).code(),
            absl::StatusCode::kInvalidArgument);  // Info has comm_8_forward
}

TEST_F(ModelBundleTest, NoManifestIsNotFound) {
  fs::create_directories(root_ + "/x/1");
  auto bundle = ReadModelBundle(root_ + "/x/1");
  EXPECT_EQ(bundle.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(bundle.status().message()), HasSubstr("manifest.json"));
}

TEST_F(ModelBundleTest, RefusesChecksumMismatch) {
  const std::string dir = WriteStandard();
  std::string bytes = ReadFile(dir + "/comm_4_backward.weights");
  bytes[bytes.size() - 3] ^= 0x40;
  WriteFile(dir + "/comm_4_backward.weights", bytes);
  const std::string error = Refusal(dir);
  EXPECT_THAT(error, HasSubstr(dir + "/comm_4_backward.weights: SHA-256 mismatch (manifest "));
  EXPECT_THAT(error, HasSubstr(", file " + Sha256Hex(bytes).substr(0, 12)));
}

TEST_F(ModelBundleTest, RefusesTruncatedWeightsEvenWithMatchingChecksum) {
  const std::string dir = WriteStandard();
  const std::string bytes = ReadFile(dir + "/compute.weights");
  const std::string truncated = bytes.substr(0, bytes.size() - 4);
  WriteFile(dir + "/compute.weights", truncated);
  nlohmann::json m = ReadManifest(dir);
  m["compute"]["sha256"] = Sha256Hex(truncated);
  WriteManifest(dir, m);
  // Refused by its size, before it is read (the parser's own checks: weights_file_test).
  EXPECT_THAT(Refusal(dir), HasSubstr(absl::StrCat(dir, "/compute.weights: ", bytes.size() - 4,
                                                   " bytes, but the manifest's architecture "
                                                   "(table_mlp [20,128,32], pred_mlp [32,64,1], "
                                                   "float32) needs exactly ",
                                                   bytes.size(), " bytes")));
}

TEST_F(ModelBundleTest, RefusesOtherFormatVersions) {
  const std::string dir = WriteStandard();
  nlohmann::json m = ReadManifest(dir);
  EXPECT_EQ(m["format_version"], 1);  // no device-set comm models: still format 1
  m["format_version"] = 3;
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir), HasSubstr("manifest.json: format_version 3 is not supported "
                                      "(this build reads 1 to 2)"));
  m["format_version"] = 0;
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir), HasSubstr("format_version 0 is not supported"));
  m["format_version"] = "1";
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir), HasSubstr("field 'format_version' must be an integer"));
}

TEST_F(ModelBundleTest, DeviceSetCommModelsRoundTripAsFormat2) {
  const NeuralCostModel model = RandomDeviceSetModel("any", "1");
  BundleInfo info = Info("any", "1");
  info.training.erase("comm_4_forward");
  info.training.erase("comm_4_backward");
  info.training.erase("comm_8_forward");
  info.training["comm_any_forward"] = Training("layouts", 900, 0.5);
  ASSERT_TRUE(WriteModelBundle(root_, info, model).ok());
  const std::string dir = ModelBundleDirectory(root_, "any", "1");
  const nlohmann::json manifest = ReadManifest(dir);
  EXPECT_EQ(manifest["format_version"], 2);
  EXPECT_EQ(manifest["comm"], nlohmann::json::array());
  ASSERT_EQ(manifest["device_set_comm"].size(), 2u);
  EXPECT_EQ(manifest["device_set_comm"][0]["weights"], "comm_any_forward.weights");
  EXPECT_EQ(manifest["device_set_comm"][1]["inputs"].size(), 12u);
  EXPECT_EQ(manifest["device_set_comm"][0]["trained_layouts"][2],
            (nlohmann::json{{"devices", 16}, {"devices_per_host", 8}}));

  absl::StatusOr<LoadedBundle> bundle = ReadModelBundle(dir);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  ASSERT_TRUE(bundle->model->device_set_comm().has_value());
  EXPECT_EQ(bundle->model->device_set_comm()->trained_layouts,
            model.device_set_comm()->trained_layouts);
  EXPECT_EQ(bundle->info.training.at("comm_any_forward").test_mse, 0.5);
  // Any device count, bit-identical predictions.
  EXPECT_THAT(bundle->manifest.device_counts, IsEmpty());
  EXPECT_TRUE(bundle->manifest.costs_interconnect);
  for (int n : {2, 5, 16, 128}) {
    std::vector<int64_t> dims;
    std::vector<double> waits;
    for (int i = 0; i < n; ++i) {
      dims.push_back(32 * (i % 7) + 4);
      waits.push_back(0.25 * (i % 3));
    }
    Task task;
    task.topology.memory_bytes.assign(n, int64_t{1} << 30);
    task.topology.devices_per_host = 8;
    const CostContext context = CostContext::For(task);
    EXPECT_TRUE(bundle->model->CheckSupports(task).ok()) << n;
    EXPECT_EQ(bundle->model->ForwardCommCosts(context, dims, waits),
              model.ForwardCommCosts(context, dims, waits));
    EXPECT_EQ(bundle->model->BackwardCommCosts(context, dims),
              model.BackwardCommCosts(context, dims));
  }
}

TEST_F(ModelBundleTest, RefusesDeviceSetCommModelsInFormat1OrUnpaired) {
  ASSERT_TRUE(WriteModelBundle(root_, Info("any", "1"), RandomDeviceSetModel("any", "1")).code() ==
              absl::StatusCode::kInvalidArgument);  // training for comm_4_* it does not have
  BundleInfo info = Info("any", "2");
  info.training.clear();
  ASSERT_TRUE(WriteModelBundle(root_, info, RandomDeviceSetModel("any", "2")).ok());
  const std::string dir = ModelBundleDirectory(root_, "any", "2");
  nlohmann::json m = ReadManifest(dir);
  m["format_version"] = 1;
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir), HasSubstr("field 'device_set_comm' needs format_version 2"));
  m["format_version"] = 2;
  m["device_set_comm"].erase(1);
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir), HasSubstr("must list a forward and a backward model"));
  m = ReadManifest(dir);
  m["device_set_comm"] = nlohmann::json::array();
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir), HasSubstr("must list a forward and a backward model"));
}

TEST_F(ModelBundleTest, RefusesMalformedDeviceSetFieldsNamingThem) {
  BundleInfo info = Info("any", "3");
  info.training.clear();
  info.training["comm_any_forward"] = Training("layouts", 900, 0.5);
  info.training["comm_any_forward"].test_mse_by_layout = {{"8x8", 0.25}};
  ASSERT_TRUE(WriteModelBundle(root_, info, RandomDeviceSetModel("any", "3")).ok());
  const std::string dir = ModelBundleDirectory(root_, "any", "3");
  const nlohmann::json good = ReadManifest(dir);
  ASSERT_TRUE(ReadModelBundle(dir).ok());
  const auto refused_after = [&](const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json m = good;
    change(m);
    WriteManifest(dir, m);
    return Refusal(dir);
  };
  EXPECT_THAT(refused_after([](nlohmann::json& m) {
                for (auto& e : m["device_set_comm"]) e["trained_layouts"] = nlohmann::json::array();
              }),
              HasSubstr("device_set_comm[0].trained_layouts is empty"));
  EXPECT_THAT(refused_after([](nlohmann::json& m) {
                for (auto& e : m["device_set_comm"]) {
                  e["trained_layouts"].push_back(e["trained_layouts"][0]);
                }
              }),
              HasSubstr("2x2 is listed twice"));
  EXPECT_THAT(refused_after([](nlohmann::json& m) { m["device_set_comm"][1]["batch_size"] = 0; }),
              HasSubstr("device_set_comm[1].batch_size 0 is not positive"));
  EXPECT_THAT(refused_after([](nlohmann::json& m) {
                m["device_set_comm"][0]["training"]["test_mse_by_layout"]["8x9"] = 1.0;
              }),
              HasSubstr("comm_any_forward.training.test_mse_by_layout: '8x9' is not one of its "
                        "trained_layouts"));
  // Per-layout test MSEs are format 2's: a format-1 manifest with one is refused.
  const std::string plain = WriteStandard();
  nlohmann::json m = ReadManifest(plain);
  m["compute"]["training"]["test_mse_by_layout"] = {{"4x4", 1.0}};
  WriteManifest(plain, m);
  EXPECT_THAT(Refusal(plain),
              HasSubstr("compute.training.test_mse_by_layout needs format_version 2"));
}

TEST_F(ModelBundleTest, RefusesInvalidJson) {
  const std::string dir = WriteStandard();
  WriteFile(dir + "/manifest.json", "{\"format_version\": 1,");
  EXPECT_THAT(Refusal(dir), HasSubstr("manifest.json: not valid JSON"));
}

TEST_F(ModelBundleTest, RefusesNameOrVersionOtherThanTheDirectory) {
  const std::string dir = WriteStandard("neuro", "3");
  fs::rename(dir, root_ + "/neuro/4");
  EXPECT_THAT(Refusal(root_ + "/neuro/4"), HasSubstr("names neuro@3 but lives in the directory "
                                                     "of neuro@4"));
  fs::create_directories(root_ + "/other");
  fs::rename(root_ + "/neuro/4", root_ + "/other/3");
  EXPECT_THAT(Refusal(root_ + "/other/3/"), HasSubstr("of other@3"));
  fs::rename(root_ + "/other/3", root_ + "/neuro/3");
  EXPECT_TRUE(ReadModelBundle(root_ + "/neuro/3/").ok());  // a trailing slash is fine
}

TEST_F(ModelBundleTest, RefusesMissingWeightsFile) {
  const std::string dir = WriteStandard();
  fs::remove(dir + "/comm_8_forward.weights");
  EXPECT_THAT(Refusal(dir), HasSubstr(dir + "/comm_8_forward.weights: weights file is missing"));
}

TEST_F(ModelBundleTest, RefusesAnotherFeatureOrder) {
  const std::string dir = WriteStandard();
  nlohmann::json m = ReadManifest(dir);
  std::swap(m["compute"]["features"][1], m["compute"]["features"][2]);
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir), HasSubstr("compute.features [bin_0,bin_10,bin_1,"));
}

TEST_F(ModelBundleTest, RefusesShapeMismatch) {
  const std::string dir = WriteStandard();
  nlohmann::json m = ReadManifest(dir);
  m["compute"]["table_mlp_sizes"] = {20, 64, 32};
  WriteManifest(dir, m);
  // Another architecture implies another file size: refused before the file is read.
  EXPECT_THAT(Refusal(dir), HasSubstr(dir + "/compute.weights: 36228 bytes, but the manifest's "
                                            "architecture (table_mlp [20,64,32], pred_mlp "
                                            "[32,64,1], float32) needs exactly 22660 bytes"));

  // A file of the right size with a tensor of another shape (transposed).
  const std::string other = WriteStandard("neuro", "4");
  const std::string path = other + "/compute.weights";
  std::vector<WeightsTensor> tensors = *ParseWeights(ReadFile(path), path);
  ASSERT_EQ(tensors[0].name, "table_mlp.0.weight");
  tensors[0].shape = {20, 128};
  const std::string bytes = *SerializeWeights(tensors);
  WriteFile(path, bytes);
  m = ReadManifest(other);
  m["compute"]["sha256"] = Sha256Hex(bytes);
  WriteManifest(other, m);
  EXPECT_THAT(Refusal(other), HasSubstr(path + ": tensor 'table_mlp.0.weight' has shape [20,128], "
                                               "the manifest's architecture needs [128,20]"));
}

TEST_F(ModelBundleTest, RefusesExtraTensors) {
  const std::string dir = WriteStandard();
  const std::string path = dir + "/comm_4_forward.weights";
  std::vector<WeightsTensor> tensors = *ParseWeights(ReadFile(path), path);
  tensors.push_back({"mlp.9.weight", {1}, {0.0f}});
  const std::string bytes = *SerializeWeights(tensors);
  WriteFile(path, bytes);
  nlohmann::json m = ReadManifest(dir);
  m["comm"][0]["sha256"] = Sha256Hex(bytes);
  WriteManifest(dir, m);
  // The architecture fixes the file's size, so an extra tensor is refused by it.
  EXPECT_THAT(Refusal(dir), HasSubstr(absl::StrCat(path, ": ", bytes.size(),
                                                   " bytes, but the manifest's architecture "
                                                   "(mlp [8,16,8,4], float32) needs exactly ")));
}

TEST_F(ModelBundleTest, RefusesOtherCommInputs) {
  const std::string dir = WriteStandard();
  nlohmann::json m = ReadManifest(dir);
  m["comm"][0]["inputs"][4] = "sleep_0";
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir), HasSubstr("comm[0] (comm_4_forward): inputs"));
}

TEST_F(ModelBundleTest, RefusesWeightsOutsideTheDirectory) {
  const std::string dir = WriteStandard();
  nlohmann::json m = ReadManifest(dir);
  m["compute"]["weights"] = "../../etc/passwd";
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir), HasSubstr("expected 'compute.weights'"));
}

TEST_F(ModelBundleTest, RefusesUnpairedOrDuplicateCommModels) {
  const std::string dir = WriteStandard();
  nlohmann::json m = ReadManifest(dir);
  m["comm"].erase(3);  // comm_8_backward
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir), HasSubstr("comm_8_forward has no comm_8_backward"));
  m = ReadManifest(dir);
  m["comm"][3] = m["comm"][2];
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir), HasSubstr("comm_8_forward is listed twice"));
  m["comm"] = nlohmann::json::array();
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir), HasSubstr("no comm models"));
}

TEST_F(ModelBundleTest, RefusesMissingField) {
  const std::string dir = WriteStandard();
  nlohmann::json m = ReadManifest(dir);
  m["compute"]["normalization"].erase("std");
  WriteManifest(dir, m);
  EXPECT_THAT(Refusal(dir), HasSubstr("field 'compute.normalization.std' is missing"));
}

}  // namespace
}  // namespace shardplan
