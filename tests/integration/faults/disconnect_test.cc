// Clients that go away in the middle of a WatchPlan stream: many streams cancelled by the client
// (ClientContext::TryCancel) and `shardplan watch` processes killed with SIGKILL. Afterwards no
// handler thread is left behind (the in-flight gauge is back to zero and, with a small
// max_rpc_threads, as many streams as the cap allows open again), the watched jobs end as they
// would have, and the server answers new calls. (jobs_test.cc covers one cancelled stream.)
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/server/server_test_support.h"

#ifndef SHARDPLAN_CLI_BINARY
#error "SHARDPLAN_CLI_BINARY must be defined by the build (path of the shardplan CLI)"
#endif

namespace shardplan::integration {
namespace {

using ::testing::AnyOf;

constexpr char kWatchersInFlight[] = R"(shardplan_rpcs_in_flight{method="WatchPlan"})";
// gRPC's handler threads: one stays polling, the rest serve calls (limits_test.cc).
constexpr int kMaxRpcThreads = 6;
constexpr int kHandlerThreads = kMaxRpcThreads - 1;
// The most streams the server lets open: every handler thread but one (max_streams).
constexpr int kMaxStreams = kHandlerThreads - 1;

// A NeuroShard search that stops itself after `ms` with the best plan so far (an anytime result):
// a job that is running for a while on any machine and then SUCCEEDS without help.
v1::PlanRequest BoundedNeuroShardRequest(int64_t ms) {
  v1::PlanRequest request;
  *request.mutable_task() = SmallTask(120, 8);
  request.mutable_task()->set_max_planning_time_ms(ms);
  request.set_algorithm("neuroshard");
  (*request.mutable_parameters())["cost_cache"] = "false";
  (*request.mutable_parameters())["grid_steps"] = "101";
  (*request.mutable_parameters())["max_steps"] = "64";
  return request;
}

// Starts `shardplan --server TARGET watch ID` with its output discarded; its pid.
pid_t SpawnCliWatch(const std::string& target, const std::string& id) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<std::string> args = {SHARDPLAN_CLI_BINARY, "--server", target, "watch", id};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int spawned =
      posix_spawn(&pid, SHARDPLAN_CLI_BINARY, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(spawned, 0) << "cannot start " << SHARDPLAN_CLI_BINARY;
  return spawned == 0 ? pid : -1;
}

class DisconnectTest : public ServerTest {
 protected:
  // Reads the stream to its end; its final status.
  static grpc::Status Drain(Watcher& watcher) {
    v1::JobStatus status;
    while (watcher.stream->Read(&status)) {
    }
    return watcher.stream->Finish();
  }
};

TEST_F(DisconnectTest, WatchersThatVanishMidStreamLeaveNoHandlerBehind) {
  StartServer({"--workers=2", "--max_concurrent_plans=1",
               "--max_rpc_threads=" + std::to_string(kMaxRpcThreads),
               "--max_streams=" + std::to_string(kMaxStreams), "--max_streams_per_client=0"});
  // Two watched jobs: one ends by itself, one runs until it is cancelled at the end.
  const std::string bounded = Submit(BoundedNeuroShardRequest(/*ms=*/8000));
  const std::string endless = Submit(SlowRequest());
  AwaitState(endless, v1::RUNNING);

  // Rounds of streams on both jobs, all cancelled by their client mid-stream.
  for (int round = 0; round < 10; ++round) {
    std::vector<Watcher> watchers;
    for (int w = 0; w < kMaxStreams; ++w) {
      watchers.push_back(OpenWatch(*stub_, w % 2 == 0 ? endless : bounded));
      ASSERT_NE(watchers.back().stream, nullptr) << "round " << round << ", watcher " << w;
    }
    for (Watcher& watcher : watchers) watcher.context->TryCancel();
    for (Watcher& watcher : watchers) {
      // CANCELLED, or OK when the bounded job ended before the cancel arrived.
      EXPECT_THAT(Drain(watcher).error_code(),
                  AnyOf(grpc::StatusCode::CANCELLED, grpc::StatusCode::OK));
    }
  }
  EXPECT_EQ(AwaitMetric(kWatchersInFlight, 0), 0);

  // Client processes killed while their streams are open: the server sees the connections drop.
  std::vector<pid_t> processes;
  for (int p = 0; p < 3; ++p) processes.push_back(SpawnCliWatch(server_.target(), endless));
  ASSERT_EQ(AwaitMetric(kWatchersInFlight, 3), 3) << "the CLI watchers did not connect";
  for (pid_t pid : processes) {
    ASSERT_GT(pid, 0);
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    int wait_status = 0;
    ASSERT_EQ(waitpid(pid, &wait_status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGKILL);
  }
  EXPECT_EQ(AwaitMetric(kWatchersInFlight, 0), 0);

  // The jobs went on regardless: the bounded one succeeds, the endless one still runs.
  const v1::JobStatus done = AwaitState(bounded, v1::SUCCEEDED);
  EXPECT_EQ(done.result().plan().tables_size(), 120);
  EXPECT_EQ(GetJob(endless).state(), v1::RUNNING);

  // Every stream slot is free again: as many streams as max_streams allows open at once.
  std::vector<Watcher> full;
  for (int w = 0; w < kMaxStreams; ++w) {
    full.push_back(OpenWatch(*stub_, endless));
    ASSERT_NE(full.back().stream, nullptr) << "only " << w << " streams opened";
  }
  full[0].context->TryCancel();
  EXPECT_EQ(Drain(full[0]).error_code(), grpc::StatusCode::CANCELLED);
  full.erase(full.begin());

  // New calls succeed (retried while the freed thread returns to gRPC's pool).
  v1::JobStatus cancelled;
  grpc::Status status;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  do {
    status = stub_->CancelPlan(Context().get(), Job(endless), &cancelled);
  } while (status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
           std::chrono::steady_clock::now() < give_up);
  ASSERT_TRUE(status.ok()) << status.error_message();
  for (Watcher& watcher : full) EXPECT_TRUE(Drain(watcher).ok());
  EXPECT_EQ(AwaitState(endless, v1::CANCELLED).state(), v1::CANCELLED);
  absl::StatusOr<int> health = testing::CheckHealth(server_.Channel(), "");
  ASSERT_TRUE(health.ok()) << health.status();
  EXPECT_EQ(*health, 1);
  v1::PlanResponse response;
  grpc::Status planned = Plan(QuickRequest(), &response);
  EXPECT_TRUE(planned.ok()) << planned.error_message();
}

}  // namespace
}  // namespace shardplan::integration
