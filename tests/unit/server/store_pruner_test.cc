#include "server/store_pruner.h"

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/text_serializer.h"
#include "server/store/plan_store.h"
#include "tests/unit/server/store/store_test_util.h"

namespace shardplan {
namespace {

using store_testing::JobId;
using store_testing::MakeRecord;
using store_testing::Succeeded;
using ::testing::HasSubstr;

std::string PrunerMetricsText(const ServerMetrics& metrics) {
  return prometheus::TextSerializer().Serialize(metrics.registry()->Collect());
}

class StorePrunerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<PlanStore>> store =
        OpenPlanStore("sqlite:" + dir_.path() + "/plans.db");
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
  }

  store_testing::TempDir dir_;
  std::unique_ptr<PlanStore> store_;
  ServerMetrics metrics_;
};

TEST_F(StorePrunerTest, APassDeletesExpiredKeylessRecordsInBatchesAndCountsThem) {
  for (int n = 0; n < 5; ++n) ASSERT_TRUE(store_->Insert(Succeeded(MakeRecord(n), 1000 + n)).ok());
  PlanRecord keyed = Succeeded(MakeRecord(5), 1000);
  keyed.job_key = "training-job";
  ASSERT_TRUE(store_->Insert(keyed).ok());
  ASSERT_TRUE(store_->Insert(Succeeded(MakeRecord(6), 9500)).ok());  // within the retention
  ASSERT_TRUE(store_->Insert(MakeRecord(7)).ok());                   // queued

  StoreRetention retention;
  retention.keep = std::chrono::milliseconds(1000);
  retention.interval = std::chrono::hours(1);
  retention.batch = 2;
  StorePruner pruner(store_.get(), retention, &metrics_);
  absl::StatusOr<int64_t> deleted = pruner.PruneOnce(/*now_unix_ms=*/10000);  // cut at 9000
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  EXPECT_EQ(*deleted, 5);
  EXPECT_EQ(store_->Count().value(), 3);
  for (int n : {5, 6, 7}) EXPECT_TRUE(store_->GetByJobId(JobId(n)).value().has_value()) << n;
  const std::string text = PrunerMetricsText(metrics_);
  EXPECT_THAT(text, HasSubstr("shardplan_store_pruned_records_total 5"));
  // 2 + 2 + 1: the short batch ends the pass.
  EXPECT_THAT(text,
              HasSubstr(R"(shardplan_store_operations_total{code="OK",operation="prune"} 3)"));

  EXPECT_EQ(pruner.PruneOnce(10000).value(), 0);
}

TEST_F(StorePrunerTest, APassKeepsTheStoreWithinMaxBytesDeletingTheOldestKeylessFirst) {
  for (int n = 0; n < 5; ++n) {
    ASSERT_TRUE(store_->Insert(Succeeded(MakeRecord(n), 1000 + n, std::string(100, 'p'))).ok());
  }
  PlanRecord keyed = Succeeded(MakeRecord(5), 10, std::string(100, 'k'));
  keyed.job_key = "training-job";
  ASSERT_TRUE(store_->Insert(keyed).ok());
  const int64_t each = RecordBytes(keyed);  // every record here holds as many bytes

  StoreRetention retention;  // no age retention: size alone
  retention.interval = std::chrono::hours(1);
  retention.max_bytes = 3 * each;
  retention.batch = 1;
  StorePruner pruner(store_.get(), retention, &metrics_);
  EXPECT_EQ(pruner.PruneOnce(/*now_unix_ms=*/10000).value(), 3);
  for (int n : {0, 1, 2}) EXPECT_EQ(store_->GetByJobId(JobId(n)).value(), std::nullopt) << n;
  for (int n : {3, 4, 5}) EXPECT_TRUE(store_->GetByJobId(JobId(n)).value().has_value()) << n;
  const std::string text = PrunerMetricsText(metrics_);
  EXPECT_THAT(text, HasSubstr("shardplan_store_size_pruned_records_total 3"));
  EXPECT_THAT(text, HasSubstr("shardplan_store_pruned_records_total 0"));
  EXPECT_THAT(text, HasSubstr("shardplan_store_bytes " + std::to_string(3 * each)));
  EXPECT_THAT(text, HasSubstr("shardplan_store_kept_bytes " + std::to_string(each)));
}

TEST_F(StorePrunerTest, TheThreadPrunesAtStartAndStops) {
  for (int n = 0; n < 3; ++n) ASSERT_TRUE(store_->Insert(Succeeded(MakeRecord(n), 1000)).ok());
  StoreRetention retention;
  retention.keep = std::chrono::hours(24);  // 1970 is long past
  retention.interval = std::chrono::hours(1);
  StorePruner pruner(store_.get(), retention, &metrics_);
  pruner.Start();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (store_->Count().value() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(store_->Count().value(), 0);
  pruner.Stop();  // wakes the thread from its hour-long wait
  pruner.Stop();  // idempotent
  EXPECT_THAT(PrunerMetricsText(metrics_), HasSubstr("shardplan_store_pruned_records_total 3"));
}

// A store whose prune fails as a database that went away does.
class UnavailableStore final : public PlanStore {
 public:
  std::string backend() const override { return "fake"; }
  absl::Status Insert(const PlanRecord&) override { return Down(); }
  absl::Status Update(const PlanRecord&) override { return Down(); }
  absl::Status ReplaceKeyed(const PlanRecord&) override { return Down(); }
  absl::StatusOr<std::optional<PlanRecord>> GetByJobId(const std::string&) override {
    return Down();
  }
  absl::StatusOr<std::optional<PlanRecord>> GetByJobKey(const std::string&) override {
    return Down();
  }
  absl::StatusOr<std::optional<PlanRecord>> FindSucceeded(const std::string&) override {
    return Down();
  }
  absl::StatusOr<std::vector<PlanRecord>> ListUnfinished(const std::string&) override {
    return Down();
  }
  absl::Status Delete(const std::string&) override { return Down(); }
  absl::StatusOr<int64_t> PruneFinished(int64_t, int64_t) override { return Down(); }
  absl::StatusOr<int64_t> Count() override { return Down(); }
  absl::StatusOr<StoredBytes> Bytes() override { return Down(); }
  absl::StatusOr<int64_t> PruneForSize(int64_t, int64_t) override { return Down(); }

 private:
  static absl::Status Down() {
    return absl::UnavailableError("plan store (fake): connection lost");
  }
};

TEST(StorePrunerErrorTest, AStoreErrorIsReturnedAndCounted) {
  UnavailableStore store;
  ServerMetrics metrics;
  StoreRetention retention;
  retention.keep = std::chrono::seconds(1);
  retention.interval = std::chrono::hours(1);
  StorePruner pruner(&store, retention, &metrics);
  absl::StatusOr<int64_t> deleted = pruner.PruneOnce(10000);
  EXPECT_EQ(deleted.status().code(), absl::StatusCode::kUnavailable) << deleted.status();
  EXPECT_THAT(
      PrunerMetricsText(metrics),
      HasSubstr(R"(shardplan_store_operations_total{code="UNAVAILABLE",operation="prune"} 1)"));
  EXPECT_THAT(PrunerMetricsText(metrics), HasSubstr("shardplan_store_pruned_records_total 0"));
}

}  // namespace
}  // namespace shardplan
