// Start-up of the real binary: flags, config file, help, and refusals with a clear reason.
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/server/server_test_support.h"

namespace shardplan::integration {
namespace {

using ::testing::HasSubstr;

// Runs the binary with `args` to completion; its exit code and stdout.
std::pair<int, std::string> RunBinary(const std::string& args) {
  const std::string command = absl::StrCat(testing::ServerBinaryPath(), " ", args, " 2>/dev/null");
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof(buffer), pipe)) > 0;) out.append(buffer, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

class StartupTest : public ServerTest {};

TEST_F(StartupTest, HelpListsEveryFlagAndExitsZero) {
  auto [code, out] = RunBinary("--help");
  EXPECT_EQ(code, 0);
  for (const char* flag :
       {"--config", "--address", "--metrics_address", "--port_file", "--workers",
        "--max_concurrent_plans", "--max_rpc_threads", "--queue_capacity", "--cache_bytes",
        "--max_message_bytes", "--max_tables", "--max_devices", "--max_retained_jobs",
        "--default_algorithm", "--default_model", "--drain_timeout_s"}) {
    EXPECT_THAT(out, HasSubstr(flag));
  }
}

TEST_F(StartupTest, BadFlagsExitTwoWithTheReason) {
  testing::ServerProcess server;
  absl::Status started = server.Start({"--workers=0"}, std::chrono::seconds(10));
  EXPECT_FALSE(started.ok());
  EXPECT_THAT(std::string(started.message()), HasSubstr("code 2"));
  EXPECT_THAT(std::string(started.message()), HasSubstr("workers: must be in [1, 1024]"));
}

TEST_F(StartupTest, UnknownDefaultsAreRefused) {
  testing::ServerProcess algorithm;
  absl::Status started = algorithm.Start({"--default_algorithm=nope"}, std::chrono::seconds(10));
  EXPECT_FALSE(started.ok());
  EXPECT_THAT(std::string(started.message()), HasSubstr("default_algorithm: unknown algorithm"));
  testing::ServerProcess model;
  started = model.Start({"--default_model=nope"}, std::chrono::seconds(10));
  EXPECT_FALSE(started.ok());
  EXPECT_THAT(std::string(started.message()), HasSubstr("default_model"));
}

TEST_F(StartupTest, ABusyPortIsAnErrorNotASharedPort) {
  StartServer();
  testing::ServerProcess second;
  absl::Status started = second.Start({absl::StrCat("--address=127.0.0.1:", server_.grpc_port())},
                                      std::chrono::seconds(10));
  EXPECT_FALSE(started.ok());
  EXPECT_THAT(std::string(started.message()), HasSubstr("address: cannot listen"));
}

TEST_F(StartupTest, ConfigFileIsReadAndFlagsOverrideIt) {
  char path[] = "/tmp/shardplan_config_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << R"({"max_tables": 2, "default_algorithm": "size_greedy"})";
  StartServer({"--config", path, "--max_tables=4", "--metrics_address="});
  std::remove(path);
  EXPECT_EQ(server_.metrics_port(), 0);  // disabled by the flag

  v1::PlanRequest request;
  *request.mutable_task() = SmallTask(3, 2);
  v1::PlanResponse response;
  grpc::Status status = Plan(request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.plan().algorithm(), "size_greedy");  // from the file

  *request.mutable_task() = SmallTask(5, 2);
  EXPECT_EQ(Plan(request, &response).error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
}

}  // namespace
}  // namespace shardplan::integration
