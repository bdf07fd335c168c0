#ifndef SHARDPLAN_SERVER_INSTANCE_LOCK_H_
#define SHARDPLAN_SERVER_INSTANCE_LOCK_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace shardplan {

// An exclusive advisory lock (flock) on a file, held until destruction or process exit (the
// kernel drops it even after kill -9). Guards an SQLite plan store against a second server on
// the same file: both would resume the same unfinished jobs.
class InstanceLock {
 public:
  // FAILED_PRECONDITION naming `setting` and the path when another process holds the lock;
  // UNAVAILABLE when the file cannot be created.
  static absl::StatusOr<std::unique_ptr<InstanceLock>> Acquire(const std::string& path,
                                                               const std::string& setting);
  ~InstanceLock();
  InstanceLock(const InstanceLock&) = delete;
  InstanceLock& operator=(const InstanceLock&) = delete;

 private:
  explicit InstanceLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_INSTANCE_LOCK_H_
