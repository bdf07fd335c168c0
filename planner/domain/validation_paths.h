#ifndef SHARDPLAN_PLANNER_DOMAIN_VALIDATION_PATHS_H_
#define SHARDPLAN_PLANNER_DOMAIN_VALIDATION_PATHS_H_

// The field paths and INVALID_ARGUMENT errors that task and plan validation share.

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace shardplan::validation {

// "tables[3].dim"
inline std::string TablePath(size_t index, absl::string_view field) {
  return absl::StrCat("tables[", index, "].", field);
}

// "tables[k].shards[s]": shard s of plan table k.
inline std::string ShardPath(size_t k, size_t s) {
  return absl::StrCat(TablePath(k, "shards"), "[", s, "]");
}

// "path: reason"
inline absl::Status Invalid(absl::string_view path, absl::string_view reason) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", reason));
}

}  // namespace shardplan::validation

#endif  // SHARDPLAN_PLANNER_DOMAIN_VALIDATION_PATHS_H_
