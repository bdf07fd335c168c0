#ifndef SHARDPLAN_COSTMODELS_DATA_ATOMIC_FILE_H_
#define SHARDPLAN_COSTMODELS_DATA_ATOMIC_FILE_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace shardplan {

// Replaces `path` with `contents` so that a reader (or a crash) sees either the old file or the
// new one, never a torn mix: writes a temporary file beside `path`, fsyncs it, renames it over
// `path`, then fsyncs the directory. The temporary file is removed on failure. Errors name the
// path and the failing step.
absl::Status WriteFileAtomically(const std::string& path, std::string_view contents);

}  // namespace shardplan

#endif  // SHARDPLAN_COSTMODELS_DATA_ATOMIC_FILE_H_
