#include "planner/domain/table.h"

#include <algorithm>

namespace shardplan {

int ElementBytes(ElementType type) {
  switch (type) {
    case ElementType::kFp32:
      return 4;
    case ElementType::kFp16:
    case ElementType::kBf16:
      return 2;
    case ElementType::kInt8:
    case ElementType::kUint8:
    case ElementType::kNfp8:
      return 1;
  }
  return 4;  // unreachable for valid enum values; ValidateTask rejects others
}

bool Table::Allows(ShardingType type) const {
  return allowed_sharding_types.empty() ||
         std::find(allowed_sharding_types.begin(), allowed_sharding_types.end(), type) !=
             allowed_sharding_types.end();
}

const char* ShardingTypeName(ShardingType type) {
  switch (type) {
    case ShardingType::kTableWise:
      return "TABLE_WISE";
    case ShardingType::kColumnWise:
      return "COLUMN_WISE";
    case ShardingType::kRowWise:
      return "ROW_WISE";
    case ShardingType::kDataParallel:
      return "DATA_PARALLEL";
    case ShardingType::kTableRowWise:
      return "TABLE_ROW_WISE";
  }
  return "SHARDING_TYPE_UNSPECIFIED";
}

const char* ElementTypeName(ElementType type) {
  switch (type) {
    case ElementType::kFp32:
      return "FP32";
    case ElementType::kFp16:
      return "FP16";
    case ElementType::kInt8:
      return "INT8";
    case ElementType::kBf16:
      return "BF16";
    case ElementType::kUint8:
      return "UINT8";
    case ElementType::kNfp8:
      return "NFP8";
  }
  return "ELEMENT_TYPE_UNSPECIFIED";
}

const char* PoolingName(Pooling pooling) {
  switch (pooling) {
    case Pooling::kSum:
      return "SUM";
    case Pooling::kSequence:
      return "SEQUENCE";
  }
  return "POOLING_UNSPECIFIED";
}

}  // namespace shardplan
