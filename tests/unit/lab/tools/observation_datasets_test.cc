#include "lab/tools/observation_datasets.h"

#include <algorithm>
#include <memory>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan::offline {
namespace {

// Cost = 1 + sum of dims / 8 (so multi-table cost < sum of singles); comm = dim sum / 100.
class FakeBackend : public HardwareBackend {
 public:
  explicit FakeBackend(int devices = 1) : devices_(devices) {}
  std::string name() const override { return "fake"; }
  std::string hardware_profile() const override { return absl::StrCat("fake-", devices_); }
  absl::StatusOr<double> MeasureCompute(std::span<const Table> tables, int64_t) override {
    double ms = 1;
    for (const Table& table : tables) ms += table.dim / 8.0;
    return ms;
  }
  absl::StatusOr<CommMeasurement> MeasureComm(const Topology*, std::span<const int64_t> dim_sums,
                                              std::span<const double> offsets, int64_t) override {
    EXPECT_EQ(static_cast<int>(dim_sums.size()), devices_);
    for (double offset : offsets) EXPECT_EQ(offset, 0.0);
    CommMeasurement measured;
    for (int64_t sum : dim_sums) {
      measured.forward_ms.push_back(sum / 100.0);
      measured.backward_ms.push_back(sum / 50.0);
    }
    return measured;
  }

 private:
  int devices_;
};

TablePool Pool() {
  TablePool pool;
  for (int i = 0; i < 20; ++i) {
    Table table;
    table.name = absl::StrCat("t", i);
    table.rows = 100 * (20 - i);
    table.pooling_factor = 1;
    pool.tables.push_back(table);
  }
  return pool;
}

TEST(CollectionObservations, FirstSweepsDimsAndPairsHalves) {
  FakeBackend backend;
  ObservationOptions options;
  options.table_quantiles = {0.0, 0.99};
  absl::StatusOr<nlohmann::json> result = MeasureObservation1(backend, Pool(), options);
  ASSERT_TRUE(result.ok()) << result.status();
  const nlohmann::json& tables = (*result)["tables"];
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0]["rows"], 100);   // the lightest table
  EXPECT_EQ(tables[1]["rows"], 2000);  // the heaviest
  EXPECT_EQ(tables[0]["points"].size(), options.sweep_dims.size());
  // Every dim whose half is also in the sweep pairs with it (24 has no 12).
  for (const nlohmann::json& split : tables[0]["splits"]) {
    const int dim = split["dim"];
    EXPECT_DOUBLE_EQ(split["whole_ms"].get<double>(), 1 + dim / 8.0);
    EXPECT_DOUBLE_EQ(split["half_ms"].get<double>(), 1 + dim / 16.0);
  }
  // 8/4, 16/8, 32/16, 48/24, 64/32, 80/40, 96/48, 112/56, 128/64.
  EXPECT_EQ(tables[0]["splits"].size(), 9u);
  EXPECT_EQ((*result)["hardware_profile"], "fake-1");
}

TEST(CollectionObservations, SecondSumsSingleCosts) {
  FakeBackend backend;
  ObservationOptions options;
  options.combinations = 5;
  absl::StatusOr<nlohmann::json> result = MeasureObservation2(backend, Pool(), options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ((*result)["combinations"].size(), 5u);
  for (const nlohmann::json& combination : (*result)["combinations"]) {
    // The paper's protocol: 10 distinct tables.
    ASSERT_EQ(combination["tables"].size(), 10u);
    std::set<int> ids;
    for (const nlohmann::json& table : combination["tables"]) ids.insert(table[0].get<int>());
    EXPECT_EQ(ids.size(), 10u);
    double sum = 0;
    for (double ms : combination["single_ms"]) sum += ms;
    EXPECT_DOUBLE_EQ(combination["sum_single_ms"].get<double>(), sum);
    EXPECT_EQ(combination["single_ms"].size(), combination["tables"].size());
    // The fake charges its 1 ms overhead once per call.
    EXPECT_DOUBLE_EQ(combination["multi_ms"].get<double>(),
                     sum - (combination["tables"].size() - 1.0));
  }
}

TEST(CollectionObservations, ThirdTakesMaximaPerDeviceCount) {
  ObservationOptions options;
  options.placements = 4;
  const BackendFactory factory =
      [](int32_t devices) -> absl::StatusOr<std::unique_ptr<HardwareBackend>> {
    return std::make_unique<FakeBackend>(devices);
  };
  absl::StatusOr<nlohmann::json> result = MeasureObservation3(factory, options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ((*result)["device_counts"].size(), 2u);
  for (const nlohmann::json& group : (*result)["device_counts"]) {
    ASSERT_EQ(group["points"].size(), 4u);
    for (const nlohmann::json& point : group["points"]) {
      EXPECT_EQ(point["dim_sums"].size(), group["num_devices"].get<size_t>());
      // 10 tables per device, each of dim 4..128.
      int64_t total = 0;
      for (int64_t sum : point["dim_sums"]) total += sum;
      EXPECT_GE(total, 40 * group["num_devices"].get<int64_t>());
      EXPECT_LE(total, 1280 * group["num_devices"].get<int64_t>());
      const int64_t max_sum = point["max_dim_sum"];
      EXPECT_EQ(max_sum, *std::max_element(point["dim_sums"].begin(), point["dim_sums"].end()));
      EXPECT_DOUBLE_EQ(point["max_forward_ms"].get<double>(), max_sum / 100.0);
      EXPECT_DOUBLE_EQ(point["max_backward_ms"].get<double>(), max_sum / 50.0);
    }
  }
}

TEST(CollectionObservations, SecondRefusesAPoolSmallerThanACombination) {
  FakeBackend backend;
  TablePool pool = Pool();
  pool.tables.resize(9);
  absl::StatusOr<nlohmann::json> result = MeasureObservation2(backend, pool, ObservationOptions());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(CollectionObservations, StopFlagInterrupts) {
  FakeBackend backend;
  std::atomic<bool> stop{true};
  ObservationOptions options;
  options.stop = &stop;
  absl::StatusOr<nlohmann::json> result = MeasureObservation2(backend, Pool(), options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled);
}

}  // namespace
}  // namespace shardplan::offline
