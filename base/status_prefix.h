#ifndef SHARDPLAN_BASE_STATUS_PREFIX_H_
#define SHARDPLAN_BASE_STATUS_PREFIX_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace shardplan {

// The same code and payloads with "<prefix><message>", e.g. prefix "task." turns
// "tables[2].dim: must be ..." into "task.tables[2].dim: must be ...". OK stays OK.
absl::Status WithPrefix(const absl::Status& status, absl::string_view prefix);

}  // namespace shardplan

#endif  // SHARDPLAN_BASE_STATUS_PREFIX_H_
