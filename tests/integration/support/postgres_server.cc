#include "tests/integration/support/postgres_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
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

namespace shardplan::testing {
namespace {

using Clock = std::chrono::steady_clock;

// Who runs initdb and postgres: the `postgres` system user when we are root.
struct RunAs {
  bool switch_user = false;
  uid_t uid = 0;
  gid_t gid = 0;
};

absl::StatusOr<RunAs> PostgresUser() {
  RunAs run_as;
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

// Forks and execs `args` with stdout and stderr appended to `log_file`.
absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& args, const std::string& log_file,
                            const RunAs& run_as) {
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (std::string& arg : copy) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const int log_fd = open(log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) return absl::InternalError(ErrnoText("open " + log_file));
  const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(log_fd);
    close(null_fd);
    return absl::InternalError(ErrnoText("fork"));
  }
  if (pid == 0) {
    // Only async-signal-safe calls from here on.
    if (run_as.switch_user) {
      if (setgroups(0, nullptr) != 0 || setgid(run_as.gid) != 0 || setuid(run_as.uid) != 0) {
        _exit(126);
      }
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // after setuid, which clears it
    if (getppid() != parent) _exit(127);
    dup2(null_fd, STDIN_FILENO);
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(log_fd);
  close(null_fd);
  return pid;
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
  absl::StatusOr<RunAs> run_as = PostgresUser();
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
  absl::StatusOr<pid_t> initdb =
      Spawn({server->bin_dir_ + "/initdb", "-D", server->data_dir_, "-U", "postgres", "-A", "trust",
             "-E", "UTF8", "--locale=C", "--no-sync"},
            initdb_log, *run_as);
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
  absl::StatusOr<RunAs> run_as = PostgresUser();
  if (!run_as.ok()) return run_as.status();
  const std::vector<std::string> args = {bin_dir_ + "/postgres", "-D", data_dir_, "-p",
                                         absl::StrCat(port_), "-k", temp_dir_, "-c",
                                         "listen_addresses=127.0.0.1", "-c", "shared_buffers=16MB",
                                         // Throw-away data: the tests kill clients, not this.
                                         "-c", "fsync=off"};
  absl::StatusOr<pid_t> pid = Spawn(args, log_file_, *run_as);
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
