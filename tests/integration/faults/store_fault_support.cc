#include "tests/integration/faults/store_fault_support.h"

#include <stdio.h>

#include <chrono>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "tests/integration/server/server_test_support.h"

namespace shardplan::integration {
namespace {

std::unique_ptr<grpc::ClientContext> NewContext() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + kRpcTimeout);
  return context;
}

// Single-quoted for /bin/sh.
std::string ShellQuote(const std::string& text) {
  return absl::StrCat("'", absl::StrReplaceAll(text, {{"'", "'\\''"}}), "'");
}

}  // namespace

v1::PlanRequest KeyedRequest(const std::string& key, uint64_t seed) {
  v1::PlanRequest request = QuickRequest(seed);
  request.set_job_key(key);
  return request;
}

std::string Shards(const v1::Plan& plan) {
  std::string out;
  for (const v1::TableSharding& table : plan.tables()) out += table.SerializeAsString();
  return out;
}

grpc::Status CallPlan(v1::PlannerService::Stub& stub, const v1::PlanRequest& request,
                      v1::PlanResponse* response) {
  return stub.Plan(NewContext().get(), request, response);
}

grpc::Status CallSubmit(v1::PlannerService::Stub& stub, const v1::PlanRequest& request,
                        v1::SubmitPlanResponse* response) {
  return stub.SubmitPlan(NewContext().get(), request, response);
}

grpc::Status CallGet(v1::PlannerService::Stub& stub, const std::string& job_id,
                     v1::JobStatus* response) {
  return stub.GetPlan(NewContext().get(), Job(job_id), response);
}

v1::JobStatus AwaitJobState(v1::PlannerService::Stub& stub, const std::string& id,
                            v1::JobState state) {
  const auto deadline = std::chrono::steady_clock::now() + kRpcTimeout;
  v1::JobStatus status;
  grpc::Status rpc = CallGet(stub, id, &status);
  while ((!rpc.ok() || status.state() != state) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    rpc = CallGet(stub, id, &status);
  }
  EXPECT_TRUE(rpc.ok()) << id << ": " << rpc.error_message();
  EXPECT_EQ(status.state(), state) << id << ": " << status.DebugString();
  return status;
}

std::string SqliteQuery(const std::string& store, const std::string& sql) {
  const std::string path = store.substr(store.find(':') + 1);
  const std::string command =
      absl::StrCat("sqlite3 ", ShellQuote(path), " ", ShellQuote(sql), " 2>&1");
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "popen failed";
  std::string out;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof(buffer), pipe)) > 0;) out.append(buffer, n);
  const int status = pclose(pipe);
  if (status != 0) absl::StrAppend(&out, " (sqlite3 exit status ", status, ")");
  return std::string(absl::StripAsciiWhitespace(out));
}

std::string SqliteIntegrity(const std::string& store) {
  return SqliteQuery(store, "PRAGMA integrity_check");
}

}  // namespace shardplan::integration
