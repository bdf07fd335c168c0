#include "tests/integration/support/spawn.h"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "tests/integration/support/files.h"

namespace shardplan::testing {

absl::StatusOr<pid_t> SpawnChild(const std::vector<std::string>& args,
                                 const SpawnOptions& options) {
  if (args.empty()) return absl::InvalidArgumentError("SpawnChild: no program");
  // Everything the child needs is prepared before fork: only async-signal-safe calls after it.
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (std::string& arg : copy) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const std::string exec_failed = absl::StrCat("SpawnChild: cannot exec ", args[0], "\n");
  const int log_fd =
      open(options.log_file.c_str(),
           O_WRONLY | O_CREAT | O_CLOEXEC | (options.truncate_log ? O_TRUNC : O_APPEND), 0644);
  if (log_fd < 0) return absl::InternalError(ErrnoText("open " + options.log_file));
  const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd < 0) {
    close(log_fd);
    return absl::InternalError(ErrnoText("open /dev/null"));
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(log_fd);
    close(null_fd);
    return absl::InternalError(ErrnoText("fork"));
  }
  if (pid == 0) {
    // Before PR_SET_PDEATHSIG: changing credentials clears it.
    if (options.switch_user &&
        (setgroups(0, nullptr) != 0 || setgid(options.gid) != 0 || setuid(options.uid) != 0)) {
      _exit(126);
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the test died before prctl
    dup2(null_fd, STDIN_FILENO);
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    if (options.file_size_limit > 0) {
      signal(SIGXFSZ, SIG_IGN);  // an ignored signal stays ignored across execv
      const rlimit limit = {static_cast<rlim_t>(options.file_size_limit),
                            static_cast<rlim_t>(options.file_size_limit)};
      if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(126);
    }
    execv(argv[0], argv.data());
    (void)!write(STDERR_FILENO, exec_failed.data(), exec_failed.size());
    _exit(127);
  }
  close(log_fd);
  close(null_fd);
  return pid;
}

}  // namespace shardplan::testing
