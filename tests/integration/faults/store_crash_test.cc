// kill -9 of the server while clients write to its SQLite plan store: after each restart the
// file is sound, every keyed plan that was answered comes back unchanged from the store, and
// every job that SubmitPlan accepted is still there and finishes.
#include <signal.h>

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/integration/faults/store_fault_support.h"
#include "tests/integration/server/server_test_support.h"

namespace shardplan::integration {
namespace {

constexpr int kRounds = 3;
constexpr int kClients = 4;

// What the clients were told before the kill: only these must survive it.
struct Acknowledged {
  std::mutex mu;
  std::map<std::string, std::pair<v1::PlanRequest, v1::PlanResponse>> keyed;  // by job_key
  std::vector<std::string> jobs;                                              // SubmitPlan ids
  size_t size() {
    std::lock_guard lock(mu);
    return keyed.size() + jobs.size();
  }
};

// One client: alternates keyed Plan calls and SubmitPlan calls, each with a request of its
// own, until `stop`; records what the server acknowledged.
void Client(const std::shared_ptr<grpc::Channel>& channel, const std::string& name,
            const std::atomic<bool>& stop, Acknowledged* acknowledged) {
  auto stub = v1::PlannerService::NewStub(channel);
  for (uint64_t i = 0; !stop.load(); ++i) {
    const uint64_t seed = std::hash<std::string>()(name) % 100000 * 1000 + i;
    if (i % 2 == 0) {
      const v1::PlanRequest request = KeyedRequest(absl::StrCat(name, "/", i), seed);
      v1::PlanResponse response;
      if (CallPlan(*stub, request, &response).ok()) {
        std::lock_guard lock(acknowledged->mu);
        acknowledged->keyed[request.job_key()] = {request, response};
      }
    } else {
      v1::SubmitPlanResponse response;
      if (CallSubmit(*stub, QuickRequest(seed), &response).ok()) {
        std::lock_guard lock(acknowledged->mu);
        acknowledged->jobs.push_back(response.job_id());
      }
    }
  }
}

class StoreCrashTest : public ServerTest {};

TEST_F(StoreCrashTest, AcknowledgedPlansAndJobsSurviveKill9) {
  Acknowledged acknowledged;
  for (int round = 0; round < kRounds; ++round) {
    StartServer({"--workers=2"});
    // Clients write as fast as they can; the kill lands once each round added some records,
    // while the clients are still sending.
    const size_t before = acknowledged.size();
    std::atomic<bool> stop{false};
    std::vector<std::thread> clients;
    for (int c = 0; c < kClients; ++c) {
      clients.emplace_back(Client, server_.Channel(), absl::StrCat("r", round, "c", c),
                           std::cref(stop), &acknowledged);
    }
    // (The deadline only stops a hung server from hanging the test.)
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (acknowledged.size() < before + 40 + 20 * round &&
           std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    const bool reached = acknowledged.size() >= before + 40 + 20 * round;
    const bool killed = server_.Signal(SIGKILL).ok();
    stop.store(true);
    for (std::thread& client : clients) client.join();
    ASSERT_TRUE(killed);
    ASSERT_TRUE(server_.WaitForExit(std::chrono::seconds(60)).ok());
    ASSERT_TRUE(reached) << server_.log();

    EXPECT_EQ(SqliteIntegrity(server_.store()), "ok") << "round " << round;

    StartServer({"--workers=2"});
    std::lock_guard lock(acknowledged.mu);
    for (const auto& [key, call] : acknowledged.keyed) {
      v1::PlanResponse again;
      grpc::Status status = Plan(call.first, &again);
      ASSERT_TRUE(status.ok()) << key << ": " << status.error_message();
      EXPECT_TRUE(again.from_store()) << key;
      EXPECT_EQ(again.job_id(), call.second.job_id()) << key;
      EXPECT_EQ(Shards(again.plan()), Shards(call.second.plan())) << key;
    }
    for (const std::string& id : acknowledged.jobs) {
      v1::JobStatus found;
      grpc::Status status = CallGet(*stub_, id, &found);
      if (!status.ok()) {  // lost: no point waiting for it
        ADD_FAILURE() << "job " << id << " was accepted but is gone: " << status.error_message();
        continue;
      }
      const v1::JobStatus job = AwaitState(id, v1::SUCCEEDED);
      EXPECT_GT(job.result().plan().tables_size(), 0) << id;
    }
    ASSERT_TRUE(server_.Signal(SIGKILL).ok());
    ASSERT_TRUE(server_.WaitForExit(std::chrono::seconds(60)).ok());
  }
  std::lock_guard lock(acknowledged.mu);
  EXPECT_GE(acknowledged.keyed.size(), 30u);
  EXPECT_GE(acknowledged.jobs.size(), 30u);
}

}  // namespace
}  // namespace shardplan::integration
