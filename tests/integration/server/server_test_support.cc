#include "tests/integration/server/server_test_support.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tests/integration/support/test_bundles.h"

namespace shardplan::integration {

v1::Task SmallTask(int num_tables, int num_devices) {
  v1::Task task;
  for (int i = 0; i < num_tables; ++i) {
    v1::Table* table = task.add_tables();
    table->set_name(absl::StrFormat("t%02d", i));
    table->set_rows(1000 * (i + 1));
    table->set_dim(8 * (1 + i % 4));
    table->set_pooling_factor(1.0 + i);
  }
  task.mutable_topology()->set_num_devices(num_devices);
  task.mutable_topology()->set_device_memory_gib(16);
  return task;
}

v1::PlanRequest QuickRequest(uint64_t seed) {
  v1::PlanRequest request;
  *request.mutable_task() = SmallTask(6, 2);
  request.set_seed(seed);
  return request;
}

v1::PlanRequest SlowRequest() {
  v1::PlanRequest request;
  *request.mutable_task() = SmallTask(14, 4);
  request.set_algorithm("exhaustive");
  (*request.mutable_parameters())["max_placements"] = "1000000000";
  return request;
}

v1::JobRequest Job(const std::string& id) {
  v1::JobRequest request;
  request.set_job_id(id);
  return request;
}

absl::StatusOr<std::string> HttpGet(int port, const std::string& path) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return absl::InternalError("socket");
  timeval timeout = {10, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return absl::UnavailableError(absl::StrCat("cannot connect to port ", port));
  }
  // HTTP/1.0: the server closes the connection after the response, which ends our read.
  const std::string request = absl::StrCat("GET ", path, " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
  if (send(fd, request.data(), request.size(), 0) != static_cast<ssize_t>(request.size())) {
    close(fd);
    return absl::UnavailableError("send failed");
  }
  std::string response;
  char buffer[8192];
  for (ssize_t n; (n = recv(fd, buffer, sizeof(buffer), 0)) > 0;) response.append(buffer, n);
  close(fd);
  const size_t body = response.find("\r\n\r\n");
  if (response.rfind("HTTP/1.", 0) != 0 || body == std::string::npos) {
    return absl::InternalError(absl::StrCat("malformed HTTP response: ", response.substr(0, 200)));
  }
  if (response.find(" 200 ") > response.find("\r\n")) {
    return absl::InternalError(
        absl::StrCat("HTTP error: ", response.substr(0, response.find("\r\n"))));
  }
  return response.substr(body + 4);
}

double MetricValue(const std::string& metrics, const std::string& series) {
  std::istringstream lines(metrics);
  for (std::string line; std::getline(lines, line);) {
    if (line.size() > series.size() && line.compare(0, series.size(), series) == 0 &&
        line[series.size()] == ' ') {
      return std::strtod(line.c_str() + series.size() + 1, nullptr);
    }
  }
  return 0.0;
}

Watcher OpenWatch(v1::PlannerService::Stub& stub, const std::string& id) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    Watcher watcher{std::make_unique<grpc::ClientContext>(), nullptr, {}};
    watcher.context->set_deadline(std::chrono::system_clock::now() + kRpcTimeout);
    auto stream = stub.WatchPlan(watcher.context.get(), Job(id));
    if (stream->Read(&watcher.first)) {
      watcher.stream = std::move(stream);
      return watcher;
    }
    grpc::Status refused = stream->Finish();
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
        << refused.error_message();
    if (refused.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return {};
}

void ServerTest::StartServer(const std::vector<std::string>& args) {
  absl::Status started = server_.Start(args);
  ASSERT_TRUE(started.ok()) << started;
  stub_ = v1::PlannerService::NewStub(server_.Channel());
}

std::unique_ptr<grpc::ClientContext> ServerTest::Context(std::chrono::milliseconds timeout) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + timeout);
  return context;
}

grpc::Status ServerTest::Plan(const v1::PlanRequest& request, v1::PlanResponse* response) {
  return stub_->Plan(Context().get(), request, response);
}

v1::JobStatus ServerTest::GetJob(const std::string& id) {
  v1::JobStatus status;
  grpc::Status rpc = stub_->GetPlan(Context().get(), Job(id), &status);
  EXPECT_TRUE(rpc.ok()) << rpc.error_message();
  return status;
}

v1::JobStatus ServerTest::AwaitState(const std::string& id, v1::JobState state) {
  const auto deadline = std::chrono::steady_clock::now() + kRpcTimeout;
  v1::JobStatus status = GetJob(id);
  while (status.state() != state && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    status = GetJob(id);
  }
  EXPECT_EQ(status.state(), state) << status.DebugString();
  return status;
}

std::string ServerTest::Submit(const v1::PlanRequest& request) {
  v1::SubmitPlanResponse response;
  grpc::Status rpc = stub_->SubmitPlan(Context().get(), request, &response);
  EXPECT_TRUE(rpc.ok()) << rpc.error_message();
  return response.job_id();
}

std::string ServerTest::Scrape() {
  absl::StatusOr<std::string> metrics = HttpGet(server_.metrics_port(), "/metrics");
  EXPECT_TRUE(metrics.ok()) << metrics.status();
  return metrics.value_or("");
}

double ServerTest::AwaitMetric(const std::string& series, double value) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  double seen = MetricValue(Scrape(), series);
  while (seen != value && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    seen = MetricValue(Scrape(), series);
  }
  return seen;
}

ModelsServerTest::ModelsServerTest() : root_(testing_bundles::FreshTempDir("server-models")) {}

ModelsServerTest::~ModelsServerTest() { std::filesystem::remove_all(root_); }

void ModelsServerTest::Start(std::vector<std::string> args) {
  args.insert(args.begin(), {"--models_dir", root_, "--model_reload_interval_s=0"});
  StartServer(args);
  admin_ = v1::AdminService::NewStub(server_.Channel());
}

v1::ReloadModelsResponse ModelsServerTest::Reload() {
  v1::ReloadModelsResponse response;
  grpc::Status status = admin_->ReloadModels(Context().get(), v1::ReloadModelsRequest(), &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return response;
}

std::vector<std::string> ModelsServerTest::ListedIds() {
  v1::ListModelsResponse response;
  grpc::Status status = stub_->ListModels(Context().get(), v1::ListModelsRequest(), &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  std::vector<std::string> ids;
  for (const v1::ModelInfo& model : response.models()) {
    ids.push_back(absl::StrCat(model.name(), "@", model.version()));
  }
  return ids;
}

}  // namespace shardplan::integration
