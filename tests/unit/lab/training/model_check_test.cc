#include "lab/training/model_check.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "base/exit_codes.h"
#include "costmodels/neural/table_features.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/costmodels/artifacts/bundle_test_util.h"
#include "tests/unit/lab/training/training_test_data.h"

namespace shardplan::training {
namespace {

using ::testing::HasSubstr;

// A bundle with a compute model and comm models for 2 devices, trained (says its manifest) to
// test MSEs of 0.25 ms^2 (compute) and 0.5 (comm).
LoadedBundle Bundle() {
  LoadedBundle bundle;
  bundle.info.name = "m";
  bundle.info.version = "1";
  bundle.info.hardware_profile = "sim-test";
  for (const char* name : {"compute", "comm_2_forward", "comm_2_backward"}) {
    SubModelTraining training;
    training.test_mse = std::string(name) == "compute" ? 0.25 : 0.5;
    bundle.info.training[name] = training;
  }
  bundle.model = std::make_shared<NeuralCostModel>(testing_bundle::RandomModel("m", "1", {2}));
  bundle.manifest = ManifestOfBundle(bundle.info, *bundle.model);
  return bundle;
}

// Samples of 1..3 pool tables at dims 4..32, measured as the model predicts plus `offset_ms`.
ComputeDataset Compute(const LoadedBundle& bundle, double offset_ms) {
  const TablePool pool = SmallPool(6);
  ComputeDataset data;
  data.path = "fresh_compute.jsonl";
  data.hardware_profile = "sim-test";
  data.row_offsets = {0};
  for (int s = 0; s < 40; ++s) {
    const int first = static_cast<int>(data.features.size());
    for (int r = 0; r <= s % 3; ++r) {
      std::array<float, kNumTableFeatures> row;
      TableFeatures(pool.tables[(s + r) % 6], 4 << ((s + r) % 4), row);
      data.features.insert(data.features.end(), row.begin(), row.end());
    }
    data.row_offsets.push_back(static_cast<int64_t>(data.features.size()) / kNumTableFeatures);
    const std::span<const float> rows(data.features.data() + first, data.features.size() - first);
    data.labels.push_back(
        static_cast<float>(bundle.model->compute().PredictFromFeatures(rows) + offset_ms));
  }
  return data;
}

// Placements on 2 devices, measured as the comm models predict times `scale`.
CommDataset Comm(const LoadedBundle& bundle, double scale) {
  CommDataset data;
  data.path = "fresh_comm_2.jsonl";
  data.hardware_profile = "sim-test";
  data.num_devices = 2;
  const NeuralCommModels& models = bundle.model->comm().at(2);
  for (int s = 0; s < 30; ++s) {
    const std::vector<int64_t> dim_sums = {8 + 4 * s, 200 - 4 * s};
    const std::vector<double> waits = {0.0, 0.1 * (s % 5)};
    data.forward_inputs.insert(data.forward_inputs.end(),
                               {static_cast<float>(dim_sums[0]), static_cast<float>(dim_sums[1]),
                                static_cast<float>(waits[0]), static_cast<float>(waits[1])});
    data.backward_inputs.insert(data.backward_inputs.end(),
                                {static_cast<float>(dim_sums[0]), static_cast<float>(dim_sums[1])});
    for (double ms : models.forward.Predict(dim_sums, waits)) {
      data.forward_labels.push_back(static_cast<float>(ms * scale));
    }
    for (double ms : models.backward.Predict(dim_sums, waits)) {
      data.backward_labels.push_back(static_cast<float>(ms * scale));
    }
  }
  return data;
}

TEST(ModelCheckTest, AModelMeasuredAsItPredictsHolds) {
  const LoadedBundle bundle = Bundle();
  const ComputeDataset compute = Compute(bundle, 0.0);
  const CommDataset comm = Comm(bundle, 1.0);
  absl::StatusOr<ModelCheckReport> report = CheckModel(bundle, {&compute, {&comm}}, 2.0);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->model, "m@1");
  ASSERT_EQ(report->sub_models.size(), 3u);
  EXPECT_EQ(report->sub_models[0].name, "compute");
  EXPECT_EQ(report->sub_models[0].samples, 40);
  EXPECT_EQ(report->sub_models[1].name, "comm_2_forward");
  EXPECT_EQ(report->sub_models[1].outputs, 60);
  EXPECT_EQ(report->sub_models[2].name, "comm_2_backward");
  for (const SubModelCheck& check : report->sub_models) {
    EXPECT_LT(check.mse, 1e-8) << check.name;  // float labels: rounding only
    EXPECT_FALSE(check.drifted) << check.name;
  }
  EXPECT_FALSE(report->drifted());
  EXPECT_THAT(FormatModelCheck(*report), HasSubstr("verdict: holds"));
}

TEST(ModelCheckTest, AnErrorAboveTheBoundIsDrift) {
  const LoadedBundle bundle = Bundle();
  // Every compute sample 1 ms off: MSE 1 = 4x the test MSE of 0.25.
  const ComputeDataset compute = Compute(bundle, 1.0);
  absl::StatusOr<ModelCheckReport> report = CheckModel(bundle, {&compute, {}}, 2.0);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->sub_models.size(), 1u);
  EXPECT_NEAR(report->sub_models[0].mse, 1.0, 1e-5);
  EXPECT_NEAR(report->sub_models[0].mse_ratio, 4.0, 1e-4);
  EXPECT_GT(report->sub_models[0].median_relative_error, 0.0);
  EXPECT_TRUE(report->sub_models[0].drifted);
  EXPECT_TRUE(report->drifted());
  EXPECT_THAT(FormatModelCheck(*report), HasSubstr("DRIFTED"));
  // The same error under a looser bound holds.
  report = CheckModel(bundle, {&compute, {}}, 5.0);
  ASSERT_TRUE(report.ok());
  EXPECT_FALSE(report->drifted());

  // Comm measured 30% slower than predicted drifts only where that passes the bound.
  const CommDataset comm = Comm(bundle, 1.3);
  report = CheckModel(bundle, {nullptr, {&comm}}, 1e-6);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->sub_models[0].drifted);
  EXPECT_GT(report->sub_models[0].mse, 0.0);
  EXPECT_GT(report->sub_models[1].mse, 0.0);
}

TEST(ModelCheckTest, RefusesDataItCannotCompare) {
  const LoadedBundle bundle = Bundle();
  ComputeDataset compute = Compute(bundle, 0.0);
  compute.hardware_profile = "sim-other";
  absl::Status status = CheckModel(bundle, {&compute, {}}, 2.0).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("fresh_compute.jsonl: measured on hardware profile "
                                          "'sim-other', but m@1 models 'sim-test'"));

  CommDataset comm = Comm(bundle, 1.0);
  comm.num_devices = 3;  // no comm models for 3 devices
  comm.forward_labels.resize(30 * 3);
  comm.forward_inputs.resize(30 * 6);
  status = CheckModel(bundle, {nullptr, {&comm}}, 2.0).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("m@1 has no comm models for 3 devices"));

  LoadedBundle untrained = Bundle();
  untrained.info.training.erase("compute");
  const ComputeDataset fine = Compute(untrained, 0.0);
  status = CheckModel(untrained, {&fine, {}}, 2.0).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("records no training of 'compute'"));

  EXPECT_EQ(CheckModel(bundle, {nullptr, {}}, 2.0).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckModel(bundle, {&fine, {}}, 0.0).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ModelCheckTest, DriftExitsWithItsOwnCode) {
  const absl::Status drifted = DriftedError("m@1 has drifted: compute");
  EXPECT_EQ(drifted.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ExitCodeFor(drifted), kExitDrifted);
  EXPECT_EQ(ExitCodeFor(absl::FailedPreconditionError("x")), kExitFailedPrecondition);
}

}  // namespace
}  // namespace shardplan::training
