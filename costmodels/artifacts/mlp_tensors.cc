#include "costmodels/artifacts/mlp_tensors.h"

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shardplan {
namespace {

absl::StatusOr<std::vector<float>> TakeTensor(const std::string& name,
                                              const std::vector<uint32_t>& shape,
                                              const std::string& file,
                                              std::map<std::string, WeightsTensor>& tensors) {
  auto it = tensors.find(name);
  if (it == tensors.end()) {
    return absl::FailedPreconditionError(absl::StrCat(file, ": tensor '", name, "' is missing"));
  }
  if (it->second.shape != shape) {
    return absl::FailedPreconditionError(absl::StrCat(
        file, ": tensor '", name, "' has shape [", absl::StrJoin(it->second.shape, ","),
        "], the manifest's architecture needs [", absl::StrJoin(shape, ","), "]"));
  }
  std::vector<float> data = std::move(it->second.data);
  tensors.erase(it);
  return data;
}

}  // namespace

std::vector<int> MlpSizes(const Mlp& mlp) {
  std::vector<int> sizes = {mlp.input_size()};
  for (const DenseLayer& layer : mlp.layers()) sizes.push_back(layer.out);
  return sizes;
}

void AppendMlpTensors(const std::string& prefix, const Mlp& mlp,
                      std::vector<WeightsTensor>& tensors) {
  for (size_t i = 0; i < mlp.layers().size(); ++i) {
    const DenseLayer& layer = mlp.layers()[i];
    const auto out = static_cast<uint32_t>(layer.out);
    const auto in = static_cast<uint32_t>(layer.in);
    tensors.push_back({absl::StrCat(prefix, ".", i, ".weight"), {out, in}, layer.weight});
    tensors.push_back({absl::StrCat(prefix, ".", i, ".bias"), {out}, layer.bias});
  }
}

std::optional<uint64_t> MlpTensorsBytes(const std::string& prefix, const std::vector<int>& sizes,
                                        uint64_t limit) {
  if (sizes.size() < 2) return std::nullopt;
  uint64_t total = 0;
  for (size_t i = 0; i + 1 < sizes.size(); ++i) {
    if (sizes[i] <= 0 || sizes[i + 1] <= 0) return std::nullopt;
    const auto out = static_cast<uint32_t>(sizes[i + 1]);
    const auto in = static_cast<uint32_t>(sizes[i]);
    // Each factor is below 2^31, so the product cannot overflow; bounding it keeps the sum
    // below overflow too.
    if (uint64_t{out} * in > limit) return std::nullopt;
    total += SerializedTensorBytes(absl::StrCat(prefix, ".", i, ".weight").size(), {out, in}) +
             SerializedTensorBytes(absl::StrCat(prefix, ".", i, ".bias").size(), {out});
    if (total > limit) return std::nullopt;
  }
  return total;
}

absl::StatusOr<Mlp> TakeMlpTensors(const std::string& prefix, const std::vector<int>& sizes,
                                   bool relu_on_output, const std::string& file,
                                   std::map<std::string, WeightsTensor>& tensors) {
  if (sizes.size() < 2) {
    return absl::FailedPreconditionError(
        absl::StrCat(file, ": ", prefix, " needs at least an input and an output size"));
  }
  std::vector<DenseLayer> layers;
  for (size_t i = 0; i + 1 < sizes.size(); ++i) {
    if (sizes[i] <= 0 || sizes[i + 1] <= 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          file, ": ", prefix, " sizes [", absl::StrJoin(sizes, ","), "] must be positive"));
    }
    DenseLayer layer;
    layer.in = sizes[i];
    layer.out = sizes[i + 1];
    const auto out = static_cast<uint32_t>(layer.out);
    const auto in = static_cast<uint32_t>(layer.in);
    auto weight = TakeTensor(absl::StrCat(prefix, ".", i, ".weight"), {out, in}, file, tensors);
    if (!weight.ok()) return weight.status();
    auto bias = TakeTensor(absl::StrCat(prefix, ".", i, ".bias"), {out}, file, tensors);
    if (!bias.ok()) return bias.status();
    layer.weight = *std::move(weight);
    layer.bias = *std::move(bias);
    layers.push_back(std::move(layer));
  }
  auto mlp = Mlp::Create(std::move(layers), relu_on_output);
  if (!mlp.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat(file, ": ", prefix, ": ", mlp.status().message()));
  }
  return mlp;
}

}  // namespace shardplan
