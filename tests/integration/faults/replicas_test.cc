// Several replicas on one PostgreSQL plan store: plans and jobs made on one are seen by the
// other, a job belongs to the replica that accepted it (cancelled and resumed only there), one
// key yields one plan under a race, and a database that goes away and comes back costs only the
// keyed calls made while it is away.
#include <signal.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/faults/store_fault_support.h"
#include "tests/integration/server/server_test_support.h"
#include "tests/integration/support/postgres_server.h"

namespace shardplan::integration {
namespace {

using ::testing::HasSubstr;
using testing::PostgresServer;
using testing::ServerProcess;

// One shardplan-server on the shared database.
struct Replica {
  std::string id;
  ServerProcess server;
  std::unique_ptr<v1::PlannerService::Stub> stub;
};

class ReplicasTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<PostgresServer>> started = PostgresServer::Start();
    ASSERT_TRUE(started.ok()) << started.status();
    postgres_ = *std::move(started);
    absl::StatusOr<std::string> uri = postgres_->CreateDatabase("plans");
    ASSERT_TRUE(uri.ok()) << uri.status();
    uri_ = *uri;
  }

  // Starts (or restarts) `replica` on the shared store.
  void Start(Replica& replica, std::vector<std::string> args = {}) {
    args.insert(args.begin(), {"--store", uri_, "--replica_id", replica.id});
    absl::Status started = replica.server.Start(args);
    ASSERT_TRUE(started.ok()) << started;
    replica.stub = v1::PlannerService::NewStub(replica.server.Channel());
  }

  static void Kill(Replica& replica) {
    ASSERT_TRUE(replica.server.Signal(SIGKILL).ok());
    ASSERT_TRUE(replica.server.WaitForExit(std::chrono::seconds(60)).ok());
  }

  static std::string Submit(Replica& replica, const v1::PlanRequest& request) {
    v1::SubmitPlanResponse response;
    grpc::Status status = CallSubmit(*replica.stub, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.job_id();
  }

  static grpc::Status Cancel(Replica& replica, const std::string& id, v1::JobStatus* response) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + kRpcTimeout);
    return replica.stub->CancelPlan(&context, Job(id), response);
  }

  static double Recovered(const Replica& replica) {
    absl::StatusOr<std::string> metrics = HttpGet(replica.server.metrics_port(), "/metrics");
    EXPECT_TRUE(metrics.ok()) << metrics.status();
    return MetricValue(metrics.value_or(""), "shardplan_jobs_recovered_total{outcome=\"resumed\"}");
  }

  std::unique_ptr<PostgresServer> postgres_;
  std::string uri_;
  Replica a_{"replica-a"};
  Replica b_{"replica-b"};
};

TEST_F(ReplicasTest, AKeyedPlanMadeOnOneReplicaIsReturnedByTheOther) {
  Start(a_);
  Start(b_);
  v1::PlanResponse made;
  ASSERT_TRUE(CallPlan(*a_.stub, KeyedRequest("train/shared-1"), &made).ok());
  EXPECT_FALSE(made.from_store());
  v1::PlanResponse seen;
  grpc::Status status = CallPlan(*b_.stub, KeyedRequest("train/shared-1"), &seen);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(seen.from_store());
  EXPECT_EQ(seen.job_id(), made.job_id());
  EXPECT_EQ(Shards(seen.plan()), Shards(made.plan()));
}

TEST_F(ReplicasTest, JobsOfOneReplicaAreReadOnTheOtherAndCancelledOnlyOnTheirOwn) {
  Start(a_);
  Start(b_);
  // A finished job: B reads its plan.
  const std::string quick = Submit(a_, QuickRequest(3));
  const v1::JobStatus done = AwaitJobState(*a_.stub, quick, v1::SUCCEEDED);
  const v1::JobStatus read = AwaitJobState(*b_.stub, quick, v1::SUCCEEDED);
  EXPECT_EQ(Shards(read.result().plan()), Shards(done.result().plan()));

  // A running job: B shows it running on A, follows it, and refuses to cancel it.
  const std::string slow = Submit(a_, SlowRequest());
  AwaitJobState(*a_.stub, slow, v1::RUNNING);
  const v1::JobStatus running = AwaitJobState(*b_.stub, slow, v1::RUNNING);
  EXPECT_THAT(running.progress(), HasSubstr("replica-a"));
  Watcher watcher = OpenWatch(*b_.stub, slow);
  ASSERT_NE(watcher.stream, nullptr);
  EXPECT_EQ(watcher.first.state(), v1::RUNNING);

  v1::JobStatus refused;
  grpc::Status status = Cancel(b_, slow, &refused);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("another replica"));
  EXPECT_THAT(status.error_message(), HasSubstr("replica-a"));
  EXPECT_THAT(status.error_message(), HasSubstr("cancel it there"));

  v1::JobStatus cancelled;
  status = Cancel(a_, slow, &cancelled);
  ASSERT_TRUE(status.ok()) << status.error_message();
  // B's stream follows the job to its end.
  v1::JobStatus last = watcher.first;
  for (v1::JobStatus next; watcher.stream->Read(&next);) last = next;
  status = watcher.stream->Finish();
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(last.state(), v1::CANCELLED);
}

TEST_F(ReplicasTest, OneKeySentToBothAtOnceYieldsOnePlan) {
  Start(a_);
  Start(b_);
  for (int i = 0; i < 8; ++i) {
    const v1::PlanRequest request = KeyedRequest(absl::StrCat("race-", i), 100 + i);
    v1::PlanResponse from_a;
    v1::PlanResponse from_b;
    grpc::Status status_a;
    grpc::Status status_b;
    std::thread on_a([&] { status_a = CallPlan(*a_.stub, request, &from_a); });
    std::thread on_b([&] { status_b = CallPlan(*b_.stub, request, &from_b); });
    on_a.join();
    on_b.join();
    ASSERT_TRUE(status_a.ok()) << status_a.error_message();
    ASSERT_TRUE(status_b.ok()) << status_b.error_message();
    EXPECT_EQ(from_a.job_id(), from_b.job_id()) << i;
    EXPECT_EQ(Shards(from_a.plan()), Shards(from_b.plan())) << i;
    // One record holds the key.
    absl::StatusOr<std::vector<std::vector<std::string>>> rows = postgres_->Query(
        "plans", absl::StrCat("SELECT job_id FROM plans WHERE job_key = 'race-", i, "'"));
    ASSERT_TRUE(rows.ok()) << rows.status();
    ASSERT_EQ(rows->size(), 1u);
    EXPECT_EQ((*rows)[0][0], from_a.job_id());
  }
}

TEST_F(ReplicasTest, AKilledReplicaResumesItsOwnQueuedJobAndNoOtherDoes) {
  Start(a_, {"--workers=1"});
  Start(b_);
  const std::string slow = Submit(a_, SlowRequest());  // holds A's only worker
  AwaitJobState(*a_.stub, slow, v1::RUNNING);
  const std::string queued = Submit(a_, QuickRequest(11));
  Kill(a_);

  // B restarts while A is down: it resumes nothing of A's, and A's jobs stay as A left them.
  Kill(b_);
  Start(b_);
  EXPECT_EQ(Recovered(b_), 0);
  v1::JobStatus status;
  ASSERT_TRUE(CallGet(*b_.stub, queued, &status).ok());
  EXPECT_EQ(status.state(), v1::QUEUED);
  ASSERT_TRUE(CallGet(*b_.stub, slow, &status).ok());
  EXPECT_EQ(status.state(), v1::RUNNING);

  // A comes back under the same replica_id and resumes both.
  Start(a_, {"--workers=1"});
  EXPECT_EQ(Recovered(a_), 2);
  v1::JobStatus cancelled;
  grpc::Status cancel = Cancel(a_, slow, &cancelled);
  ASSERT_TRUE(cancel.ok()) << cancel.error_message();
  const v1::JobStatus done = AwaitJobState(*a_.stub, queued, v1::SUCCEEDED);
  EXPECT_GT(done.result().plan().tables_size(), 0);
  AwaitJobState(*b_.stub, queued, v1::SUCCEEDED);
  AwaitJobState(*b_.stub, slow, v1::CANCELLED);
  EXPECT_EQ(Recovered(b_), 0);
}

TEST_F(ReplicasTest, ADatabaseThatStopsCostsOnlyKeyedCallsUntilItIsBack) {
  Start(a_);
  v1::PlanResponse response;
  ASSERT_TRUE(CallPlan(*a_.stub, KeyedRequest("before-stop"), &response).ok());

  ASSERT_TRUE(postgres_->Stop().ok());
  EXPECT_EQ(testing::CheckHealth(a_.server.Channel(), "").value_or(-1), 1);  // SERVING
  grpc::Status status = CallPlan(*a_.stub, KeyedRequest("", 21), &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(response.job_id().empty());  // planned, not stored
  status = CallPlan(*a_.stub, KeyedRequest("while-stopped", 22), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(status.error_message(), HasSubstr("job_key: the plan store cannot be read"));
  EXPECT_THAT(status.error_message(), HasSubstr("plan store (postgresql"));
  v1::SubmitPlanResponse submitted;
  status = CallSubmit(*a_.stub, QuickRequest(23), &submitted);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(status.error_message(), HasSubstr("the job could not be recorded"));

  // Back again: the same server stores keyed plans without a restart.
  ASSERT_TRUE(postgres_->Restart().ok());
  status = CallPlan(*a_.stub, KeyedRequest("while-stopped", 22), &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_FALSE(response.from_store());
  status = CallPlan(*a_.stub, KeyedRequest("before-stop"), &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(response.from_store());
  const std::string id = Submit(a_, QuickRequest(23));
  AwaitJobState(*a_.stub, id, v1::SUCCEEDED);
}

}  // namespace
}  // namespace shardplan::integration
