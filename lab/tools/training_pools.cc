#include "lab/tools/training_pools.h"

#include <string>
#include <utility>

#include "base/status_macros.h"
#include "lab/tools/tool_support.h"

namespace shardplan::offline {

training::PoolLoader PoolFromFile() {
  return [](const std::string& path) -> absl::StatusOr<training::HashedPool> {
    SHARDPLAN_ASSIGN_OR_RETURN(LoadedPool loaded, LoadPoolWithHash(path));
    return training::HashedPool{std::move(loaded.pool), std::move(loaded.sha256)};
  };
}

}  // namespace shardplan::offline
