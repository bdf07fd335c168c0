#include "costmodels/neural/device_set_comm_model.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"

namespace shardplan {
namespace {

constexpr int kPerDevice = 4;  // send_intra, recv_intra, send_inter, recv_inter

std::vector<float>& ThreadScratch() {
  thread_local std::vector<float> scratch;
  return scratch;
}

}  // namespace

DeviceLayout DeviceLayout::Of(int devices, int devices_per_host) {
  return {devices,
          devices_per_host <= 0 || devices_per_host >= devices ? devices : devices_per_host};
}

std::string DeviceLayout::name() const { return absl::StrCat(devices, "x", devices_per_host); }

std::vector<std::string> DeviceSetCommInputNames(CommDirection direction) {
  std::vector<std::string> names = {"send_intra",     "recv_intra",       "send_inter",
                                    "recv_inter",     "received",         "max_send_intra",
                                    "max_recv_intra", "max_send_inter",   "max_recv_inter",
                                    "log2_devices",   "devices_per_host", "hosts"};
  if (direction == CommDirection::kForward) names.push_back("wait_gap");
  return names;
}

int DeviceSetCommNumInputs(CommDirection direction) {
  return direction == CommDirection::kForward ? 13 : 12;
}

void AppendDeviceSetCommFeatures(CommDirection direction, std::span<const int64_t> dim_sums,
                                 std::span<const double> waits, int devices_per_host,
                                 double volume_scale, std::vector<float>& rows) {
  const int n = static_cast<int>(dim_sums.size());
  if (n == 0) return;
  const DeviceLayout layout = DeviceLayout::Of(n, devices_per_host);
  const int per_host = layout.devices_per_host;
  const int hosts = layout.hosts();
  // Integer sums: exact, so the features do not depend on the order devices are numbered in.
  // Per-thread buffers: a search calls this thousands of times and should not allocate.
  thread_local std::vector<int64_t> host_sum;
  thread_local std::vector<double> own;
  host_sum.assign(hosts, 0);
  int64_t total = 0;
  for (int d = 0; d < n; ++d) {
    const int64_t x = std::max<int64_t>(dim_sums[d], 0);
    host_sum[d / per_host] += x;
    total += x;
  }
  double latest = 0.0;
  if (direction == CommDirection::kForward) {
    for (int d = 0; d < n && d < static_cast<int>(waits.size()); ++d) {
      latest = std::max(latest, waits[d]);
    }
  }
  const double scale = volume_scale / n;
  own.assign(static_cast<size_t>(n) * kPerDevice, 0.0);
  double max_own[kPerDevice] = {0.0, 0.0, 0.0, 0.0};
  for (int d = 0; d < n; ++d) {
    const int host = d / per_host;
    const int on_host = std::min(per_host, n - host * per_host);
    const double x = static_cast<double>(std::max<int64_t>(dim_sums[d], 0));
    const double h = static_cast<double>(host_sum[host]);
    double* f = &own[static_cast<size_t>(d) * kPerDevice];
    f[0] = x * (on_host - 1) * scale;
    f[1] = (h - x) * scale;
    f[2] = x * (n - on_host) * scale;
    f[3] = (static_cast<double>(total) - h) * scale;
    for (int k = 0; k < kPerDevice; ++k) max_own[k] = std::max(max_own[k], f[k]);
  }
  const int width = DeviceSetCommNumInputs(direction);
  const size_t start = rows.size();
  rows.resize(start + static_cast<size_t>(n) * width);
  for (int d = 0; d < n; ++d) {
    float* row = rows.data() + start + static_cast<size_t>(d) * width;
    const double* f = &own[static_cast<size_t>(d) * kPerDevice];
    for (int k = 0; k < kPerDevice; ++k) row[k] = static_cast<float>(f[k]);
    row[4] = static_cast<float>(static_cast<double>(total) * scale);
    for (int k = 0; k < kPerDevice; ++k) row[5 + k] = static_cast<float>(max_own[k]);
    row[9] = static_cast<float>(std::log2(static_cast<double>(n)));
    row[10] = static_cast<float>(per_host);
    row[11] = static_cast<float>(hosts);
    if (direction == CommDirection::kForward) {
      const double wait = d < static_cast<int>(waits.size()) ? waits[d] : 0.0;
      row[12] = static_cast<float>(latest - wait);
    }
  }
}

absl::StatusOr<DeviceSetCommModel> DeviceSetCommModel::Create(CommDirection direction,
                                                              FeatureNormalizer normalizer, Mlp mlp,
                                                              int64_t trained_batch_size) {
  const char* which = direction == CommDirection::kForward ? "forward" : "backward";
  const int inputs = DeviceSetCommNumInputs(direction);
  if (mlp.input_size() != inputs || mlp.output_size() != 1 || mlp.relu_on_output() ||
      normalizer.size() != inputs) {
    return absl::InvalidArgumentError(absl::StrCat(
        which, " device-set comm model: MLP ", mlp.input_size(), "->", mlp.output_size(),
        mlp.relu_on_output() ? " with" : " without", " output ReLU and ", normalizer.size(),
        " normaliser entries; need ", inputs, "->1 without, and ", inputs, " entries"));
  }
  if (trained_batch_size <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(which, " device-set comm model: batch_size ",
                                                   trained_batch_size, " is not positive"));
  }
  return DeviceSetCommModel(direction, std::move(normalizer), std::move(mlp), trained_batch_size);
}

DeviceSetCommModel::DeviceSetCommModel(CommDirection direction, FeatureNormalizer normalizer,
                                       Mlp mlp, int64_t trained_batch_size)
    : direction_(direction),
      normalizer_(std::move(normalizer)),
      mlp_(std::move(mlp)),
      trained_batch_size_(trained_batch_size) {}

std::vector<double> DeviceSetCommModel::Predict(std::span<const int64_t> dim_sums,
                                                std::span<const double> waits, int devices_per_host,
                                                int64_t batch_size) const {
  const size_t n = dim_sums.size();
  const size_t width = static_cast<size_t>(mlp_.input_size());
  std::vector<float>& rows = ThreadScratch();
  rows.clear();
  AppendDeviceSetCommFeatures(
      direction_, dim_sums, waits, devices_per_host,
      static_cast<double>(batch_size) / static_cast<double>(trained_batch_size_), rows);
  for (size_t d = 0; d < n; ++d)
    normalizer_.Apply(std::span<float>(rows.data() + d * width, width));
  const size_t features = rows.size();
  rows.resize(features + n + mlp_.scratch_size());
  float* out = rows.data() + features;
  mlp_.Forward(rows.data(), static_cast<int>(n), out,
               std::span<float>(out + n, mlp_.scratch_size()));
  return std::vector<double>(out, out + n);
}

}  // namespace shardplan
