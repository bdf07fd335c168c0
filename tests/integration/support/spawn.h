#ifndef SHARDPLAN_TESTS_INTEGRATION_SUPPORT_SPAWN_H_
#define SHARDPLAN_TESTS_INTEGRATION_SUPPORT_SPAWN_H_

// Starting the real processes integration tests drive (shardplan-server, initdb, postgres).

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace shardplan::testing {

struct SpawnOptions {
  std::string log_file;       // the child's stdout and stderr
  bool truncate_log = false;  // false: appended to what the file holds
  // Run as this user and group (the caller must be root), e.g. PostgreSQL, which refuses root.
  bool switch_user = false;
  uid_t uid = 0;
  gid_t gid = 0;
  // RLIMIT_FSIZE in bytes, with SIGXFSZ ignored, so writes past it fail EFBIG (a full disk, as
  // far as the child can tell). 0: no limit.
  int64_t file_size_limit = 0;
};

// Forks and execs args[0] with `args`: stdin from /dev/null, every signal unblocked and SIGTERM,
// SIGINT and SIGPIPE at their defaults, and SIGKILL when the test process dies (so no child
// outlives a crashed test). The child exits 126 when it cannot switch user or set the limit, 127
// when exec fails (saying so in the log). Returns its pid; the caller reaps it.
absl::StatusOr<pid_t> SpawnChild(const std::vector<std::string>& args, const SpawnOptions& options);

}  // namespace shardplan::testing

#endif  // SHARDPLAN_TESTS_INTEGRATION_SUPPORT_SPAWN_H_
