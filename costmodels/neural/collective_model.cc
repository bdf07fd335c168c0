#include "costmodels/neural/collective_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace shardplan {
namespace {

float Log10Bytes(double bytes) {
  return static_cast<float>(std::log10(1.0 + std::max(0.0, bytes)));
}

}  // namespace

const std::vector<std::string>& CollectiveCallFeatureNames() {
  static const std::vector<std::string> kNames = {
      "is_all_to_all",        "is_reduce_scatter", "is_all_gather",
      "is_all_reduce",        "backward",          "log10_ring_bytes",
      "log10_volume",         "log10_max_volume",  "log10_total_volume",
      "log10_replica_bytes",  "log2_group_size",   "hosts",
      "min_members_per_host", "local_rank_spread", "log2_devices",
      "devices_per_host"};
  return kNames;
}

void CollectiveCallFeatures(const CollectiveCall& call, size_t member, const Topology& topology,
                            std::span<float, kNumCollectiveCallFeatures> out) {
  const int local = std::max(1, topology.local_world_size());
  std::map<int, int> members_per_host;
  int min_local = local, max_local = -1;
  double max_volume = 0.0, total_volume = 0.0;
  for (size_t i = 0; i < call.peers.size(); ++i) {
    const int device = call.peers[i];
    ++members_per_host[device / local];
    min_local = std::min(min_local, device % local);
    max_local = std::max(max_local, device % local);
    max_volume = std::max(max_volume, call.volume[i]);
    total_volume += call.volume[i];
  }
  int min_members = static_cast<int>(call.peers.size());
  for (const auto& [host, count] : members_per_host) min_members = std::min(min_members, count);
  const int group = static_cast<int>(call.peers.size());

  out[0] = call.collective == Collective::kAllToAll ? 1.0f : 0.0f;
  out[1] = call.collective == Collective::kReduceScatter ? 1.0f : 0.0f;
  out[2] = call.collective == Collective::kAllGather ? 1.0f : 0.0f;
  out[3] = call.collective == Collective::kAllReduce ? 1.0f : 0.0f;
  out[4] = call.pass == Pass::kBackward ? 1.0f : 0.0f;
  out[5] = Log10Bytes(call.ring_bytes);
  out[6] = Log10Bytes(member < call.volume.size() ? call.volume[member] : 0.0);
  out[7] = Log10Bytes(max_volume);
  out[8] = Log10Bytes(total_volume);
  out[9] = Log10Bytes(member < call.replica_bytes.size() ? call.replica_bytes[member] : 0.0);
  out[10] = static_cast<float>(std::log2(std::max(1, group)));
  out[11] = static_cast<float>(members_per_host.size());
  out[12] = static_cast<float>(min_members);
  // Which share of a host's local ranks the group covers: on hosts whose GPUs talk across CPU
  // sockets, a group spanning them runs at the socket link's speed.
  out[13] = max_local < 0 ? 0.0f : static_cast<float>(max_local - min_local + 1) / local;
  out[14] = static_cast<float>(std::log2(std::max(1, topology.num_devices())));
  out[15] = static_cast<float>(std::min(local, topology.num_devices()));
}

bool CollectiveCallIsFree(const CollectiveCall& call, size_t member) {
  const bool replica = member < call.replica_bytes.size() && call.replica_bytes[member] > 0.0;
  return call.peers.size() <= 1 && !replica;
}

absl::StatusOr<NeuralCollectiveModel> NeuralCollectiveModel::Create(FeatureNormalizer normalizer,
                                                                    Mlp mlp) {
  if (mlp.input_size() != kNumCollectiveCallFeatures || mlp.output_size() != 1 ||
      mlp.relu_on_output() || normalizer.size() != kNumCollectiveCallFeatures) {
    return absl::InvalidArgumentError(
        absl::StrCat("collective model: MLP ", mlp.input_size(), "->", mlp.output_size(),
                     mlp.relu_on_output() ? " with" : " without", " output ReLU and ",
                     normalizer.size(), " normaliser entries; need ", kNumCollectiveCallFeatures,
                     "->1 without, and ", kNumCollectiveCallFeatures, " entries"));
  }
  return NeuralCollectiveModel(std::move(normalizer), std::move(mlp));
}

NeuralCollectiveModel::NeuralCollectiveModel(FeatureNormalizer normalizer, Mlp mlp)
    : normalizer_(std::move(normalizer)), mlp_(std::move(mlp)) {}

double NeuralCollectiveModel::PredictMemberMs(std::span<const float> raw_features) const {
  thread_local std::vector<float> scratch;
  if (scratch.size() < mlp_.scratch_size()) scratch.resize(mlp_.scratch_size());
  std::array<float, kNumCollectiveCallFeatures> in{};
  std::copy_n(raw_features.begin(),
              std::min<size_t>(raw_features.size(), kNumCollectiveCallFeatures), in.begin());
  normalizer_.Apply(in);
  float log_ms = 0.0f;
  mlp_.Forward(in.data(), 1, &log_ms, scratch);
  return std::exp(static_cast<double>(log_ms));
}

CollectiveCosts NeuralCollectiveModel::Predict(const Topology& topology,
                                               std::span<const CollectiveDemand> demands) const {
  const int n = topology.num_devices();
  CollectiveCosts costs{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
  std::array<float, kNumCollectiveCallFeatures> features;
  for (const CollectiveCall& call : FuseCollectiveCalls(demands)) {
    std::vector<double>& pass = call.pass == Pass::kForward ? costs.forward_ms : costs.backward_ms;
    for (size_t i = 0; i < call.peers.size(); ++i) {
      const int32_t device = call.peers[i];
      if (device < 0 || device >= n || CollectiveCallIsFree(call, i)) continue;
      CollectiveCallFeatures(call, i, topology, features);
      pass[device] += PredictMemberMs(features);
    }
  }
  return costs;
}

}  // namespace shardplan
