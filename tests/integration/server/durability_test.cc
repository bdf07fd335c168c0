// The plan store end to end: job keys give a training job the same plan after newer models load
// and after restarts, Replan and DeletePlan change that on purpose, finished jobs stay readable
// after a restart, and queued or running jobs survive kill -9 (resumed, or failed with a reason).
#include <signal.h>

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "shardplan/v1/admin.grpc.pb.h"
#include "tests/integration/server/server_test_support.h"
#include "tests/integration/support/test_bundles.h"

namespace shardplan::integration {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing_bundles::FreshTempDir;
using testing_bundles::WriteTinyBundle;

class DurabilityTest : public ServerTest {
 protected:
  DurabilityTest() : models_(FreshTempDir("durability-models")) {}
  ~DurabilityTest() override { fs::remove_all(models_); }

  // Starts (or restarts: the same ServerProcess keeps its store file) the server on models_.
  void Start(std::vector<std::string> args = {}) {
    args.insert(args.begin(), {"--models_dir", models_, "--model_reload_interval_s=0"});
    StartServer(args);
    admin_ = v1::AdminService::NewStub(server_.Channel());
  }

  // Stops the server with `signal` (SIGTERM: graceful; SIGKILL: a crash) and waits for it.
  void Stop(int signal) {
    ASSERT_TRUE(server_.Signal(signal).ok());
    ASSERT_TRUE(server_.WaitForExit(std::chrono::seconds(60)).ok()) << server_.log();
  }

  // A quick request named `key`, planned under `model`.
  static v1::PlanRequest Keyed(const std::string& key, const std::string& model = "tiny") {
    v1::PlanRequest request = QuickRequest();
    request.set_model(model);
    request.set_job_key(key);
    return request;
  }

  v1::PlanResponse MustPlan(const v1::PlanRequest& request) {
    v1::PlanResponse response;
    grpc::Status status = Plan(request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  void Reload() {
    v1::ReloadModelsResponse response;
    grpc::Status status =
        admin_->ReloadModels(Context().get(), v1::ReloadModelsRequest(), &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }

  grpc::Status Delete(const std::string& job_id, const std::string& job_key) {
    v1::DeletePlanRequest request;
    request.set_job_id(job_id);
    request.set_job_key(job_key);
    v1::DeletePlanResponse response;
    return admin_->DeletePlan(Context().get(), request, &response);
  }

  const std::string models_;
  std::unique_ptr<v1::AdminService::Stub> admin_;
};

// The placement of every table: what a training job shards by.
std::string Shards(const v1::Plan& plan) {
  std::string out;
  for (const v1::TableSharding& table : plan.tables()) out += table.SerializeAsString();
  return out;
}

TEST_F(DurabilityTest, JobKeyKeepsItsPlanAcrossNewModelsAndRestarts) {
  ASSERT_TRUE(WriteTinyBundle(models_, "tiny", "1").ok());
  Start();
  const v1::PlanResponse first = MustPlan(Keyed("train/run-7"));
  EXPECT_EQ(first.plan().cost_model(), "tiny@1");
  EXPECT_FALSE(first.from_store());
  EXPECT_FALSE(first.job_id().empty());

  // A newer version loads: the key still answers with the plan of tiny@1.
  ASSERT_TRUE(WriteTinyBundle(models_, "tiny", "2", /*seed=*/2).ok());
  Reload();
  const v1::PlanResponse again = MustPlan(Keyed("train/run-7"));
  EXPECT_TRUE(again.from_store());
  EXPECT_EQ(again.job_id(), first.job_id());
  EXPECT_EQ(again.plan().cost_model(), "tiny@1");
  EXPECT_EQ(Shards(again.plan()), Shards(first.plan()));
  EXPECT_EQ(again.plan().cost_ms(), first.plan().cost_ms());
  // Without the key the same request gets today's latest model.
  v1::PlanRequest unkeyed = Keyed("");
  EXPECT_EQ(MustPlan(unkeyed).plan().cost_model(), "tiny@2");

  // After a graceful restart and after a crash, the key still brings back the tiny@1 plan.
  for (int signal : {SIGTERM, SIGKILL}) {
    Stop(signal);
    Start();
    const v1::PlanResponse resumed = MustPlan(Keyed("train/run-7"));
    EXPECT_TRUE(resumed.from_store()) << signal;
    EXPECT_EQ(resumed.plan().cost_model(), "tiny@1") << signal;
    EXPECT_EQ(Shards(resumed.plan()), Shards(first.plan())) << signal;
  }

  // Replan moves the key to a new plan on purpose; the old one stays readable by its job id.
  v1::PlanResponse replanned;
  grpc::Status status = stub_->Replan(Context().get(), Keyed("train/run-7"), &replanned);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(replanned.plan().cost_model(), "tiny@2");
  EXPECT_NE(replanned.job_id(), first.job_id());
  EXPECT_EQ(MustPlan(Keyed("train/run-7")).plan().cost_model(), "tiny@2");
  const v1::JobStatus old = GetJob(first.job_id());
  EXPECT_EQ(old.state(), v1::SUCCEEDED);
  EXPECT_EQ(old.result().plan().cost_model(), "tiny@1");
}

TEST_F(DurabilityTest, JobKeyRefusesADifferentRequestAndBadKeys) {
  ASSERT_TRUE(WriteTinyBundle(models_, "tiny", "1").ok());
  Start();
  MustPlan(Keyed("job-a"));
  // The same request with its tables in another order is the same request.
  v1::PlanRequest reordered = Keyed("job-a");
  std::swap(*reordered.mutable_task()->mutable_tables(0),
            *reordered.mutable_task()->mutable_tables(1));
  EXPECT_TRUE(MustPlan(reordered).from_store());

  v1::PlanRequest other = Keyed("job-a");
  other.set_seed(99);
  v1::PlanResponse response;
  grpc::Status status = Plan(other, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("job_key: \"job-a\" already names"));

  status = Plan(Keyed("no spaces allowed"), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("job_key:"));
  status = stub_->Replan(Context().get(), Keyed(""), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(DurabilityTest, WithoutAStoreJobKeysAreRefusedAndPlansStillServed) {
  ASSERT_TRUE(WriteTinyBundle(models_, "tiny", "1").ok());
  Start({"--store="});
  v1::PlanResponse response;
  grpc::Status status = Plan(Keyed("job-a"), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("no plan store"));
  EXPECT_TRUE(MustPlan(Keyed("")).job_id().empty());
}

TEST_F(DurabilityTest, FinishedJobsAreReadableAfterARestart) {
  Start();
  const std::string id = Submit(QuickRequest());
  const v1::JobStatus done = AwaitState(id, v1::SUCCEEDED);
  const v1::PlanResponse planned = MustPlan(QuickRequest(/*seed=*/5));
  Stop(SIGTERM);
  Start();
  const v1::JobStatus stored = GetJob(id);
  EXPECT_EQ(stored.state(), v1::SUCCEEDED);
  EXPECT_EQ(Shards(stored.result().plan()), Shards(done.result().plan()));
  EXPECT_EQ(GetJob(planned.job_id()).state(), v1::SUCCEEDED);
  // The restarted server's cache is empty; the store still answers the same request.
  const v1::PlanResponse from_store = MustPlan(QuickRequest(/*seed=*/5));
  EXPECT_TRUE(from_store.from_store());
  EXPECT_EQ(Shards(from_store.plan()), Shards(planned.plan()));
}

TEST_F(DurabilityTest, RetentionDeletesFinishedKeylessRecordsAndKeepsKeyedPlans) {
  const std::vector<std::string> args = {"--store_retention_s=1", "--store_prune_interval_s=0.1"};
  Start(args);
  const std::string job = Submit(QuickRequest());
  AwaitState(job, v1::SUCCEEDED);
  const v1::PlanResponse keyless = MustPlan(QuickRequest(/*seed=*/5));
  v1::PlanRequest keyed_request = QuickRequest(/*seed=*/6);
  keyed_request.set_job_key("train/kept");
  const v1::PlanResponse keyed = MustPlan(keyed_request);
  // A second after they finished, the job's and the keyless plan's records go; the keyed stays.
  EXPECT_EQ(AwaitMetric("shardplan_store_pruned_records_total", 2), 2) << server_.log();

  Stop(SIGTERM);  // the restarted server knows only what the store kept
  Start(args);
  v1::JobStatus status;
  grpc::Status rpc = stub_->GetPlan(Context().get(), Job(job), &status);
  EXPECT_EQ(rpc.error_code(), grpc::StatusCode::NOT_FOUND) << rpc.error_message();
  rpc = stub_->GetPlan(Context().get(), Job(keyless.job_id()), &status);
  EXPECT_EQ(rpc.error_code(), grpc::StatusCode::NOT_FOUND) << rpc.error_message();
  EXPECT_FALSE(MustPlan(QuickRequest(/*seed=*/5)).from_store());  // planned afresh
  const v1::PlanResponse kept = MustPlan(keyed_request);
  EXPECT_TRUE(kept.from_store());
  EXPECT_EQ(kept.job_id(), keyed.job_id());
  EXPECT_EQ(Shards(kept.plan()), Shards(keyed.plan()));
}

TEST_F(DurabilityTest, QueuedAndRunningJobsSurviveKill9) {
  ASSERT_TRUE(WriteTinyBundle(models_, "tiny", "1").ok());
  Start({"--workers=1"});
  const std::string slow = Submit(SlowRequest());  // holds the only worker
  AwaitState(slow, v1::RUNNING);
  std::vector<std::string> queued;
  for (int seed = 0; seed < 3; ++seed) {
    v1::PlanRequest request = QuickRequest(seed);
    request.set_model("tiny");
    queued.push_back(Submit(request));
  }
  v1::PlanRequest doomed = QuickRequest(7);
  doomed.set_model("tiny@1");
  const std::string unresumable = Submit(doomed);
  Stop(SIGKILL);

  // tiny@1 is gone when the server comes back. The four jobs were resolved to it when they were
  // submitted ("tiny" meant tiny@1 then) and resume only on that version, so they fail, saying
  // why, rather than silently planning on tiny@2. The slow job (built-in model) resumes.
  ASSERT_TRUE(WriteTinyBundle(models_, "tiny", "2", /*seed=*/2).ok());
  fs::remove_all(fs::path(models_) / "tiny" / "1");
  Start({"--workers=1"});
  EXPECT_EQ(GetJob(slow).state(), v1::RUNNING);  // resumed first, as it was submitted first
  v1::JobStatus cancelled;
  grpc::Status status = stub_->CancelPlan(Context().get(), Job(slow), &cancelled);
  ASSERT_TRUE(status.ok()) << status.error_message();
  AwaitState(slow, v1::CANCELLED);
  for (const std::string& id : queued) {
    const v1::JobStatus job = GetJob(id);
    EXPECT_EQ(job.state(), v1::FAILED) << id;
    EXPECT_THAT(job.error_message(), HasSubstr("could not resume")) << id;
  }
  const v1::JobStatus failed = GetJob(unresumable);
  EXPECT_EQ(failed.state(), v1::FAILED);
  EXPECT_THAT(failed.error_message(), HasSubstr("no version \"1\""));
  EXPECT_EQ(MetricValue(Scrape(), "shardplan_jobs_recovered_total{outcome=\"resumed\"}"), 1);
  EXPECT_EQ(MetricValue(Scrape(), "shardplan_jobs_recovered_total{outcome=\"failed\"}"), 4);
}

TEST_F(DurabilityTest, ResumedJobsFinishWithTheirPlans) {
  Start({"--workers=1"});
  const std::string slow = Submit(SlowRequest());
  AwaitState(slow, v1::RUNNING);
  std::vector<std::string> queued;
  for (int seed = 0; seed < 3; ++seed) queued.push_back(Submit(QuickRequest(seed)));
  Stop(SIGKILL);
  Start({"--workers=1"});
  v1::JobStatus cancelled;
  grpc::Status status = stub_->CancelPlan(Context().get(), Job(slow), &cancelled);
  ASSERT_TRUE(status.ok()) << status.error_message();
  for (const std::string& id : queued) {
    const v1::JobStatus job = AwaitState(id, v1::SUCCEEDED);
    EXPECT_GT(job.result().plan().tables_size(), 0) << id;
  }
  EXPECT_EQ(MetricValue(Scrape(), "shardplan_jobs_recovered_total{outcome=\"resumed\"}"), 4);
  // Cancelled by a client, it stays cancelled across the next restart.
  AwaitState(slow, v1::CANCELLED);
  Stop(SIGTERM);
  Start({"--workers=1"});
  EXPECT_EQ(GetJob(slow).state(), v1::CANCELLED);
}

TEST_F(DurabilityTest, SubmitWithAJobKeyIsIdempotent) {
  Start();
  v1::PlanRequest request = QuickRequest();
  request.set_job_key("nightly-42");
  const std::string id = Submit(request);
  EXPECT_EQ(Submit(request), id);
  AwaitState(id, v1::SUCCEEDED);
  EXPECT_EQ(GetJob(id).job_key(), "nightly-42");
  // A synchronous Plan with the key now answers with the job's plan.
  const v1::PlanResponse response = MustPlan(request);
  EXPECT_TRUE(response.from_store());
  EXPECT_EQ(response.job_id(), id);
}

TEST_F(DurabilityTest, DeletePlanForgetsAKeyAndRefusesActiveJobs) {
  Start({"--workers=1"});
  v1::PlanRequest request = QuickRequest();
  request.set_job_key("to-delete");
  const v1::PlanResponse planned = MustPlan(request);
  grpc::Status status = Delete("", "to-delete");
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(Delete(planned.job_id(), "").error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_FALSE(MustPlan(request).from_store());  // planned (or cached) anew under the key

  const std::string slow = Submit(SlowRequest());
  AwaitState(slow, v1::RUNNING);
  status = Delete(slow, "");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("cancel it"));
  EXPECT_EQ(Delete("a", "b").error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  v1::JobStatus cancelled;
  ASSERT_TRUE(stub_->CancelPlan(Context().get(), Job(slow), &cancelled).ok());
}

TEST_F(DurabilityTest, ASecondServerCannotShareAnSqliteStore) {
  Start();
  testing::ServerProcess second;
  absl::Status started = second.Start({"--store", server_.store()});
  EXPECT_FALSE(started.ok());
  EXPECT_THAT(second.log(), HasSubstr("another shardplan-server uses this store"));
}

}  // namespace
}  // namespace shardplan::integration
