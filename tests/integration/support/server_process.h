#ifndef SHARDPLAN_TESTS_INTEGRATION_SUPPORT_SERVER_PROCESS_H_
#define SHARDPLAN_TESTS_INTEGRATION_SUPPORT_SERVER_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "grpcpp/channel.h"
#include "grpcpp/security/credentials.h"

namespace shardplan::testing {

// The shardplan-server binary this helper starts: $SHARDPLAN_SERVER_BINARY when set, otherwise
// the path CMake baked in ($<TARGET_FILE:shardplan-server>).
std::string ServerBinaryPath();

// One unary call of `method` ("/package.Service/Method") with `request` as its serialized
// message, through grpc::GenericStub (no generated stub needed); the serialized response, or the
// call's error.
absl::StatusOr<std::string> CallUnaryBytes(const std::shared_ptr<grpc::Channel>& channel,
                                           const std::string& method, const std::string& request,
                                           std::chrono::milliseconds timeout);

// grpc.health.v1.Health/Check for `service` ("" = the whole server) over `channel`, without
// generated health stubs (so any test binary can link this helper). Returns the ServingStatus
// number: 0 UNKNOWN, 1 SERVING, 2 NOT_SERVING, 3 SERVICE_UNKNOWN; the RPC's error otherwise.
absl::StatusOr<int> CheckHealth(const std::shared_ptr<grpc::Channel>& channel,
                                const std::string& service,
                                std::chrono::milliseconds timeout = std::chrono::seconds(2));

// A real shardplan-server process on free loopback ports, for integration tests.
//
//   ServerProcess server;
//   ASSERT_TRUE(server.Start({"--workers=1"}).ok());
//   auto stub = shardplan::v1::PlannerService::NewStub(server.Channel());
//
// Start passes --address 127.0.0.1:0 --metrics_address 127.0.0.1:0 --port_file <tmp>
// --store sqlite:<tmp>/plans.db and then `extra_args`, which therefore override those four
// (e.g. "--metrics_address=" disables the metrics endpoint). The server's stdout and stderr go to a temporary log file (log()).
// The destructor kills the server with SIGKILL if it still runs and reaps it.
// Call Start from a thread that outlives the server: the child is killed when that thread exits
// (PR_SET_PDEATHSIG), so a crashed test never leaves a server behind.
class ServerProcess {
 public:
  ServerProcess();
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Starts the server and waits until it wrote its port file and answers health SERVING.
  // On failure (timeout, early exit, bad port file) the error includes the server's log, and
  // the process is killed.
  absl::Status Start(const std::vector<std::string>& extra_args = {},
                     std::chrono::milliseconds timeout = std::chrono::seconds(30));

  int grpc_port() const { return grpc_port_; }
  int metrics_port() const { return metrics_port_; }  // 0 when the endpoint is disabled
  // The health-only port (--health_address=127.0.0.1:0 in extra_args); 0 when not enabled.
  int health_port() const { return health_port_; }
  std::string target() const;                         // "127.0.0.1:<grpc_port>"
  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }

  // Credentials of Channel() and of Start's readiness check (a TLS server needs TLS ones).
  // Default: insecure. Call before Start.
  void SetChannelCredentials(std::shared_ptr<grpc::ChannelCredentials> credentials) {
    credentials_ = std::move(credentials);
  }

  // RLIMIT_FSIZE of the server process (and of every file it writes, its log included), with
  // SIGXFSZ ignored, so a write past `bytes` fails with EFBIG as on a full disk instead of killing
  // the server. 0 (the default): no limit. Call before Start; applies to later Starts.
  void SetFileSizeLimit(off_t bytes) { file_size_limit_ = bytes; }

  // Runs the server as `uid`:`gid` (no supplementary groups) when the test runs as root, e.g.
  // 65534 (nobody) so that file permissions apply to it. Its temporary directory must then be
  // writable by that user (the port file goes there). Call before Start.
  void SetUser(uid_t uid, gid_t gid) {
    run_as_uid_ = uid;
    run_as_gid_ = gid;
  }

  // A new channel to target() with the channel credentials.
  std::shared_ptr<grpc::Channel> Channel() const;
  // A new insecure channel to the health-only port (health_port() must not be 0).
  std::shared_ptr<grpc::Channel> HealthChannel() const;

  // Sends `signal` to the server (e.g. SIGTERM for a graceful shutdown).
  absl::Status Signal(int signal);

  // Waits up to `timeout` for the server to exit and reaps it. Returns its exit code, or
  // 128 + the signal number when a signal ended it (the shell's convention).
  // DEADLINE_EXCEEDED if it is still running; FAILED_PRECONDITION if it was never started.
  absl::StatusOr<int> WaitForExit(std::chrono::milliseconds timeout);

  // The plan store Start passes: an SQLite file in this object's temporary directory, so a
  // restart of the same ServerProcess finds its plans (valid once Start was called).
  std::string store() const;

  // Everything the server wrote to stdout and stderr so far.
  std::string log() const;

 private:
  absl::Status WaitUntilServing(std::chrono::steady_clock::time_point deadline);
  void KillAndReap();

  std::string temp_dir_;
  std::string port_file_;
  std::string log_file_;
  std::shared_ptr<grpc::ChannelCredentials> credentials_;  // null: insecure
  pid_t pid_ = -1;
  off_t file_size_limit_ = 0;
  uid_t run_as_uid_ = static_cast<uid_t>(-1);  // -1: unchanged
  gid_t run_as_gid_ = static_cast<gid_t>(-1);
  int grpc_port_ = 0;
  int metrics_port_ = 0;
  int health_port_ = 0;
};

}  // namespace shardplan::testing

#endif  // SHARDPLAN_TESTS_INTEGRATION_SUPPORT_SERVER_PROCESS_H_
