#include "server/instance_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace shardplan {

absl::StatusOr<std::unique_ptr<InstanceLock>> InstanceLock::Acquire(const std::string& path,
                                                                    const std::string& setting) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::UnavailableError(absl::StrCat(setting, ": cannot create the lock file \"", path,
                                               "\": ", std::strerror(errno)));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    ::close(fd);
    if (error == EWOULDBLOCK) {
      return absl::FailedPreconditionError(absl::StrCat(
          setting, ": another shardplan-server uses this store (it holds \"", path,
          "\"); give each server its own SQLite file, or share a PostgreSQL store"));
    }
    return absl::UnavailableError(
        absl::StrCat(setting, ": cannot lock \"", path, "\": ", std::strerror(error)));
  }
  return std::unique_ptr<InstanceLock>(new InstanceLock(fd));
}

InstanceLock::~InstanceLock() { ::close(fd_); }

}  // namespace shardplan
