#ifndef SHARDPLAN_TESTS_INTEGRATION_SUPPORT_POSTGRES_SERVER_H_
#define SHARDPLAN_TESTS_INTEGRATION_SUPPORT_POSTGRES_SERVER_H_

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace shardplan::testing {

// The directory with initdb and postgres: $SHARDPLAN_POSTGRES_BINDIR when set, otherwise the
// newest /usr/lib/postgresql/<version>/bin (Debian's postgresql package). FAILED_PRECONDITION
// saying what to install when there is none.
absl::StatusOr<std::string> FindPostgresBinDir();

// A real, throw-away PostgreSQL server for a test: a fresh cluster (initdb) in a temporary
// directory, listening on a free 127.0.0.1 port with its unix socket in that directory, trust
// authentication for the `postgres` superuser. Runs as the `postgres` system user when the test
// runs as root (PostgreSQL refuses root). The destructor stops it and deletes its directory.
//
//   ASSERT_OK_AND_ASSIGN(auto server, PostgresServer::Start());
//   ASSERT_OK_AND_ASSIGN(std::string uri, server->CreateDatabase("plans"));
class PostgresServer {
 public:
  // The error names the step that failed and carries initdb's or the server's log.
  static absl::StatusOr<std::unique_ptr<PostgresServer>> Start(
      std::chrono::milliseconds timeout = std::chrono::seconds(60));

  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  int port() const { return port_; }
  bool running() const { return pid_ > 0; }

  // postgresql://postgres@127.0.0.1:<port>/<database>
  std::string Uri(const std::string& database = "postgres") const;

  // CREATE DATABASE `name` (letters, digits, '_'); returns Uri(name).
  absl::StatusOr<std::string> CreateDatabase(const std::string& name);

  // Runs `sql` as the superuser on `database`; the rows, each value as text.
  absl::StatusOr<std::vector<std::vector<std::string>>> Query(const std::string& database,
                                                              const std::string& sql);

  // Fast shutdown (SIGINT), SIGKILL after `timeout`; the data stays for Restart.
  absl::Status Stop(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // Starts the server again on the same port and data (after Stop).
  absl::Status Restart(std::chrono::milliseconds timeout = std::chrono::seconds(60));

  // What the server wrote to its log so far.
  std::string log() const;

 private:
  PostgresServer() = default;
  absl::Status Launch(std::chrono::milliseconds timeout);

  std::string bin_dir_;
  std::string temp_dir_;
  std::string data_dir_;
  std::string log_file_;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace shardplan::testing

#endif  // SHARDPLAN_TESTS_INTEGRATION_SUPPORT_POSTGRES_SERVER_H_
