// Retries and deadlines of PlannerClient where no server listens: the calls fail with
// UNAVAILABLE after exactly the configured attempts, or retry until their deadline when no
// count is set, and never outlive their deadline's budget; a call made before its server
// starts gets its answer once it does.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "client/shardplan_client.h"
#include "gtest/gtest.h"
#include "tests/integration/support/server_process.h"

namespace shardplan::testing {
namespace {

using ::shardplan::client::CallOptions;
using ::shardplan::client::ClientOptions;
using ::shardplan::client::PlannerClient;
using ::shardplan::client::RetryEvent;

// A loopback port nothing listens on: bound (so no one else gets it while we look) but never
// listened on, so connections are refused.
class ClosedPort {
 public:
  ClosedPort() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof(address);
    if (fd_ >= 0 && bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
        getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      port_ = ntohs(address.sin_port);
    }
  }
  ~ClosedPort() { Release(); }
  int port() const { return port_; }
  // Frees the port for a server to listen on.
  void Release() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
  int port_ = 0;
};

class ClientRetryTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_NE(port_.port(), 0); }

  std::unique_ptr<PlannerClient> Connect(int max_attempts) {
    ClientOptions options;
    options.max_attempts = max_attempts;
    options.initial_backoff = absl::Milliseconds(20);
    options.max_backoff = absl::Milliseconds(50);
    options.default_timeout = absl::Seconds(20);
    options.on_retry = [this](const RetryEvent& event) { events_.push_back(event); };
    auto client = PlannerClient::Connect(absl::StrCat("127.0.0.1:", port_.port()), options);
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? *std::move(client) : nullptr;
  }

  ClosedPort port_;
  std::vector<RetryEvent> events_;
};

TEST_F(ClientRetryTest, UnavailableAfterTheConfiguredAttempts) {
  std::unique_ptr<PlannerClient> client = Connect(/*max_attempts=*/3);
  ASSERT_NE(client, nullptr);
  auto algorithms = client->ListAlgorithms();
  EXPECT_EQ(algorithms.status().code(), absl::StatusCode::kUnavailable) << algorithms.status();
  ASSERT_EQ(events_.size(), 2u);  // 3 attempts: 2 retries
  for (size_t i = 0; i < events_.size(); ++i) {
    EXPECT_EQ(events_[i].method, "ListAlgorithms");
    EXPECT_EQ(events_[i].attempt, static_cast<int>(i) + 1);
    EXPECT_EQ(events_[i].status.code(), absl::StatusCode::kUnavailable);
    EXPECT_LE(events_[i].backoff, absl::Milliseconds(50) * 1.2);
  }
}

TEST_F(ClientRetryTest, OneAttemptMeansNoRetry) {
  std::unique_ptr<PlannerClient> client = Connect(/*max_attempts=*/1);
  ASSERT_NE(client, nullptr);
  EXPECT_EQ(client->Health().status().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(events_.empty());
}

TEST_F(ClientRetryTest, WatchRetriesLikeUnaryCalls) {
  std::unique_ptr<PlannerClient> client = Connect(/*max_attempts=*/4);
  ASSERT_NE(client, nullptr);
  auto status = client->WatchPlan("job", nullptr);
  EXPECT_EQ(status.status().code(), absl::StatusCode::kUnavailable) << status.status();
  ASSERT_EQ(events_.size(), 3u);
  EXPECT_EQ(events_.back().method, "WatchPlan");
}

TEST_F(ClientRetryTest, NoRetryWhoseBackoffOutlastsTheDeadline) {
  ClientOptions options;
  options.max_attempts = 10;
  options.initial_backoff = absl::Seconds(30);
  options.on_retry = [this](const RetryEvent& event) { events_.push_back(event); };
  auto client = PlannerClient::Connect(absl::StrCat("127.0.0.1:", port_.port()), options);
  ASSERT_TRUE(client.ok());
  CallOptions call;
  call.timeout = absl::Seconds(5);
  EXPECT_EQ((*client)->Health("", call).status().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(events_.empty());
}

TEST_F(ClientRetryTest, WithoutAnAttemptCountRetriesUntilTheDeadline) {
  std::unique_ptr<PlannerClient> client = Connect(/*max_attempts=*/0);
  ASSERT_NE(client, nullptr);
  CallOptions call;
  call.timeout = absl::Seconds(1);
  EXPECT_EQ(client->ListModels(call).status().code(), absl::StatusCode::kUnavailable);
  // 20 ms doubling to 50 ms for a second: many more retries than the old fixed count of 3.
  EXPECT_GT(events_.size(), 3u);
  for (const RetryEvent& event : events_) EXPECT_LE(event.backoff, absl::Milliseconds(60));
}

// The launch the client is for: a job asks before its server is up (here, until it has retried
// once), the server starts on the address it asked, and the same call gets its answer.
TEST_F(ClientRetryTest, ACallMadeBeforeTheServerStartsGetsItsAnswer) {
  absl::Mutex mutex;
  int retries = 0;
  ClientOptions options;  // the defaults a job launches with: no attempt count
  options.on_retry = [&](const RetryEvent&) {
    absl::MutexLock lock(&mutex);
    ++retries;
  };
  auto client = PlannerClient::Connect(absl::StrCat("127.0.0.1:", port_.port()), options);
  ASSERT_TRUE(client.ok()) << client.status();
  CallOptions call;
  call.timeout = absl::Seconds(50);
  absl::StatusOr<shardplan::v1::ListAlgorithmsResponse> answer;
  std::thread launch([&] { answer = (*client)->ListAlgorithms(call); });
  {
    absl::MutexLock lock(&mutex);
    mutex.Await(absl::Condition(+[](int* n) { return *n >= 1; }, &retries));
  }
  port_.Release();
  ServerProcess server;
  absl::Status started = server.Start({"--address", absl::StrCat("127.0.0.1:", port_.port())});
  launch.join();
  ASSERT_TRUE(started.ok()) << started;
  ASSERT_TRUE(answer.ok()) << answer.status() << "\n" << server.log();
  EXPECT_GT(answer->algorithms_size(), 0);
}

TEST_F(ClientRetryTest, EmptyTargetIsInvalid) {
  EXPECT_EQ(PlannerClient::Connect("").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace shardplan::testing
