#include "nn/lstm.h"

#include <algorithm>
#include <cstddef>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "nn/lstm_cell.h"

namespace shardplan {
namespace {

absl::Status CheckSize(size_t l, const char* field, size_t actual, size_t expected,
                       const char* formula) {
  if (actual == expected) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("lstm: layer ", l, " ", field, " has ", actual,
                                                 " floats; want ", formula, " = ", expected));
}

}  // namespace

absl::StatusOr<Lstm> Lstm::Create(std::vector<LstmLayer> layers) {
  if (layers.empty()) return absl::InvalidArgumentError("lstm: no layers");
  for (size_t l = 0; l < layers.size(); ++l) {
    const LstmLayer& layer = layers[l];
    if (layer.in <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("lstm: layer ", l, " in is ", layer.in, "; must be positive"));
    }
    if (layer.hidden <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("lstm: layer ", l, " hidden is ", layer.hidden, "; must be positive"));
    }
    if (l > 0 && layer.hidden != layers[0].hidden) {
      return absl::InvalidArgumentError(absl::StrCat("lstm: layer ", l, " hidden is ", layer.hidden,
                                                     " but layer 0's is ", layers[0].hidden,
                                                     "; they must agree"));
    }
    if (l > 0 && layer.in != layers[l - 1].hidden) {
      return absl::InvalidArgumentError(absl::StrCat("lstm: layer ", l, " in is ", layer.in,
                                                     " but layer ", l - 1, " gives ",
                                                     layers[l - 1].hidden));
    }
    const size_t gates = 4 * static_cast<size_t>(layer.hidden);
    for (absl::Status status :
         {CheckSize(l, "weight_ih", layer.weight_ih.size(), gates * layer.in, "4 * hidden * in"),
          CheckSize(l, "weight_hh", layer.weight_hh.size(), gates * layer.hidden,
                    "4 * hidden * hidden"),
          CheckSize(l, "bias_ih", layer.bias_ih.size(), gates, "4 * hidden"),
          CheckSize(l, "bias_hh", layer.bias_hh.size(), gates, "4 * hidden")}) {
      if (!status.ok()) return status;
    }
  }
  return Lstm(std::move(layers));
}

Lstm::Lstm(std::vector<LstmLayer> layers) : layers_(std::move(layers)) {
  for (const LstmLayer& layer : layers_) {
    const size_t gates = 4 * static_cast<size_t>(layer.hidden);
    std::vector<float> wt((layer.in + layer.hidden) * gates);
    std::vector<float> bias(gates);
    PackLstmLayer(layer.weight_ih.data(), layer.weight_hh.data(), layer.bias_ih.data(),
                  layer.bias_hh.data(), layer.in, layer.hidden, wt.data(), bias.data());
    packed_weights_.push_back(std::move(wt));
    packed_bias_.push_back(std::move(bias));
  }
}

size_t Lstm::scratch_size() const {
  // z = [x; h] for the widest layer, then the gates.
  const int hidden = hidden_size();
  return static_cast<size_t>(std::max(input_size(), hidden) + hidden) + 4 * hidden;
}

Lstm::State Lstm::ZeroState() const {
  const size_t n = static_cast<size_t>(num_layers()) * hidden_size();
  return State{std::vector<float>(n, 0.0f), std::vector<float>(n, 0.0f),
               std::vector<float>(scratch_size())};
}

void Lstm::Step(const float* input, State& state, float* output) const {
  if (state.scratch.size() < scratch_size()) state.scratch.resize(scratch_size());
  const int hidden = hidden_size();
  float* z = state.scratch.data();
  float* gates = z + std::max(input_size(), hidden) + hidden;
  const float* x = input;
  for (int l = 0; l < num_layers(); ++l) {
    const int in = layers_[l].in;
    float* h = state.h.data() + static_cast<size_t>(l) * hidden;
    float* c = state.c.data() + static_cast<size_t>(l) * hidden;
    std::copy(x, x + in, z);
    std::copy(h, h + hidden, z + in);
    LstmCellForward(z, in, hidden, packed_weights_[l].data(), packed_bias_[l].data(), gates, c, h);
    x = h;
  }
  std::copy(x, x + hidden, output);
}

}  // namespace shardplan
