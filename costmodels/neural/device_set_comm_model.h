#ifndef SHARDPLAN_COSTMODELS_NEURAL_DEVICE_SET_COMM_MODEL_H_
#define SHARDPLAN_COSTMODELS_NEURAL_DEVICE_SET_COMM_MODEL_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "costmodels/neural/table_features.h"
#include "nn/mlp.h"

namespace shardplan {

// The per-device inputs of a DeviceSetCommModel, computed the same way for every device from the
// all-to-all of the pooled embeddings (docs/cost-models.md, "Comm models for any device count").
// Volumes are in dim units (a device's bytes are batch * 4 * dim), scaled by batch_size /
// trained_batch_size:
//
//   send_intra[d] = x[d] * (L[d] - 1) / N     bytes d sends to its host's other devices
//   recv_intra[d] = (H[d] - x[d]) / N         bytes it receives from them
//   send_inter[d] = x[d] * (N - L[d]) / N     bytes it sends off its host
//   recv_inter[d] = (T - H[d]) / N            bytes it receives from other hosts
//   received[d]   = T / N                     everything it ends up with, its own slice included
//   max_*         = the max over devices of the four above (the all-to-all ends when the
//                   busiest link is done)
//   log2_devices, devices_per_host, hosts     the layout
//   wait_gap[d]   = max waits - waits[d]      (forward only) how long d waits for the last
//
// x[d] is d's dim sum, L[d] the devices on d's host, H[d] their dim sum, T the total, N the device
// count; hosts are consecutive blocks of devices_per_host devices (Topology's convention). Sums
// are exact (integers) and maxima order-free, so renumbering the devices within a host, or
// swapping whole hosts, permutes the features and the costs bit for bit.
enum class CommDirection { kForward, kBackward };

// A host layout: `devices` devices in hosts of `devices_per_host` (the last host may hold fewer).
struct DeviceLayout {
  int devices = 0;
  int devices_per_host = 0;
  friend bool operator==(const DeviceLayout&, const DeviceLayout&) = default;
  // The layout of `devices` devices given a topology's or record's devices per host, where 0 (or
  // at least `devices`) means one host.
  static DeviceLayout Of(int devices, int devices_per_host);
  int hosts() const { return (devices + devices_per_host - 1) / devices_per_host; }
  // "16x8".
  std::string name() const;
};

std::vector<std::string> DeviceSetCommInputNames(CommDirection direction);
int DeviceSetCommNumInputs(CommDirection direction);

// Appends dim_sums.size() rows of DeviceSetCommNumInputs(direction) raw features to `rows`.
// `waits` is read by the forward direction only (missing entries count as 0);
// `devices_per_host` <= 0 or >= the device count means one host.
void AppendDeviceSetCommFeatures(CommDirection direction, std::span<const int64_t> dim_sums,
                                 std::span<const double> waits, int devices_per_host,
                                 double volume_scale, std::vector<float>& rows);

// One comm model for any device count and host layout: the same MLP maps each device's
// z-scored features to its ms (in->...->1, no output activation). Equivariant to renumbering
// devices as AppendDeviceSetCommFeatures describes. Immutable; thread-safe.
class DeviceSetCommModel {
 public:
  // INVALID_ARGUMENT unless the MLP takes DeviceSetCommNumInputs(direction) inputs and gives 1
  // output without output ReLU, the normaliser has one entry per input and
  // trained_batch_size > 0.
  static absl::StatusOr<DeviceSetCommModel> Create(CommDirection direction,
                                                   FeatureNormalizer normalizer, Mlp mlp,
                                                   int64_t trained_batch_size);

  CommDirection direction() const { return direction_; }
  const FeatureNormalizer& normalizer() const { return normalizer_; }
  const Mlp& mlp() const { return mlp_; }
  int64_t trained_batch_size() const { return trained_batch_size_; }

  // Per-device ms for a global batch of `batch_size` samples. Thread-safe.
  std::vector<double> Predict(std::span<const int64_t> dim_sums, std::span<const double> waits,
                              int devices_per_host, int64_t batch_size) const;

 private:
  DeviceSetCommModel(CommDirection direction, FeatureNormalizer normalizer, Mlp mlp,
                     int64_t trained_batch_size);

  CommDirection direction_;
  FeatureNormalizer normalizer_;
  Mlp mlp_;
  int64_t trained_batch_size_;
};

// The forward and backward device-set comm models of a bundle, and the layouts of their training
// data (empty for a bundle that does not record them).
struct DeviceSetCommModels {
  DeviceSetCommModel forward;
  DeviceSetCommModel backward;
  std::vector<DeviceLayout> trained_layouts;
};

}  // namespace shardplan

#endif  // SHARDPLAN_COSTMODELS_NEURAL_DEVICE_SET_COMM_MODEL_H_
