#include "planner/domain/policy.h"

#include <cmath>
#include <cstddef>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shardplan {

absl::Status CheckPolicyTensors(const Policy& policy, const PolicyTensorShapes& expected) {
  for (const auto& [name, shape] : expected) {
    const auto it = policy.tensors.find(name);
    if (it == policy.tensors.end()) {
      return absl::FailedPreconditionError(absl::StrCat("tensor ", name, " is missing"));
    }
    const PolicyTensor& tensor = it->second;
    if (tensor.shape != shape) {
      return absl::FailedPreconditionError(
          absl::StrCat("tensor ", name, " has shape [", absl::StrJoin(tensor.shape, ", "),
                       "], not [", absl::StrJoin(shape, ", "), "]"));
    }
    size_t size = 1;
    for (uint32_t d : shape) size *= d;
    if (tensor.data.size() != size) {
      return absl::FailedPreconditionError(
          absl::StrCat("tensor ", name, " holds ", tensor.data.size(), " values, not ", size));
    }
    for (float value : tensor.data) {
      if (!std::isfinite(value)) {
        return absl::FailedPreconditionError(absl::StrCat("tensor ", name, " is not finite"));
      }
    }
  }
  for (const auto& [name, tensor] : policy.tensors) {
    if (!expected.contains(name)) {
      return absl::FailedPreconditionError(
          absl::StrCat("tensor ", name, " is not one of ", policy.architecture));
    }
  }
  return absl::OkStatus();
}

}  // namespace shardplan
