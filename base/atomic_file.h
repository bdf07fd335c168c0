#ifndef SHARDPLAN_BASE_ATOMIC_FILE_H_
#define SHARDPLAN_BASE_ATOMIC_FILE_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace shardplan {

// Replaces `path` with `contents` so that a reader (or a crash) sees either the old file or the
// new one, never a torn mix: writes a temporary file beside `path`, fsyncs it, renames it over
// `path`, then fsyncs the directory. The temporary file is removed on failure. Errors name the
// path and the failing step.
absl::Status WriteFileAtomically(const std::string& path, std::string_view contents);

// Fsyncs the directory `dir`, making the creations, renames and removals of its entries durable
// (a file's own fsync does not cover its directory entry). Errors name the directory and the step.
absl::Status FsyncDirectory(const std::string& dir);

}  // namespace shardplan

#endif  // SHARDPLAN_BASE_ATOMIC_FILE_H_
