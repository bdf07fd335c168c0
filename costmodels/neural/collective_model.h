#ifndef SHARDPLAN_COSTMODELS_NEURAL_COLLECTIVE_MODEL_H_
#define SHARDPLAN_COSTMODELS_NEURAL_COLLECTIVE_MODEL_H_

// The learned model of the collectives that row-wise, table-row-wise and data-parallel shards
// cause (reduce-scatter, all-gather, all-reduce, cross-host all-to-all; sharding_semantics.h):
// demands are fused into calls as the simulator and TorchRec fuse them, each (call, member) is
// described by a few call features, and one small MLP predicts ln(ms) of that member's time in
// the call. A device's time is the sum over the calls it takes part in (docs/cost-models.md,
// "Learned collectives").

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "costmodels/neural/table_features.h"
#include "nn/mlp.h"
#include "planner/domain/cost_model.h"
#include "planner/domain/collective_calls.h"
#include "planner/domain/sharding_semantics.h"
#include "planner/domain/topology.h"

namespace shardplan {

// The features of one member of a call, in this order (log10 of 1 + bytes, so that calls of a
// few KB and of GBs are told apart; group sizes as log2):
inline constexpr int kNumCollectiveCallFeatures = 16;
const std::vector<std::string>& CollectiveCallFeatureNames();

// Writes the features of member `member` (an index into call.peers) of `call` on `topology`.
void CollectiveCallFeatures(const CollectiveCall& call, size_t member, const Topology& topology,
                            std::span<float, kNumCollectiveCallFeatures> out);

// Whether a member's time in `call` is zero by construction (nothing moves and nothing is
// updated: a group of one without a replica to update). The model is neither trained on nor
// asked about such members.
bool CollectiveCallIsFree(const CollectiveCall& call, size_t member);

// The MLP over call features: z-scored inputs, in -> ... -> 1 without output activation; the
// output is ln(ms), so that relative errors are what it learns across six orders of magnitude.
class NeuralCollectiveModel {
 public:
  // INVALID_ARGUMENT unless the MLP takes kNumCollectiveCallFeatures inputs and gives 1 output
  // without output ReLU, and the normaliser has kNumCollectiveCallFeatures entries.
  static absl::StatusOr<NeuralCollectiveModel> Create(FeatureNormalizer normalizer, Mlp mlp);

  const FeatureNormalizer& normalizer() const { return normalizer_; }
  const Mlp& mlp() const { return mlp_; }

  // ms one member spends in a call described by raw features (kNumCollectiveCallFeatures).
  double PredictMemberMs(std::span<const float> raw_features) const;

  // Per-device forward and backward ms of `demands` on `topology` (one entry per device; zero
  // for devices in no call). Thread-safe.
  CollectiveCosts Predict(const Topology& topology,
                          std::span<const CollectiveDemand> demands) const;

 private:
  NeuralCollectiveModel(FeatureNormalizer normalizer, Mlp mlp);

  FeatureNormalizer normalizer_;
  Mlp mlp_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_COSTMODELS_NEURAL_COLLECTIVE_MODEL_H_
