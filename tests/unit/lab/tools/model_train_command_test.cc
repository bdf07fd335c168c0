// `shardplan-offline model train` in process on tiny sim datasets: the bundle it writes, its
// reproducibility, and its argument and data errors.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "costmodels/artifacts/model_bundle.h"
#include "costmodels/neural/access_shapes.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lab/data/table_pool.h"
#include "lab/tools/commands.h"
#include "nlohmann/json.hpp"
#include "tests/unit/lab/training/training_test_data.h"
#include "tests/unit/support/test_files.h"

namespace shardplan {
namespace {

using offline::OfflineMain;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_files::FreshDir;
using testing_files::ReadFile;

class ModelTrainCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDir();
    const TablePool pool = training::SmallPool(8);
    ASSERT_TRUE(SaveTablePool(pool, dir_ + "/pool.json").ok());
    ASSERT_EQ(Collect("compute", 1, "compute.jsonl"), 0);
    ASSERT_EQ(Collect("comm", 2, "comm_2.jsonl"), 0);
    ASSERT_EQ(Collect("comm", 3, "comm_3.jsonl"), 0);
  }

  int Collect(const std::string& kind, int devices, const std::string& out) {
    return OfflineMain({"data", "collect", "--backend", "sim", "--kind", kind, "--samples", "40",
                        "--devices", absl::StrCat(devices), "--pool", dir_ + "/pool.json", "--out",
                        dir_ + "/" + out});
  }

  int Train(const std::string& version, std::vector<std::string> extra) {
    std::vector<std::string> args = {
        "model", "train",     "--compute-data", dir_ + "/compute.jsonl", "--name",
        "toy",   "--version", version,          "--models-root",         dir_ + "/models"};
    if (std::find(extra.begin(), extra.end(), "--epochs") == extra.end()) {
      args.insert(args.end(), {"--epochs", "3"});
    }
    args.insert(args.end(), extra.begin(), extra.end());
    return OfflineMain(args);
  }

  std::string dir_;
};

TEST_F(ModelTrainCommandTest, WritesAVerifiedBundleWithTrainingProvenance) {
  const std::string comm = dir_ + "/comm_2.jsonl," + dir_ + "/comm_3.jsonl";
  ASSERT_EQ(Train("1", {"--comm-data", comm, "--threads", "2", "--predictions-dir", dir_ + "/pred",
                        "--description", "toy run"}),
            0);
  absl::StatusOr<LoadedBundle> bundle = ReadModelBundle(dir_ + "/models/toy/1");
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_EQ(bundle->info.backend, "sim");
  EXPECT_EQ(bundle->info.description, "toy run");
  ASSERT_EQ(bundle->info.training.size(), 5u);
  const SubModelTraining& compute = bundle->info.training.at("compute");
  EXPECT_EQ(compute.samples, 40);
  EXPECT_EQ(compute.epochs, 3);
  EXPECT_EQ(compute.data_file, dir_ + "/compute.jsonl");
  EXPECT_EQ(compute.data_sha256.size(), 64u);
  EXPECT_TRUE(bundle->info.training.count("comm_3_backward"));
  EXPECT_EQ(bundle->model->comm().size(), 2u);
  // The range of the table features it was trained on, for the server's warnings: SmallPool(8)
  // has tables of 1000 to 8000 rows.
  ASSERT_TRUE(bundle->model->training_range().has_value());
  EXPECT_GE(bundle->model->training_range()->min[19], 1000.0);
  EXPECT_LE(bundle->model->training_range()->max[19], 8000.0);
  Table huge = training::SmallPool(1).tables[0];
  huge.rows = 1000000;
  huge.dim = 8;
  EXPECT_FALSE(bundle->model->OutsideTrainingRange(huge).empty());
  // And the shapes of its histograms: SmallPool's tables put all rows in bin i % 17, so a table
  // whose rows split over two bins is flagged by shape though every feature is in range.
  ASSERT_TRUE(bundle->model->access_shapes().has_value());
  EXPECT_EQ(bundle->model->access_shapes()->threshold, kDefaultAccessShapeThreshold);
  EXPECT_EQ(bundle->model->access_shapes()->cover_radius, 0.0);
  Table seen = training::SmallPool(1).tables[0];
  seen.dim = 8;
  EXPECT_TRUE(bundle->model->OutsideTrainingRange(seen).empty());
  Table unseen = seen;
  unseen.access_bins[0] = 0.5;  // every bin inside its range, the mix never seen
  unseen.access_bins[1] = 0.5;
  EXPECT_THAT(bundle->model->OutsideTrainingRange(unseen),
              ElementsAre(HasSubstr("lookups by access class 0.8 (L1) from the nearest")));
  // 4 test samples (40 - 32 - 4), one line each per device, and a header.
  EXPECT_EQ(ReadFile(dir_ + "/pred/comm_3_forward.csv").find("sample,device,measured,predicted"),
            0u);
  int lines = 0;
  for (char c : ReadFile(dir_ + "/pred/comm_3_forward.csv")) lines += c == '\n';
  EXPECT_EQ(lines, 1 + 4 * 3);
}

TEST_F(ModelTrainCommandTest, SameSeedSameWeightsForAnyThreadCount) {
  ASSERT_EQ(Train("1", {"--zero-comm", "--threads", "1"}), 0);
  ASSERT_EQ(Train("2", {"--zero-comm", "--threads", "3"}), 0);
  ASSERT_EQ(Train("3", {"--zero-comm", "--seed", "1"}), 0);
  const std::string root = dir_ + "/models/toy/";
  EXPECT_EQ(ReadFile(root + "1/compute.weights"), ReadFile(root + "2/compute.weights"));
  EXPECT_NE(ReadFile(root + "1/compute.weights"), ReadFile(root + "3/compute.weights"));
  absl::StatusOr<LoadedBundle> zero = ReadModelBundle(root + "1");
  ASSERT_TRUE(zero.ok()) << zero.status();
  EXPECT_EQ(zero->model->comm_costs(), NeuralCostModel::CommCosts::kZero);
}

TEST_F(ModelTrainCommandTest, ArgumentAndDataErrors) {
  // Usage errors: exit 2.
  EXPECT_EQ(Train("1", {}), 2);  // neither comm data nor --zero-comm
  EXPECT_EQ(Train("1", {"--zero-comm", "--comm-data", dir_ + "/comm_2.jsonl"}), 2);
  EXPECT_EQ(Train("1", {"--zero-comm", "--epochs", "0"}), 2);
  EXPECT_EQ(Train("1", {"--comm-data", dir_ + "/comm_2.jsonl," + dir_ + "/comm_2.jsonl"}), 2);
  // A bad record: invalid argument, exit 3, and no bundle.
  testing_files::WriteFile(dir_ + "/bad.jsonl", ReadFile(dir_ + "/compute.jsonl") + "{oops\n");
  EXPECT_EQ(OfflineMain({"model", "train", "--compute-data", dir_ + "/bad.jsonl", "--zero-comm",
                         "--name", "toy", "--version", "9", "--models-root", dir_ + "/models"}),
            3);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/models/toy/9"));
  // Versions are immutable: the second run is refused before it trains.
  ASSERT_EQ(Train("1", {"--zero-comm", "--epochs", "1"}), 0);
  EXPECT_NE(Train("1", {"--zero-comm", "--epochs", "1"}), 0);
}

// `model check` on the bundle `model train` wrote, with data collected afresh (another seed).
TEST_F(ModelTrainCommandTest, ModelCheckComparesFreshDataWithTheManifest) {
  ASSERT_EQ(Train("1", {"--comm-data", dir_ + "/comm_2.jsonl"}), 0);
  ASSERT_EQ(
      OfflineMain({"data", "collect", "--backend", "sim", "--kind", "compute", "--samples", "30",
                   "--seed", "9", "--pool", dir_ + "/pool.json", "--out", dir_ + "/fresh.jsonl"}),
      0);
  const auto check = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"model", "check",         "--model",
                                     "toy@1", "--models-root", dir_ + "/models"};
    args.insert(args.end(), extra.begin(), extra.end());
    return OfflineMain(args);
  };
  const std::vector<std::string> fresh = {"--compute-data", dir_ + "/fresh.jsonl", "--comm-data",
                                          dir_ + "/comm_2.jsonl"};
  std::vector<std::string> loose = fresh, strict = fresh;
  loose.insert(loose.end(), {"--max-mse-ratio", "1e12"});
  strict.insert(strict.end(), {"--max-mse-ratio", "1e-12"});
  EXPECT_EQ(check(loose), 0);    // holds
  EXPECT_EQ(check(strict), 13);  // any error is drift: exit 13
  EXPECT_EQ(check({}), 2);       // no data
  EXPECT_EQ(OfflineMain({"model", "check", "--model", "toy", "--compute-data",
                         dir_ + "/fresh.jsonl", "--models-root", dir_ + "/models"}),
            2);                                                  // not NAME@VERSION
  EXPECT_EQ(check({"--comm-data", dir_ + "/comm_3.jsonl"}), 4);  // no comm models for 3
  EXPECT_EQ(OfflineMain({"model", "check", "--model", "toy@7", "--compute-data",
                         dir_ + "/fresh.jsonl", "--models-root", dir_ + "/models"}),
            5);  // no such version

  // Measured now on the bundle's own backend and profile: compute, and comm for its 2 devices.
  const std::vector<std::string> measure = {"--backend",  "sim",        "--samples",
                                            "20",         "--pool",     dir_ + "/pool.json",
                                            "--data-dir", dir_ + "/now"};
  std::vector<std::string> measured = measure;
  measured.insert(measured.end(), {"--max-mse-ratio", "1e12"});
  EXPECT_EQ(check(measured), 0);
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/now/compute.jsonl"));
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/now/comm_2.jsonl"));
  EXPECT_EQ(check({"--backend", "sim"}), 2);  // where would the data go?
  std::vector<std::string> both = measure;
  both.insert(both.end(), {"--compute-data", dir_ + "/fresh.jsonl"});
  EXPECT_EQ(check(both), 2);  // data given and measured: which?
}

// --compute-features log: the bundle records the transform (format 2), its bins' stds are floored
// at 0.05, and an unknown feature set is a usage error.
TEST_F(ModelTrainCommandTest, TheLogFeatureSetIsRecordedAndFloorsTheBinStds) {
  ASSERT_EQ(Train("1", {"--zero-comm", "--compute-features", "log"}), 0);
  absl::StatusOr<LoadedBundle> bundle = ReadModelBundle(dir_ + "/models/toy/1");
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  const NeuralComputeModel& compute = bundle->model->compute();
  EXPECT_EQ(compute.feature_transform(), FeatureTransform::kLog);
  for (int f = 0; f < kNumAccessBins; ++f) EXPECT_GE(compute.normalizer().stds()[f], 0.05) << f;
  // The row feature is a log10 now: its mean is a few units, not millions.
  EXPECT_LT(compute.normalizer().means()[19], 10.0);
  EXPECT_EQ(Train("2", {"--zero-comm", "--compute-features", "sqrt"}), 2);
}

// --compute-loss relative: trained on relative errors, recorded in the manifest's training
// section (reported MSEs stay plain); the same seed gives other weights than the squared error.
TEST_F(ModelTrainCommandTest, TheRelativeLossIsRecordedAndChangesTheWeights) {
  ASSERT_EQ(Train("1", {"--zero-comm"}), 0);
  ASSERT_EQ(Train("2", {"--zero-comm", "--compute-loss", "relative"}), 0);
  absl::StatusOr<LoadedBundle> plain = ReadModelBundle(dir_ + "/models/toy/1");
  absl::StatusOr<LoadedBundle> relative = ReadModelBundle(dir_ + "/models/toy/2");
  ASSERT_TRUE(plain.ok()) << plain.status();
  ASSERT_TRUE(relative.ok()) << relative.status();
  EXPECT_EQ(plain->info.training.at("compute").loss, "");
  EXPECT_EQ(relative->info.training.at("compute").loss, "relative (floor 0.1 ms)");
  EXPECT_GT(relative->info.training.at("compute").test_mse, 0.0);
  EXPECT_NE(ReadFile(dir_ + "/models/toy/2/manifest.json").find("\"loss\": \"relative"),
            std::string::npos);
  EXPECT_EQ(ReadFile(dir_ + "/models/toy/1/manifest.json").find("\"loss\""), std::string::npos);
  const auto weights_sha = [&](const std::string& version) {
    return nlohmann::json::parse(
               ReadFile(dir_ + "/models/toy/" + version + "/manifest.json"))["compute"]["sha256"]
        .get<std::string>();
  };
  EXPECT_NE(weights_sha("1"), weights_sha("2"));
  EXPECT_EQ(Train("3", {"--zero-comm", "--compute-loss", "huber"}), 2);
}

// Comm data of several layouts -> one device-set comm model pair (bundle format 2) beside the
// compute model of an existing bundle; it costs a device count no file held, and `model check`
// judges trained layouts and reports held-out ones.
TEST_F(ModelTrainCommandTest, DeviceSetCommModelsFromManyLayouts) {
  const auto collect = [&](int devices, int per_host, const std::string& seed,
                           const std::string& out) {
    return OfflineMain({"data", "collect", "--backend", "sim", "--kind", "comm", "--samples", "30",
                        "--devices", absl::StrCat(devices), "--devices-per-host",
                        absl::StrCat(per_host), "--seed", seed, "--pool", dir_ + "/pool.json",
                        "--out", dir_ + "/" + out});
  };
  ASSERT_EQ(collect(4, 2, "0", "c4x2.jsonl"), 0);
  ASSERT_EQ(collect(8, 4, "0", "c8x4.jsonl"), 0);
  ASSERT_EQ(collect(6, 2, "1", "c6x2.jsonl"), 0);  // held out
  EXPECT_NE(ReadFile(dir_ + "/c4x2.jsonl").find("\"devices_per_host\":2"), std::string::npos);
  EXPECT_EQ(collect(4, 5, "0", "bad.jsonl"), 2);  // more per host than devices

  ASSERT_EQ(Train("1", {"--zero-comm"}), 0);
  const std::string layouts = dir_ + "/c4x2.jsonl," + dir_ + "/c8x4.jsonl";
  ASSERT_EQ(OfflineMain({"model", "train", "--compute-from", dir_ + "/models/toy/1",
                         "--comm-any-data", layouts, "--name", "toy", "--version", "2",
                         "--models-root", dir_ + "/models", "--epochs", "3"}),
            0);
  absl::StatusOr<LoadedBundle> base = ReadModelBundle(dir_ + "/models/toy/1");
  absl::StatusOr<LoadedBundle> bundle = ReadModelBundle(dir_ + "/models/toy/2");
  ASSERT_TRUE(base.ok() && bundle.ok()) << bundle.status();
  EXPECT_NE(ReadFile(dir_ + "/models/toy/2/manifest.json").find("\"format_version\": 2"),
            std::string::npos);
  ASSERT_TRUE(bundle->model->device_set_comm().has_value());
  EXPECT_EQ(bundle->model->device_set_comm()->trained_layouts,
            (std::vector<DeviceLayout>{{4, 2}, {8, 4}}));
  const SubModelTraining& forward = bundle->info.training.at("comm_any_forward");
  EXPECT_EQ(forward.samples, 30 * 4 + 30 * 8);  // device rows
  EXPECT_EQ(forward.data_file, layouts);
  EXPECT_TRUE(forward.test_mse_by_layout.contains("4x2"));
  EXPECT_TRUE(forward.test_mse_by_layout.contains("8x4"));
  // The compute model is the base bundle's, bit for bit.
  EXPECT_EQ(bundle->model->compute().pred_mlp().layers()[0].weight,
            base->model->compute().pred_mlp().layers()[0].weight);
  EXPECT_EQ(bundle->info.training.count("compute"), base->info.training.count("compute"));
  Task six;
  six.topology.memory_bytes.assign(6, int64_t{1} << 30);
  six.topology.devices_per_host = 2;
  EXPECT_TRUE(bundle->model->CheckSupports(six).ok());

  const auto check = [&](const std::string& files, const std::string& ratio) {
    return OfflineMain({"model", "check", "--model", "toy@2", "--models-root", dir_ + "/models",
                        "--comm-data", files, "--max-mse-ratio", ratio});
  };
  EXPECT_EQ(check(dir_ + "/c4x2.jsonl", "1e12"), 0);
  EXPECT_EQ(check(dir_ + "/c4x2.jsonl", "1e-12"), 13);  // a trained layout is judged
  EXPECT_EQ(check(dir_ + "/c6x2.jsonl", "1e-12"), 0);   // a held-out one only reported
  // Usage: a feature set for a compute model that is not trained here.
  EXPECT_EQ(OfflineMain({"model", "train", "--compute-from", dir_ + "/models/toy/1",
                         "--compute-features", "log", "--comm-any-data", layouts, "--name", "toy",
                         "--version", "4", "--models-root", dir_ + "/models"}),
            2);
  // Usage: --compute-from and --compute-data exclude each other.
  EXPECT_EQ(OfflineMain({"model", "train", "--compute-from", dir_ + "/models/toy/1",
                         "--compute-data", dir_ + "/compute.jsonl", "--comm-any-data", layouts,
                         "--name", "toy", "--version", "3", "--models-root", dir_ + "/models"}),
            2);
}

}  // namespace
}  // namespace shardplan
