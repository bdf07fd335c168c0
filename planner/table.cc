#include "planner/table.h"

#include <algorithm>

namespace shardplan {

int ElementBytes(ElementType type) {
  switch (type) {
    case ElementType::kFp32:
      return 4;
    case ElementType::kFp16:
      return 2;
    case ElementType::kInt8:
      return 1;
  }
  return 4;  // unreachable for valid enum values; ValidateTask rejects others
}

bool Table::Allows(ShardingType type) const {
  return allowed_sharding_types.empty() ||
         std::find(allowed_sharding_types.begin(), allowed_sharding_types.end(), type) !=
             allowed_sharding_types.end();
}

}  // namespace shardplan
