// A damaged or unbounded SQLite plan store under the real server (issue 18): digits edited
// inside stored plans (the database's own checks still pass), random bytes over the file's
// pages, a file wiped to 0 bytes, a keyless plan larger than store_max_plan_bytes, and a store
// past store_max_bytes. A damaged record is never served as a plan, never answered NOT_FOUND and
// never quoted raw; what is wrong is logged and counted; what is bounded stays bounded.
#include <signal.h>

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/faults/store_fault_support.h"
#include "tests/integration/server/server_test_support.h"
#include "tests/unit/server/store/store_test_util.h"

namespace shardplan::integration {
namespace {

namespace fs = std::filesystem;
using ::testing::AnyOf;
using ::testing::HasSubstr;

constexpr char kDamaged[] = "shardplan_store_damaged_records_total";

class StoreDamageTest : public ServerTest {
 protected:
  // Stops the server gracefully (its WAL is checkpointed into the file).
  void Stop() {
    ASSERT_TRUE(server_.Signal(SIGTERM).ok());
    ASSERT_TRUE(server_.WaitForExit(std::chrono::seconds(60)).ok());
  }

  std::string Path() const { return server_.store().substr(std::string("sqlite:").size()); }

  // `count` keyless plans (seeds from `first`) and as many jobs; their job ids, oldest first.
  std::vector<std::string> PlansAndJobs(int count, uint64_t first = 100) {
    std::vector<std::string> ids;
    for (int i = 0; i < count; ++i) {
      v1::PlanResponse response;
      grpc::Status status = Plan(QuickRequest(first + i), &response);
      EXPECT_TRUE(status.ok()) << status.error_message();
      EXPECT_FALSE(response.job_id().empty());
      ids.push_back(response.job_id());
    }
    for (int i = 0; i < count; ++i) {
      const std::string id = Submit(QuickRequest(first + 1000 + i));
      AwaitState(id, v1::SUCCEEDED);
      ids.push_back(id);
    }
    return ids;
  }

  // A damaged record's answer: DATA_LOSS or UNAVAILABLE naming `id`, printable ASCII only.
  static void ExpectRefusedNaming(const grpc::Status& status, const std::string& id) {
    EXPECT_THAT(status.error_code(),
                AnyOf(grpc::StatusCode::DATA_LOSS, grpc::StatusCode::UNAVAILABLE))
        << id << ": " << status.error_code() << " " << status.error_message();
    EXPECT_THAT(status.error_message(), HasSubstr(id));
    for (char c : status.error_message()) {
      ASSERT_TRUE(c >= 0x20 && c < 0x7f) << "raw bytes in the message: " << status.error_message();
    }
  }
};

TEST_F(StoreDamageTest, EditedDigitsInStoredPlansAnswerDataLossNamingTheJobNeverAnotherPlan) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  v1::PlanResponse keyed;
  ASSERT_TRUE(Plan(KeyedRequest("damaged/plan"), &keyed).ok());
  std::vector<std::string> ids = PlansAndJobs(5);
  ids.push_back(keyed.job_id());
  Stop();

  // Devices 0 and 1 swapped in every stored plan: valid JSON, a sound file, a different plan.
  ASSERT_NE(SqliteQuery(server_.store(),
                        "SELECT count(*) FROM plans WHERE plan_json LIKE '%\"device\":1%'"),
            "0");
  ASSERT_EQ(SqliteQuery(server_.store(),
                        "UPDATE plans SET plan_json = replace(replace(replace(plan_json, "
                        "'\"device\":0', '\"device\":X'), '\"device\":1', '\"device\":0'), "
                        "'\"device\":X', '\"device\":1')"),
            "");
  EXPECT_EQ(SqliteIntegrity(server_.store()), "ok");

  ASSERT_NO_FATAL_FAILURE(StartServer());
  for (const std::string& id : ids) {
    v1::JobStatus job;
    grpc::Status status = CallGet(*stub_, id, &job);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::DATA_LOSS) << id << ": " << job.DebugString();
    ExpectRefusedNaming(status, id);
    EXPECT_THAT(status.error_message(), HasSubstr("checksum"));
  }
  // The keyed plan: refused naming the key, never a second plan for it; Replan gives it one.
  v1::PlanResponse again;
  grpc::Status status = Plan(KeyedRequest("damaged/plan"), &again);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DATA_LOSS) << again.DebugString();
  EXPECT_THAT(status.error_message(), HasSubstr("damaged/plan"));
  v1::PlanResponse replanned;
  status = stub_->Replan(Context().get(), KeyedRequest("damaged/plan"), &replanned);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(Shards(replanned.plan()), Shards(keyed.plan()));
  ASSERT_TRUE(Plan(KeyedRequest("damaged/plan"), &again).ok());
  EXPECT_EQ(again.job_id(), replanned.job_id());

  // Counted once per record however often it is asked for, logged once per record.
  EXPECT_EQ(MetricValue(Scrape(), kDamaged), static_cast<double>(ids.size()));
  for (const std::string& id : ids) {
    v1::JobStatus job;
    EXPECT_FALSE(CallGet(*stub_, id, &job).ok());
  }
  EXPECT_EQ(MetricValue(Scrape(), kDamaged), static_cast<double>(ids.size()));
  EXPECT_EQ(MetricValue(Scrape(), "shardplan_store_healthy"), 0);
  const std::string log = server_.log();
  for (const std::string& id : ids) {
    const std::string line = absl::StrCat("damaged record (job ", id, ")");
    EXPECT_THAT(log, HasSubstr(line));
    EXPECT_EQ(log.find(line), log.rfind(line)) << "logged more than once: " << line;
  }
}

TEST_F(StoreDamageTest, RandomBytesInTheFileAreReportedAndAnswerUnavailableNeverNotFound) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  std::vector<v1::Plan> plans;
  const std::vector<std::string> ids = PlansAndJobs(40);
  for (const std::string& id : ids) plans.push_back(GetJob(id).result().plan());
  Stop();

  // Random bytes over every page but the first (the header and schema), 8 a page.
  ASSERT_GT(fs::file_size(Path()), 8 * 4096u);
  store_testing::ScribbleOverPages(Path(), 8, 2024);

  ASSERT_NO_FATAL_FAILURE(
      StartServer());  // it serves what is intact, and says the store is damaged
  EXPECT_THAT(server_.log(), HasSubstr("store: DAMAGED"));
  const std::string metrics = Scrape();
  EXPECT_EQ(MetricValue(metrics, "shardplan_store_healthy"), 0);
  EXPECT_EQ(MetricValue(metrics, "shardplan_store_checks_total{result=\"damaged\"}"), 1);
  int refused = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    v1::JobStatus job;
    grpc::Status status = CallGet(*stub_, ids[i], &job);
    if (status.ok()) {  // served only as it was computed
      EXPECT_EQ(Shards(job.result().plan()), Shards(plans[i])) << ids[i];
      continue;
    }
    ++refused;
    ExpectRefusedNaming(status, ids[i]);
  }
  EXPECT_GT(refused, 0);
  // A job that never existed is still NOT_FOUND only where the store can tell: here it cannot.
  v1::JobStatus unknown;
  EXPECT_NE(CallGet(*stub_, std::string(32, 'f'), &unknown).error_code(),
            grpc::StatusCode::NOT_FOUND);
  // Planning goes on.
  v1::PlanResponse response;
  ASSERT_TRUE(Plan(QuickRequest(7), &response).ok());
  EXPECT_GT(response.plan().tables_size(), 0);
}

TEST_F(StoreDamageTest, AStoreFileWipedToZeroBytesIsRefusedAtStart) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  v1::PlanResponse keyed;
  ASSERT_TRUE(Plan(KeyedRequest("kept/plan"), &keyed).ok());
  Stop();
  fs::resize_file(Path(), 0);
  fs::remove(Path() + "-wal");
  fs::remove(Path() + "-shm");

  const absl::Status started = server_.Start();
  ASSERT_FALSE(started.ok()) << "a wiped store started as a fresh one";
  EXPECT_THAT(server_.log(), HasSubstr("empty (0 bytes)"));
  EXPECT_THAT(server_.log(), HasSubstr(Path()));
  EXPECT_EQ(fs::file_size(Path()), 0u);  // left for the operator
}

TEST_F(StoreDamageTest, AKeylessPlanOverStoreMaxPlanBytesIsServedNotStoredAndCounted) {
  ASSERT_NO_FATAL_FAILURE(StartServer({"--store_max_plan_bytes=1000"}));
  v1::PlanResponse response;
  grpc::Status status = Plan(QuickRequest(1), &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_GT(response.plan().tables_size(), 0);
  EXPECT_TRUE(response.job_id().empty());
  ASSERT_TRUE(Plan(QuickRequest(2), &response).ok());
  EXPECT_TRUE(response.job_id().empty());
  EXPECT_EQ(MetricValue(Scrape(), "shardplan_store_oversized_plans_total"), 2);
  const std::string log = server_.log();
  EXPECT_THAT(log, HasSubstr("store_max_plan_bytes"));
  EXPECT_EQ(log.find("store_max_plan_bytes"), log.rfind("store_max_plan_bytes"));  // once
  // A keyed plan is a promise: stored whatever its size.
  v1::PlanResponse keyed;
  ASSERT_TRUE(Plan(KeyedRequest("big/plan", 3), &keyed).ok());
  EXPECT_FALSE(keyed.job_id().empty());
  EXPECT_EQ(SqliteQuery(server_.store(), "SELECT count(*) FROM plans WHERE job_key = ''"), "0");
}

TEST_F(StoreDamageTest, StoreMaxBytesPrunesTheOldestKeylessRecordsAndKeepsKeyedOnes) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  v1::PlanResponse keyed;
  ASSERT_TRUE(Plan(KeyedRequest("kept/plan"), &keyed).ok());
  std::vector<std::string> keyless;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    v1::PlanResponse response;
    ASSERT_TRUE(Plan(QuickRequest(seed), &response).ok());
    keyless.push_back(response.job_id());
  }
  Stop();
  // Room for the keyed plan and the three newest keyless ones.
  const std::string bound = SqliteQuery(
      server_.store(),
      "SELECT sum(record_bytes) FROM plans WHERE job_key <> '' OR rowid IN (SELECT rowid FROM "
      "plans WHERE job_key = '' ORDER BY finished_unix_ms DESC, rowid DESC LIMIT 3)");
  ASSERT_GT(std::stoll(bound), 0);

  ASSERT_NO_FATAL_FAILURE(StartServer({"--store_max_bytes=" + bound, "--store_retention_s=0"}));
  EXPECT_EQ(AwaitMetric("shardplan_store_size_pruned_records_total", 3), 3);
  EXPECT_EQ(AwaitMetric("shardplan_store_bytes", std::stod(bound)), std::stod(bound));
  for (int i = 0; i < 6; ++i) {
    v1::JobStatus job;
    grpc::Status status = CallGet(*stub_, keyless[i], &job);
    if (i < 3) {
      EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND) << keyless[i];
    } else {
      EXPECT_TRUE(status.ok()) << keyless[i] << ": " << status.error_message();
    }
  }
  v1::PlanResponse again;
  ASSERT_TRUE(Plan(KeyedRequest("kept/plan"), &again).ok());
  EXPECT_TRUE(again.from_store());
  EXPECT_EQ(again.job_id(), keyed.job_id());
}

}  // namespace
}  // namespace shardplan::integration
