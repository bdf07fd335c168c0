#ifndef SHARDPLAN_COSTMODELS_ARTIFACTS_MLP_TENSORS_H_
#define SHARDPLAN_COSTMODELS_ARTIFACTS_MLP_TENSORS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "costmodels/artifacts/weights_file.h"
#include "nn/mlp.h"

namespace shardplan {

// An MLP's layer sizes: input, then each layer's output ([20, 128, 32] for 20->128->32).
std::vector<int> MlpSizes(const Mlp& mlp);

// Appends `mlp`'s layers as torch names them: "<prefix>.<i>.weight" [out, in] and
// "<prefix>.<i>.bias" [out], i = dense layer index 0, 1, ...
void AppendMlpTensors(const std::string& prefix, const Mlp& mlp,
                      std::vector<WeightsTensor>& tensors);

// The bytes the tensors of an MLP with layer sizes `sizes` take in a weights file
// (AppendMlpTensors' names and shapes); nullopt when the sizes do not make an MLP (fewer than
// two, or one not positive) or the total would exceed `limit` (checked as it is summed, so
// absurd sizes cannot overflow it).
std::optional<uint64_t> MlpTensorsBytes(const std::string& prefix, const std::vector<int>& sizes,
                                        uint64_t limit);

// Takes the tensors of an MLP with layer sizes `sizes` out of `tensors` (the rest stay, so the
// caller can refuse leftovers). FAILED_PRECONDITION naming `file` and the tensor when one is
// missing or has another shape, or the sizes do not make a valid MLP.
absl::StatusOr<Mlp> TakeMlpTensors(const std::string& prefix, const std::vector<int>& sizes,
                                   bool relu_on_output, const std::string& file,
                                   std::map<std::string, WeightsTensor>& tensors);

}  // namespace shardplan

#endif  // SHARDPLAN_COSTMODELS_ARTIFACTS_MLP_TENSORS_H_
