#include "tests/integration/support/server_process.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "nlohmann/json.hpp"
#include "tests/integration/support/files.h"
#include "tests/integration/support/spawn.h"

#ifndef SHARDPLAN_SERVER_BINARY
#error "SHARDPLAN_SERVER_BINARY must be defined by the build (path of shardplan-server)"
#endif

namespace shardplan::testing {
namespace {

using Clock = std::chrono::steady_clock;

// Protobuf wire format by hand, for the two tiny health messages: field 1, length-delimited
// (HealthCheckRequest.service) and field 1, varint (HealthCheckResponse.status).
std::string EncodeHealthRequest(const std::string& service) {
  if (service.empty()) return "";
  std::string out = "\x0a";
  for (size_t n = service.size();; n >>= 7) {
    if (n < 0x80) {
      out.push_back(static_cast<char>(n));
      break;
    }
    out.push_back(static_cast<char>((n & 0x7f) | 0x80));
  }
  return out + service;
}

absl::StatusOr<int> DecodeHealthResponse(const std::string& bytes) {
  if (bytes.empty()) return 0;  // proto3 default: UNKNOWN
  if (static_cast<unsigned char>(bytes[0]) != 0x08) {
    return absl::InternalError("unexpected HealthCheckResponse encoding");
  }
  int value = 0;
  for (size_t i = 1, shift = 0; i < bytes.size() && shift < 28; ++i, shift += 7) {
    value |= (bytes[i] & 0x7f) << shift;
    if ((bytes[i] & 0x80) == 0) return value;
  }
  return absl::InternalError("truncated HealthCheckResponse");
}

}  // namespace

std::string ServerBinaryPath() {
  if (const char* env = std::getenv("SHARDPLAN_SERVER_BINARY"); env != nullptr && *env != '\0') {
    return env;
  }
  return SHARDPLAN_SERVER_BINARY;
}

absl::StatusOr<std::string> CallUnaryBytes(const std::shared_ptr<grpc::Channel>& channel,
                                           const std::string& method, const std::string& request,
                                           std::chrono::milliseconds timeout) {
  grpc::CompletionQueue cq;
  grpc::ByteBuffer response;
  grpc::Status status;
  {
    grpc::GenericStub stub(channel);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + timeout);
    grpc::Slice slice(request);
    grpc::ByteBuffer request_buffer(&slice, 1);
    auto call = stub.PrepareUnaryCall(&context, method, request_buffer, &cq);
    call->StartCall();
    call->Finish(&response, &status, reinterpret_cast<void*>(1));
    void* tag = nullptr;
    bool ok = false;
    cq.Next(&tag, &ok);
  }
  cq.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (cq.Next(&tag, &ok)) {
  }
  if (!status.ok()) {
    return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
  }
  std::vector<grpc::Slice> slices;
  if (!response.Dump(&slices).ok()) return absl::InternalError("unreadable response");
  std::string bytes;
  for (const grpc::Slice& s : slices) {
    bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  return bytes;
}

absl::StatusOr<int> CheckHealth(const std::shared_ptr<grpc::Channel>& channel,
                                const std::string& service, std::chrono::milliseconds timeout) {
  absl::StatusOr<std::string> response = CallUnaryBytes(channel, "/grpc.health.v1.Health/Check",
                                                        EncodeHealthRequest(service), timeout);
  if (!response.ok()) return response.status();
  return DecodeHealthResponse(*response);
}

ServerProcess::ServerProcess() = default;

ServerProcess::~ServerProcess() {
  KillAndReap();
  if (!temp_dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(temp_dir_, ignored);
  }
}

std::string ServerProcess::target() const { return absl::StrCat("127.0.0.1:", grpc_port_); }

std::shared_ptr<grpc::Channel> ServerProcess::Channel() const {
  return grpc::CreateChannel(target(),
                             credentials_ ? credentials_ : grpc::InsecureChannelCredentials());
}

std::string ServerProcess::store() const { return "sqlite:" + temp_dir_ + "/plans.db"; }

std::shared_ptr<grpc::Channel> ServerProcess::HealthChannel() const {
  return grpc::CreateChannel(absl::StrCat("127.0.0.1:", health_port_),
                             grpc::InsecureChannelCredentials());
}

std::string ServerProcess::log() const { return log_file_.empty() ? "" : ReadFile(log_file_); }

absl::Status ServerProcess::Start(const std::vector<std::string>& extra_args,
                                  std::chrono::milliseconds timeout) {
  if (running()) return absl::FailedPreconditionError("the server is already running");
  if (temp_dir_.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/shardplan-server-XXXXXX");
    if (mkdtemp(pattern.data()) == nullptr) return absl::InternalError(ErrnoText("mkdtemp"));
    temp_dir_ = pattern;
    port_file_ = temp_dir_ + "/ports.json";
    log_file_ = temp_dir_ + "/server.log";
  }
  std::error_code ignored;
  std::filesystem::remove(port_file_, ignored);
  grpc_port_ = metrics_port_ = health_port_ = 0;

  const std::string binary = ServerBinaryPath();
  std::vector<std::string> args = {binary,        "--address",   "127.0.0.1:0", "--metrics_address",
                                   "127.0.0.1:0", "--port_file", port_file_,
                                   "--store",     store()};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  SpawnOptions options;
  options.log_file = log_file_;
  options.truncate_log = true;
  options.switch_user = run_as_uid_ != static_cast<uid_t>(-1) && getuid() == 0;
  options.uid = run_as_uid_;
  options.gid = run_as_gid_;
  options.file_size_limit = file_size_limit_;
  absl::StatusOr<pid_t> pid = SpawnChild(args, options);
  if (!pid.ok()) return pid.status();
  pid_ = *pid;

  absl::Status serving = WaitUntilServing(Clock::now() + timeout);
  if (!serving.ok()) {
    KillAndReap();
    return absl::Status(serving.code(),
                        absl::StrCat(serving.message(), "\ncommand: ", absl::StrJoin(args, " "),
                                     "\n--- server log ---\n", log(), "--- end of log ---"));
  }
  return absl::OkStatus();
}

absl::Status ServerProcess::WaitUntilServing(Clock::time_point deadline) {
  std::shared_ptr<grpc::Channel> channel;
  absl::Status last = absl::DeadlineExceededError("the server wrote no port file");
  while (Clock::now() < deadline) {
    int wait_status = 0;
    if (waitpid(pid_, &wait_status, WNOHANG) == pid_) {
      pid_ = -1;
      return absl::InternalError(
          absl::StrCat("the server exited during start-up with ",
                       WIFEXITED(wait_status) ? absl::StrCat("code ", WEXITSTATUS(wait_status))
                                              : absl::StrCat("signal ", WTERMSIG(wait_status))));
    }
    if (grpc_port_ == 0 && std::filesystem::exists(port_file_)) {
      // The server renames a complete file into place, so a file that exists parses.
      nlohmann::json ports = nlohmann::json::parse(ReadFile(port_file_), nullptr, false);
      if (ports.is_discarded() || !ports.contains("grpc_port") ||
          !ports["grpc_port"].is_number_integer()) {
        return absl::InternalError(absl::StrCat("malformed port file: ", ReadFile(port_file_)));
      }
      grpc_port_ = ports["grpc_port"].get<int>();
      metrics_port_ = ports.value("metrics_port", 0);
      health_port_ = ports.value("health_port", 0);
      channel = Channel();
      last = absl::DeadlineExceededError("the server did not answer the health check");
    }
    if (channel != nullptr) {
      absl::StatusOr<int> health = CheckHealth(channel, "", std::chrono::milliseconds(500));
      if (health.ok() && *health == 1) return absl::OkStatus();
      last = health.ok() ? absl::DeadlineExceededError(
                               absl::StrCat("health status stayed ", *health, ", not SERVING"))
                         : absl::DeadlineExceededError(
                               absl::StrCat("health check failed: ", health.status().ToString()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return absl::DeadlineExceededError(
      absl::StrCat("timed out starting the server: ", last.message()));
}

absl::Status ServerProcess::Signal(int signal) {
  if (!running()) return absl::FailedPreconditionError("the server is not running");
  if (kill(pid_, signal) != 0) return absl::InternalError(ErrnoText("kill"));
  return absl::OkStatus();
}

absl::StatusOr<int> ServerProcess::WaitForExit(std::chrono::milliseconds timeout) {
  if (!running()) return absl::FailedPreconditionError("the server is not running");
  const Clock::time_point deadline = Clock::now() + timeout;
  while (true) {
    int wait_status = 0;
    const pid_t done = waitpid(pid_, &wait_status, WNOHANG);
    if (done == pid_) {
      pid_ = -1;
      if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
      if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
      return absl::InternalError("unexpected wait status");
    }
    if (done < 0 && errno != EINTR) return absl::InternalError(ErrnoText("waitpid"));
    if (Clock::now() >= deadline) {
      return absl::DeadlineExceededError("the server is still running");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void ServerProcess::KillAndReap() {
  if (!running()) return;
  kill(pid_, SIGKILL);
  int wait_status = 0;
  while (waitpid(pid_, &wait_status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

}  // namespace shardplan::testing
