#include "costmodels/neural/neural_cost_model.h"

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/domain/task.h"
#include "tests/unit/nn/reference_mlp.h"

namespace shardplan {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_neural::Close;
using testing_neural::RandomLayers;
using testing_neural::ReferenceForward;

// Raw features by name, computed independently of TableFeatures from the reference's key names.
double ReferenceFeature(std::string_view name, const Table& table, int32_t dim) {
  if (name == "dim") return dim;
  if (name == "pooling_factor") return table.pooling_factor;
  if (name == "row") return static_cast<double>(table.rows);
  const int bin = std::stoi(std::string(name.substr(4)));  // "bin_N"
  return table.access_bins.empty() ? 0.0 : table.access_bins[bin];
}

struct Stats {
  std::vector<double> means;
  std::vector<double> stds;
};

Stats RandomStats(int n, std::mt19937& rng, double scale) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Stats s;
  for (int i = 0; i < n; ++i) {
    s.means.push_back(scale * u(rng));
    s.stds.push_back(scale * (0.1 + u(rng)));
  }
  return s;
}

Table RandomTable(std::mt19937& rng, int index, bool with_bins) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Table table;
  table.name = absl::StrCat("t", index);
  table.rows = 1000 + static_cast<int64_t>(u(rng) * 2e6);
  table.dim = 64;
  table.pooling_factor = 1.0 + 40.0 * u(rng);
  if (with_bins) {
    double total = 0.0;
    for (int j = 0; j < kNumAccessBins; ++j) table.access_bins.push_back(u(rng));
    for (double b : table.access_bins) total += b;
    for (double& b : table.access_bins) b /= total;
  }
  return table;
}

class NeuralCostModelTest : public ::testing::Test {
 protected:
  NeuralCostModelTest() : rng_(42) {
    // Statistics of the magnitude of the real features: rows ~1e6, dims ~64, bins ~0.1.
    compute_stats_ = RandomStats(kNumTableFeatures, rng_, 1.0);
    compute_stats_.means[17] = 64;
    compute_stats_.stds[17] = 40;
    compute_stats_.means[18] = 15;
    compute_stats_.stds[18] = 10;
    compute_stats_.means[19] = 1e6;
    compute_stats_.stds[19] = 6e5;
    table_layers_ = RandomLayers({kNumTableFeatures, 128, 32}, rng_);
    pred_layers_ = RandomLayers({32, 64, 1}, rng_);
    for (int n : {4, 8}) {
      fw_stats_[n] = RandomStats(2 * n, rng_, 100.0);
      bw_stats_[n] = RandomStats(n, rng_, 100.0);
      fw_layers_[n] = RandomLayers({2 * n, 128, 64, 32, 16, n}, rng_);
      bw_layers_[n] = RandomLayers({n, 128, 64, 32, 16, n}, rng_);
    }
    for (int i = 0; i < 12; ++i) tables_.push_back(RandomTable(rng_, i, /*with_bins=*/i != 3));
  }

  NeuralComputeModel MakeCompute() {
    auto model = NeuralComputeModel::Create(
        FeatureNormalizer::Create(compute_stats_.means, compute_stats_.stds).value(),
        Mlp::Create(table_layers_, /*relu_on_output=*/true).value(),
        Mlp::Create(pred_layers_).value());
    EXPECT_TRUE(model.ok()) << model.status();
    return *std::move(model);
  }

  NeuralCommModels MakeComm(int n) {
    return NeuralCommModels{
        NeuralCommModel::Create(n, NeuralCommModel::Direction::kForward,
                                FeatureNormalizer::Create(fw_stats_[n].means, fw_stats_[n].stds)
                                    .value(),
                                Mlp::Create(fw_layers_[n]).value())
            .value(),
        NeuralCommModel::Create(n, NeuralCommModel::Direction::kBackward,
                                FeatureNormalizer::Create(bw_stats_[n].means, bw_stats_[n].stds)
                                    .value(),
                                Mlp::Create(bw_layers_[n]).value())
            .value()};
  }

  NeuralCostModel MakeModel(const std::vector<int>& device_counts) {
    std::map<int, NeuralCommModels> comm;
    for (int n : device_counts) comm.emplace(n, MakeComm(n));
    auto model = NeuralCostModel::Create("sim-a100", "3", MakeCompute(), std::move(comm));
    EXPECT_TRUE(model.ok()) << model.status();
    return *std::move(model);
  }

  // The reference compute model in double precision.
  double ReferenceCompute(const std::vector<ShardView>& shards) {
    std::vector<double> sum(32, 0.0);
    for (const ShardView& shard : shards) {
      std::vector<double> x;
      for (int i = 0; i < kNumTableFeatures; ++i) {
        const double raw = ReferenceFeature(TableFeatureNames()[i], *shard.table, shard.columns);
        x.push_back((raw - compute_stats_.means[i]) / (compute_stats_.stds[i] + 1e-6));
      }
      const std::vector<double> latent = ReferenceForward(table_layers_, x, true);
      for (int j = 0; j < 32; ++j) sum[j] += latent[j];
    }
    return ReferenceForward(pred_layers_, sum, false)[0];
  }

  std::vector<double> ReferenceComm(int n, bool forward, const std::vector<int64_t>& dim_sums,
                                    const std::vector<double>& waits) {
    const Stats& stats = forward ? fw_stats_[n] : bw_stats_[n];
    std::vector<double> x(dim_sums.begin(), dim_sums.end());
    if (forward) x.insert(x.end(), waits.begin(), waits.end());
    for (size_t i = 0; i < x.size(); ++i) x[i] = (x[i] - stats.means[i]) / (stats.stds[i] + 1e-6);
    return ReferenceForward(forward ? fw_layers_[n] : bw_layers_[n], x, false);
  }

  std::vector<ShardView> Shards(std::initializer_list<std::pair<int, int32_t>> table_columns) {
    std::vector<ShardView> shards;
    for (auto [t, columns] : table_columns) {
      shards.push_back(ShardView{&tables_[t], tables_[t].rows, columns});
    }
    return shards;
  }

  Task TaskWithDevices(int n) {
    Task task;
    task.topology.memory_bytes.assign(n, int64_t{16} << 30);
    return task;
  }

  std::mt19937 rng_;
  Stats compute_stats_;
  std::vector<DenseLayer> table_layers_, pred_layers_;
  std::map<int, Stats> fw_stats_, bw_stats_;
  std::map<int, std::vector<DenseLayer>> fw_layers_, bw_layers_;
  std::vector<Table> tables_;
};

TEST_F(NeuralCostModelTest, IdIsNameAtVersion) { EXPECT_EQ(MakeModel({4}).id(), "sim-a100@3"); }

TEST_F(NeuralCostModelTest, ComputeMatchesReference) {
  const NeuralCostModel model = MakeModel({4});
  const Task task = TaskWithDevices(4);
  const CostContext context = CostContext::For(task);
  // The random weights are not degenerate: different tables cost differently.
  EXPECT_NE(ReferenceCompute(Shards({{0, 64}})), ReferenceCompute(Shards({{1, 64}})));
  EXPECT_NE(ReferenceCompute(Shards({{0, 64}})), ReferenceCompute(Shards({{0, 32}})));
  for (const auto& shards :
       {Shards({}), Shards({{0, 64}}), Shards({{1, 32}, {2, 128}, {3, 16}}),
        Shards({{0, 64}, {1, 64}, {2, 64}, {4, 8}, {5, 256}, {6, 64}, {7, 4}, {8, 64}, {9, 32},
                {10, 64}, {11, 128}})}) {
    const double expected = ReferenceCompute(shards);
    const double actual = model.ComputeCost(context, shards);
    EXPECT_TRUE(Close(actual, expected)) << shards.size() << " shards: " << actual << " vs "
                                         << expected;
  }
}

TEST_F(NeuralCostModelTest, TableWithoutHistogramCostsAsZeroBins) {
  // Table 3 has no histogram; the same table with 17 explicit zero bins costs the same.
  const NeuralComputeModel compute = MakeCompute();
  Table zeros = tables_[3];
  zeros.access_bins.assign(kNumAccessBins, 0.0);
  const ShardView a{&tables_[3], tables_[3].rows, 64};
  const ShardView b{&zeros, zeros.rows, 64};
  EXPECT_EQ(compute.Predict(std::span(&a, 1)), compute.Predict(std::span(&b, 1)));
}

TEST_F(NeuralCostModelTest, SumPoolingIsPermutationInvariant) {
  const NeuralComputeModel compute = MakeCompute();
  std::vector<ShardView> shards =
      Shards({{0, 64}, {1, 32}, {2, 128}, {3, 16}, {4, 64}, {5, 8}, {6, 64}, {7, 256}});
  const double expected = ReferenceCompute(shards);
  const double base = compute.Predict(shards);
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    std::shuffle(shards.begin(), shards.end(), rng);
    const double permuted = compute.Predict(shards);
    EXPECT_TRUE(Close(permuted, base)) << permuted << " vs " << base;
    EXPECT_TRUE(Close(permuted, expected)) << permuted << " vs " << expected;
  }
}

TEST_F(NeuralCostModelTest, RepeatedShardsCountEachTime) {
  // Two column-wise shards of one table with equal widths share a memoised latent but are both
  // summed; a different width is a different latent.
  const NeuralComputeModel compute = MakeCompute();
  for (const auto& shards :
       {Shards({{0, 32}, {0, 32}}), Shards({{0, 32}, {1, 64}, {0, 32}, {0, 16}, {0, 32}})}) {
    const double expected = ReferenceCompute(shards);
    EXPECT_TRUE(Close(compute.Predict(shards), expected));
  }
}

TEST_F(NeuralCostModelTest, CommModelsMatchReference) {
  const NeuralCostModel model = MakeModel({4, 8});
  std::uniform_int_distribution<int64_t> dims(0, 2000);
  std::uniform_real_distribution<double> waits_ms(0.0, 30.0);
  for (int n : {4, 8}) {
    const Task task = TaskWithDevices(n);
    const CostContext context = CostContext::For(task);
    for (int trial = 0; trial < 5; ++trial) {
      std::vector<int64_t> dim_sums(n);
      std::vector<double> waits(n);
      for (auto& d : dim_sums) d = dims(rng_);
      for (auto& w : waits) w = waits_ms(rng_);
      const std::vector<double> bw = model.BackwardCommCosts(context, dim_sums);
      const std::vector<double> fw = model.ForwardCommCosts(context, dim_sums, waits);
      const std::vector<double> bw_ref = ReferenceComm(n, false, dim_sums, waits);
      const std::vector<double> fw_ref = ReferenceComm(n, true, dim_sums, waits);
      ASSERT_EQ(bw.size(), static_cast<size_t>(n));
      ASSERT_EQ(fw.size(), static_cast<size_t>(n));
      for (int d = 0; d < n; ++d) {
        EXPECT_TRUE(Close(bw[d], bw_ref[d])) << n << " devices, device " << d;
        EXPECT_TRUE(Close(fw[d], fw_ref[d])) << n << " devices, device " << d;
      }
    }
  }
}

TEST_F(NeuralCostModelTest, ForwardCommDependsOnWaits) {
  const NeuralCostModel model = MakeModel({4});
  const Task task = TaskWithDevices(4);
  const std::vector<int64_t> dim_sums = {100, 200, 300, 400};
  const auto a = model.ForwardCommCosts(CostContext::For(task), dim_sums,
                                        std::vector<double>{0, 0, 0, 0});
  const auto b = model.ForwardCommCosts(CostContext::For(task), dim_sums,
                                        std::vector<double>{0, 5, 10, 20});
  EXPECT_NE(a, b);
}

TEST_F(NeuralCostModelTest, InferenceAndSequenceTablesAreRefused) {
  const NeuralCostModel model = MakeModel({4});
  Task inference = TaskWithDevices(4);
  inference.objective = Objective::kInference;
  EXPECT_EQ(model.CheckSupports(inference).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(model.CheckSupports(inference).message().find("INFERENCE"), std::string::npos);
  Task sequence = TaskWithDevices(4);
  sequence.tables.push_back(Table{.name = "history", .rows = 10, .dim = 8, .pooling_factor = 5});
  sequence.tables.back().pooling = Pooling::kSequence;
  const absl::Status status = model.CheckSupports(sequence);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("\"history\"), a SEQUENCE table"), std::string::npos) << status;
}

TEST_F(NeuralCostModelTest, CheckSupportsNamesTheMissingDeviceCount) {
  const NeuralCostModel model = MakeModel({4});
  EXPECT_TRUE(model.CheckSupports(TaskWithDevices(4)).ok());
  const absl::Status status = model.CheckSupports(TaskWithDevices(8));
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("8 devices"), std::string::npos) << status;
  EXPECT_NE(status.message().find("sim-a100@3"), std::string::npos) << status;
  EXPECT_NE(status.message().find("4"), std::string::npos) << status;

  const NeuralCostModel compute_only = MakeModel({});
  EXPECT_EQ(compute_only.CheckSupports(TaskWithDevices(4)).code(),
            absl::StatusCode::kFailedPrecondition);
  // Unsupported comm queries give NaN, never a crash.
  const Task task = TaskWithDevices(2);
  const auto bw = model.BackwardCommCosts(CostContext::For(task), std::vector<int64_t>{1, 2});
  ASSERT_EQ(bw.size(), 2u);
  EXPECT_TRUE(std::isnan(bw[0]));
}

TEST_F(NeuralCostModelTest, ZeroCommCostsSupportEveryDeviceCount) {
  auto model = NeuralCostModel::Create("cpu", "1", MakeCompute(), {},
                                       NeuralCostModel::CommCosts::kZero);
  ASSERT_TRUE(model.ok()) << model.status();
  for (int n : {1, 4, 7}) EXPECT_TRUE(model->CheckSupports(TaskWithDevices(n)).ok()) << n;
  const Task task = TaskWithDevices(3);
  const CostContext context = CostContext::For(task);
  EXPECT_EQ(model->BackwardCommCosts(context, std::vector<int64_t>{8, 16, 4}),
            (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(model->ForwardCommCosts(context, std::vector<int64_t>{8, 16, 4},
                                    std::vector<double>{0, 1, 2}),
            (std::vector<double>{0, 0, 0}));
  // The compute model is untouched.
  EXPECT_TRUE(Close(model->ComputeCost(context, Shards({{0, 64}})),
                    ReferenceCompute(Shards({{0, 64}}))));
  // Comm models and zero comm costs contradict each other.
  std::map<int, NeuralCommModels> comm;
  comm.emplace(4, MakeComm(4));
  EXPECT_EQ(NeuralCostModel::Create("cpu", "1", MakeCompute(), std::move(comm),
                                    NeuralCostModel::CommCosts::kZero)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(NeuralCostModelTest, LatentMemoNeverChangesAResult) {
  const NeuralComputeModel memoised = MakeCompute();
  ASSERT_NE(memoised.latent_memo(), nullptr);
  const NeuralComputeModel plain =
      *NeuralComputeModel::Create(memoised.normalizer(), memoised.table_mlp(),
                                  memoised.pred_mlp(), /*latent_memo_capacity=*/0);
  EXPECT_EQ(plain.latent_memo(), nullptr);
  const std::vector<ShardView> shards = Shards({{0, 64}, {1, 32}, {2, 128}, {0, 64}, {3, 16}});
  const double expected = plain.Predict(shards);
  EXPECT_EQ(memoised.Predict(shards), expected);  // cold: fills the memo
  EXPECT_EQ(memoised.Predict(shards), expected);  // warm: every latent from the memo
  const LatentMemo::Stats stats = memoised.latent_memo()->stats();
  EXPECT_EQ(stats.entries, 4);  // (0, 64) twice, one entry
  EXPECT_EQ(stats.hits, 6);     // the repeat in the cold call, and all five in the warm one
  // A copy of a table (another address, same features) hits the same entry.
  Table copy = tables_[1];
  const std::vector<ShardView> copied = {ShardView{&copy, copy.rows, 32}};
  EXPECT_EQ(memoised.Predict(copied), plain.Predict(copied));
  EXPECT_EQ(memoised.latent_memo()->stats().hits, 7);
}

TEST_F(NeuralCostModelTest, ConcurrentCallsAgree) {
  const NeuralCostModel model = MakeModel({4});
  const Task task = TaskWithDevices(4);
  const CostContext context = CostContext::For(task);
  const std::vector<ShardView> shards = Shards({{0, 64}, {1, 32}, {2, 128}, {0, 64}});
  const std::vector<int64_t> dim_sums = {64, 128, 256, 512};
  const double compute = model.ComputeCost(context, shards);
  const std::vector<double> bw = model.BackwardCommCosts(context, dim_sums);
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        if (model.ComputeCost(context, shards) != compute) ++mismatches[t];
        if (model.BackwardCommCosts(context, dim_sums) != bw) ++mismatches[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(mismatches[t], 0) << t;
}

TEST_F(NeuralCostModelTest, OutsideTrainingRangeAddsAnAccessShapeTheDataNeverHeld) {
  Table table;
  table.name = "steep";
  table.rows = 5000;
  table.dim = 16;
  table.pooling_factor = 4.0;
  table.access_bins.assign(kNumAccessBins, 0.0);
  table.access_bins[0] = 0.9;  // lookups: 0.9 x 1 on bin 0, 0.1 x 1.5 on bin 1: 6/7 and 1/7
  table.access_bins[1] = 0.1;
  TableFeatureRange range;  // every feature of the table inside
  range.min.assign(kNumTableFeatures, 0.0);
  range.max.assign(kNumTableFeatures, 1.0);
  range.max[17] = 128.0;
  range.max[18] = 200.0;
  range.max[19] = 1e7;
  NeuralCostModel ranged = *NeuralCostModel::Create("sim-a100", "3", MakeCompute(), {},
                                                    NeuralCostModel::CommCosts::kZero, range);
  EXPECT_TRUE(ranged.OutsideTrainingRange(table).empty());
  AccessShapeSummary shapes;
  shapes.centres = {AccessShape{}, AccessShape{}};
  shapes.centres[0][0] = 1.0;  // every lookup on rows read once
  shapes.centres[1][0] = 0.5;
  shapes.centres[1][1] = 0.5;
  shapes.threshold = 0.15;
  const NeuralCostModel shaped = *NeuralCostModel::WithAccessShapes(ranged, shapes);
  EXPECT_THAT(shaped.OutsideTrainingRange(table),
              ElementsAre("lookups by access class 0.286 (L1) from the nearest trained table's "
                          "(flagged beyond 0.15)"));
  table.access_bins[0] = 0.97;  // 0.089 from the first centre: inside
  table.access_bins[1] = 0.03;
  EXPECT_TRUE(shaped.OutsideTrainingRange(table).empty());
  // Per-feature reasons come first; the shape joins them.
  table.rows = 20'000'000;
  table.access_bins[0] = 0.9;
  table.access_bins[1] = 0.1;
  EXPECT_THAT(shaped.OutsideTrainingRange(table),
              ElementsAre(HasSubstr("row 2e+07 (trained on 0 to 1e+07)"),
                          HasSubstr("lookups by access class 0.286 (L1)")));
  // No summary: no shape warnings; a malformed one is refused, naming the model.
  EXPECT_FALSE(
      NeuralCostModel::WithAccessShapes(shaped, std::nullopt)->access_shapes().has_value());
  shapes.threshold = -1.0;
  const auto refused = NeuralCostModel::WithAccessShapes(ranged, shapes);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("neural cost model sim-a100@3: access shapes: threshold is -1"));
}

TEST_F(NeuralCostModelTest, CreateRejectsMismatchedShapes) {
  auto normalizer = [](int n) {
    return FeatureNormalizer::Create(std::vector<double>(n, 0.0), std::vector<double>(n, 1.0))
        .value();
  };
  // Compute: table MLP without output ReLU, pred MLP with 2 outputs, 19 features.
  EXPECT_FALSE(NeuralComputeModel::Create(normalizer(20), Mlp::Create(table_layers_).value(),
                                          Mlp::Create(pred_layers_).value())
                   .ok());
  EXPECT_FALSE(NeuralComputeModel::Create(normalizer(20),
                                          Mlp::Create(table_layers_, true).value(),
                                          Mlp::Create(RandomLayers({32, 64, 2}, rng_)).value())
                   .ok());
  EXPECT_FALSE(NeuralComputeModel::Create(normalizer(19),
                                          Mlp::Create(table_layers_, true).value(),
                                          Mlp::Create(pred_layers_).value())
                   .ok());
  // Comm: a backward model fed the forward model's 2N inputs; a normaliser of the wrong size.
  EXPECT_FALSE(NeuralCommModel::Create(4, NeuralCommModel::Direction::kBackward, normalizer(8),
                                       Mlp::Create(fw_layers_[4]).value())
                   .ok());
  EXPECT_FALSE(NeuralCommModel::Create(4, NeuralCommModel::Direction::kForward, normalizer(4),
                                       Mlp::Create(fw_layers_[4]).value())
                   .ok());
  // Bundle: comm models filed under the wrong device count; empty version.
  std::map<int, NeuralCommModels> misfiled;
  misfiled.emplace(8, MakeComm(4));
  EXPECT_FALSE(NeuralCostModel::Create("m", "1", MakeCompute(), std::move(misfiled)).ok());
  EXPECT_FALSE(NeuralCostModel::Create("m", "", MakeCompute(), {}).ok());
}

}  // namespace
}  // namespace shardplan
