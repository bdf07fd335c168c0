#include "tests/integration/support/postgres_server.h"

#include <arpa/inet.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/integration/support/files.h"
#include "tests/integration/support/spawn.h"

namespace shardplan::testing {
namespace {

using Clock = std::chrono::steady_clock;

// Who runs initdb and postgres: the `postgres` system user when we are root. The log is the
// caller's to set.
absl::StatusOr<SpawnOptions> PostgresUser() {
  SpawnOptions run_as;
  if (geteuid() != 0) return run_as;
  const passwd* user = getpwnam("postgres");
  if (user == nullptr) {
    return absl::FailedPreconditionError(
        "PostgreSQL refuses to run as root and there is no `postgres` system user (Debian's "
        "postgresql package creates it)");
  }
  run_as.switch_user = true;
  run_as.uid = user->pw_uid;
  run_as.gid = user->pw_gid;
  return run_as;
}

// A port the kernel just handed out on 127.0.0.1 (free unless someone takes it meanwhile).
absl::StatusOr<int> FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(ErrnoText("socket"));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    close(fd);
    return absl::InternalError(ErrnoText("bind 127.0.0.1:0"));
  }
  close(fd);
  return ntohs(address.sin_port);
}

}  // namespace

absl::StatusOr<std::string> FindPostgresBinDir() {
  auto complete = [](const std::filesystem::path& dir) {
    return std::filesystem::exists(dir / "initdb") && std::filesystem::exists(dir / "postgres");
  };
  if (const char* env = std::getenv("SHARDPLAN_POSTGRES_BINDIR"); env != nullptr && *env) {
    if (complete(env)) return std::string(env);
    return absl::FailedPreconditionError(
        absl::StrCat("SHARDPLAN_POSTGRES_BINDIR=", env, " has no initdb and postgres"));
  }
  int best_version = -1;
  std::string best;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", error)) {
    int version = 0;
    if (!absl::SimpleAtoi(entry.path().filename().string(), &version)) continue;
    if (version > best_version && complete(entry.path() / "bin")) {
      best_version = version;
      best = (entry.path() / "bin").string();
    }
  }
  if (best.empty()) {
    return absl::FailedPreconditionError(
        "PostgreSQL server binaries (initdb, postgres) not found under /usr/lib/postgresql/*/bin: "
        "install Debian's postgresql package (scripts/install_deps.sh does) or set "
        "SHARDPLAN_POSTGRES_BINDIR");
  }
  return best;
}

absl::StatusOr<std::unique_ptr<PostgresServer>> PostgresServer::Start(
    std::chrono::milliseconds timeout) {
  absl::StatusOr<std::string> bin_dir = FindPostgresBinDir();
  if (!bin_dir.ok()) return bin_dir.status();
  absl::StatusOr<SpawnOptions> run_as = PostgresUser();
  if (!run_as.ok()) return run_as.status();

  std::unique_ptr<PostgresServer> server(new PostgresServer());
  server->bin_dir_ = *bin_dir;
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/shardplan-pg-XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) return absl::InternalError(ErrnoText("mkdtemp"));
  server->temp_dir_ = pattern;
  server->data_dir_ = pattern + "/data";
  server->log_file_ = pattern + "/postgres.log";
  if (run_as->switch_user && chown(pattern.c_str(), run_as->uid, run_as->gid) != 0) {
    return absl::InternalError(ErrnoText("chown " + pattern + " to postgres"));
  }

  const std::string initdb_log = pattern + "/initdb.log";
  SpawnOptions initdb_options = *run_as;
  initdb_options.log_file = initdb_log;
  absl::StatusOr<pid_t> initdb =
      SpawnChild({server->bin_dir_ + "/initdb", "-D", server->data_dir_, "-U", "postgres", "-A",
                  "trust", "-E", "UTF8", "--locale=C", "--no-sync"},
                 initdb_options);
  if (!initdb.ok()) return initdb.status();
  int wait_status = 0;
  while (waitpid(*initdb, &wait_status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0) {
    return absl::InternalError(
        absl::StrCat("initdb failed (wait status ", wait_status, "):\n", ReadFile(initdb_log)));
  }
  // Someone may take the free port before postgres binds it: a few tries.
  absl::Status launched;
  for (int attempt = 0; attempt < 3; ++attempt) {
    absl::StatusOr<int> port = FreePort();
    if (!port.ok()) return port.status();
    server->port_ = *port;
    launched = server->Launch(timeout);
    if (launched.ok()) return server;
    if (launched.code() != absl::StatusCode::kUnavailable) break;  // not an early exit
  }
  return launched;
}

absl::Status PostgresServer::Launch(std::chrono::milliseconds timeout) {
  absl::StatusOr<SpawnOptions> run_as = PostgresUser();
  if (!run_as.ok()) return run_as.status();
  const std::vector<std::string> args = {bin_dir_ + "/postgres", "-D", data_dir_, "-p",
                                         absl::StrCat(port_), "-k", temp_dir_, "-c",
                                         "listen_addresses=127.0.0.1", "-c", "shared_buffers=16MB",
                                         // Throw-away data: the tests kill clients, not this.
                                         "-c", "fsync=off"};
  run_as->log_file = log_file_;
  absl::StatusOr<pid_t> pid = SpawnChild(args, *run_as);
  if (!pid.ok()) return pid.status();
  pid_ = *pid;
  const std::string ping = absl::StrCat("host=127.0.0.1 port=", port_,
                                        " user=postgres dbname=postgres connect_timeout=5");
  const Clock::time_point deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    int wait_status = 0;
    if (waitpid(pid_, &wait_status, WNOHANG) == pid_) {
      pid_ = -1;
      return absl::UnavailableError(absl::StrCat("postgres exited while starting (wait status ",
                                                 wait_status, "): ", absl::StrJoin(args, " "),
                                                 "\n--- log ---\n", log()));
    }
    if (PQping(ping.c_str()) == PQPING_OK) return absl::OkStatus();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  (void)Stop(std::chrono::seconds(5));
  return absl::DeadlineExceededError(
      absl::StrCat("postgres did not accept connections on 127.0.0.1:", port_, " within ",
                   timeout.count(), " ms\n--- log ---\n", log()));
}

PostgresServer::~PostgresServer() {
  (void)Stop();
  if (!temp_dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(temp_dir_, ignored);
  }
}

std::string PostgresServer::Uri(const std::string& database) const {
  return absl::StrCat("postgresql://postgres@127.0.0.1:", port_, "/", database);
}

std::string PostgresServer::log() const { return ReadFile(log_file_); }

absl::StatusOr<std::vector<std::vector<std::string>>> PostgresServer::Query(
    const std::string& database, const std::string& sql) {
  PGconn* conn = PQconnectdb(Uri(database).c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string message = PQerrorMessage(conn);
    PQfinish(conn);
    return absl::UnavailableError(absl::StrCat("connect to ", Uri(database), ": ", message));
  }
  PGresult* result = PQexec(conn, sql.c_str());
  const ExecStatusType status = PQresultStatus(result);
  std::vector<std::vector<std::string>> rows;
  absl::Status error;
  if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) {
    for (int row = 0; row < PQntuples(result); ++row) {
      std::vector<std::string>& values = rows.emplace_back();
      for (int column = 0; column < PQnfields(result); ++column) {
        values.emplace_back(PQgetvalue(result, row, column), PQgetlength(result, row, column));
      }
    }
  } else {
    error = absl::InternalError(absl::StrCat(sql, ": ", PQresultErrorMessage(result)));
  }
  PQclear(result);
  PQfinish(conn);
  if (!error.ok()) return error;
  return rows;
}

absl::StatusOr<std::string> PostgresServer::CreateDatabase(const std::string& name) {
  if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
      })) {
    return absl::InvalidArgumentError(absl::StrCat("database name \"", name, "\""));
  }
  absl::StatusOr<std::vector<std::vector<std::string>>> done =
      Query("postgres", absl::StrCat("CREATE DATABASE ", name));
  if (!done.ok()) return done.status();
  return Uri(name);
}

absl::Status PostgresServer::Stop(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return absl::OkStatus();
  kill(pid_, SIGINT);  // fast shutdown: disconnects clients, checkpoints, exits
  const Clock::time_point deadline = Clock::now() + timeout;
  int wait_status = 0;
  while (Clock::now() < deadline) {
    if (waitpid(pid_, &wait_status, WNOHANG) == pid_) {
      pid_ = -1;
      return absl::OkStatus();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, &wait_status, 0);
  pid_ = -1;
  return absl::DeadlineExceededError("postgres did not shut down in time; killed it");
}

absl::Status PostgresServer::Restart(std::chrono::milliseconds timeout) {
  if (running()) return absl::FailedPreconditionError("postgres is still running");
  return Launch(timeout);
}

}  // namespace shardplan::testing
