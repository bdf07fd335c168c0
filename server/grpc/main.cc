// shardplan-server: the gRPC sharding-planner service. See --help and server/server_config.h.
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/exit_codes.h"
#include "server/grpc/grpc_core_log.h"
#include "server/grpc/grpc_server.h"
#include "server/logging.h"
#include "server/port_file.h"
#include "server/server_config.h"

namespace {

// Waits for one of `signals` for up to `timeout`; the signal number, or 0.
int WaitForSignal(const sigset_t& signals, std::chrono::milliseconds timeout) {
  const timespec wait = {static_cast<time_t>(timeout.count() / 1000),
                         static_cast<long>((timeout.count() % 1000) * 1000000)};
  const int received = sigtimedwait(&signals, nullptr, &wait);
  return received > 0 ? received : 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Block the shutdown signals before any thread starts, so every thread inherits the mask and
  // they are only ever received here, synchronously, by sigwait: no work in signal handlers.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);  // re-read auth_tokens_file
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  // A peer that closes its connection must not kill the process on the next write.
  signal(SIGPIPE, SIG_IGN);

  const std::vector<std::string> args(argv, argv + argc);
  absl::StatusOr<shardplan::CommandLine> command_line = shardplan::ParseCommandLine(args);
  if (!command_line.ok()) {
    // Any mistake of the command line, a bad --config file or setting included, exits 2.
    shardplan::ReportError(shardplan::UsageError(command_line.status().message()),
                           "shardplan-server", "shardplan-server");
    return shardplan::kExitUsage;
  }
  if (command_line->help) {
    std::fputs(shardplan::HelpText(args.empty() ? "shardplan-server" : args[0]).c_str(), stdout);
    return shardplan::kExitOk;
  }
  const shardplan::ServerConfig& config = command_line->config;
  shardplan::ConfigureLogging(config.log_options());
  shardplan::RouteGrpcCoreLogs();

  absl::StatusOr<std::unique_ptr<shardplan::ShardplanServer>> server =
      shardplan::ShardplanServer::Start(config);
  if (!server.ok()) {
    shardplan::Log(shardplan::LogLevel::kError,
                   absl::StrCat("cannot start: ", server.status().message()));
    return shardplan::kExitOther;
  }
  const int grpc_port = (*server)->grpc_port();
  const int metrics_port = (*server)->metrics_port();
  const int health_port = (*server)->health_port();
  if (!config.port_file.empty()) {
    if (absl::Status written =
            shardplan::WritePortFile(config.port_file, grpc_port, metrics_port, health_port);
        !written.ok()) {
      shardplan::Log(shardplan::LogLevel::kError,
                     absl::StrCat("cannot start: ", written.message()));
      return shardplan::kExitOther;
    }
  }
  shardplan::LogLine(absl::StrCat(
      "serving on ", config.address, " (port ", grpc_port, "), metrics ",
      metrics_port > 0 ? absl::StrCat("on port ", metrics_port) : std::string("disabled"),
      health_port > 0 ? absl::StrCat(", health-only gRPC on port ", health_port) : std::string(),
      ", ", config.workers, " job workers, at most ", config.max_concurrent_plans,
      " Plan calls planning at once"));

  int received = 0;
  while (sigwait(&signals, &received) != 0 || received == SIGHUP) {
    if (received != SIGHUP) continue;
    received = 0;
    if (absl::Status reloaded = (*server)->ReloadTokens(); !reloaded.ok()) {
      shardplan::Log(shardplan::LogLevel::kError,
                     absl::StrCat("SIGHUP: keeping the previous tokens: ", reloaded.message()));
    }
  }
  shardplan::LogLine(absl::StrCat("received ", received == SIGTERM ? "SIGTERM" : "SIGINT",
                                  ": draining (a second signal exits at once)"));

  // Drain on a helper thread so that this one keeps listening: a second signal means "now".
  std::atomic<bool> drained{false};
  std::thread drainer([&] {
    (*server)->Drain(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(config.drain_timeout_s)));
    drained.store(true);
  });
  while (!drained.load()) {
    const int signal = WaitForSignal(signals, std::chrono::milliseconds(100));
    if (signal != 0 && signal != SIGHUP) {
      shardplan::Log(shardplan::LogLevel::kWarn,
                     "second signal: exiting without finishing the drain");
      shardplan::FlushLogSuppressions();
      std::_Exit(shardplan::kExitOther);
    }
  }
  drainer.join();
  server->reset();
  shardplan::FlushLogSuppressions();  // what the repeat limit held back, said before the end
  shardplan::LogLine("stopped");
  return shardplan::kExitOk;
}
