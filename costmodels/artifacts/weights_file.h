#ifndef SHARDPLAN_COSTMODELS_ARTIFACTS_WEIGHTS_FILE_H_
#define SHARDPLAN_COSTMODELS_ARTIFACTS_WEIGHTS_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace shardplan {

// A self-describing little-endian tensor file (docs/model-bundles.md):
//   "SPWT", uint32 format version (1), uint32 tensor count, then per tensor:
//   uint32 name length, name bytes, uint32 ndim, uint32 dims[ndim], float32 data (row-major).
inline constexpr char kWeightsMagic[] = "SPWT";
inline constexpr uint32_t kWeightsFormatVersion = 1;
// The bytes before the first tensor: magic, format version, tensor count.
inline constexpr uint64_t kWeightsHeaderBytes = 12;

// The bytes one tensor takes in a weights file: its name length, name, ndim, dims and data.
inline uint64_t SerializedTensorBytes(size_t name_length, const std::vector<uint32_t>& shape) {
  uint64_t values = 1;
  for (uint32_t dim : shape) values *= dim;
  return 4 + name_length + 4 + 4 * shape.size() + 4 * values;
}

struct WeightsTensor {
  std::string name;
  std::vector<uint32_t> shape;
  std::vector<float> data;  // product(shape) values, row-major

  bool operator==(const WeightsTensor&) const = default;
};

// The file's bytes. INVALID_ARGUMENT when a tensor's data does not match its shape, a name is
// empty or repeated.
absl::StatusOr<std::string> SerializeWeights(const std::vector<WeightsTensor>& tensors);

// Parses a whole file, in its order. FAILED_PRECONDITION naming `file` (and the tensor where
// there is one) for a wrong magic or version, truncation, trailing bytes, absurd sizes or a
// repeated name.
absl::StatusOr<std::vector<WeightsTensor>> ParseWeights(std::string_view bytes,
                                                        const std::string& file);

}  // namespace shardplan

#endif  // SHARDPLAN_COSTMODELS_ARTIFACTS_WEIGHTS_FILE_H_
