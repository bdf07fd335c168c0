#include "groundtruth/sim/sim_backend.h"

#include <cmath>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "groundtruth/sim/collective_model.h"
#include "groundtruth/sim/comm_model.h"
#include "groundtruth/sim/compute_model.h"

namespace shardplan {

SimBackend::SimBackend(HardwareProfile profile, int num_devices, SimOptions options)
    : profile_(std::move(profile)),
      num_devices_(num_devices),
      noise_(options.noise_sigma, options.seed) {}

std::string SimBackend::hardware_profile() const { return absl::StrCat("sim-", profile_.name); }

void SimBackend::BeginSample(int64_t sample_id) {
  // 2^24 measurements per sample before two samples' streams could meet.
  calls_ = static_cast<uint64_t>(sample_id) << 24;
}

absl::StatusOr<double> SimBackend::MeasureCompute(std::span<const Table> tables,
                                                  int64_t batch_size) {
  SHARDPLAN_ASSIGN_OR_RETURN(ComputeBreakdown compute, Simulate(tables, batch_size));
  return compute.total_ms() * noise_.Factor(calls_++, 0);
}

absl::StatusOr<double> SimBackend::MeasureForwardCompute(std::span<const Table> tables,
                                                         int64_t batch_size) {
  SHARDPLAN_ASSIGN_OR_RETURN(ComputeBreakdown compute, Simulate(tables, batch_size));
  return compute.forward_ms * noise_.Factor(calls_++, 0);
}

absl::StatusOr<ComputeBreakdown> SimBackend::Simulate(std::span<const Table> tables,
                                                      int64_t batch_size) const {
  if (batch_size < 0) {
    return absl::InvalidArgumentError(absl::StrCat("batch_size must be >= 0, got ", batch_size));
  }
  for (size_t i = 0; i < tables.size(); ++i) {
    const Table& t = tables[i];
    if (t.dim < 1 || t.rows < 1 || !(t.pooling_factor >= 0.0) || !std::isfinite(t.pooling_factor)) {
      return absl::InvalidArgumentError(
          absl::StrCat("tables[", i, "] (", t.name,
                       "): needs dim >= 1, rows >= 1 and a finite pooling factor >= 0; got dim ",
                       t.dim, ", rows ", t.rows, ", pooling factor ", t.pooling_factor));
    }
  }
  return SimulateCompute(profile_, tables, batch_size);
}

absl::StatusOr<CommMeasurement> SimBackend::MeasureComm(const Topology* topology,
                                                        std::span<const int64_t> dim_sums,
                                                        std::span<const double> start_offsets_ms,
                                                        int64_t batch_size) {
  SHARDPLAN_RETURN_IF_ERROR(CheckTopology(topology));
  if (static_cast<int>(dim_sums.size()) != num_devices_ ||
      static_cast<int>(start_offsets_ms.size()) != num_devices_) {
    return absl::InvalidArgumentError(
        absl::StrCat("dim_sums and start_offsets_ms need one entry per device (", num_devices_,
                     "), got ", dim_sums.size(), " and ", start_offsets_ms.size()));
  }
  if (batch_size < 0) {
    return absl::InvalidArgumentError(absl::StrCat("batch_size must be >= 0, got ", batch_size));
  }
  for (size_t d = 0; d < dim_sums.size(); ++d) {
    if (dim_sums[d] < 0 || !(start_offsets_ms[d] >= 0.0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("device ", d, ": dim sum and start offset must be >= 0, got ", dim_sums[d],
                       " and ", start_offsets_ms[d]));
    }
  }
  CommMeasurement comm = SimulateComm(
      profile_, topology != nullptr ? *topology : ProfileTopology(profile_, num_devices_), dim_sums,
      start_offsets_ms, batch_size);
  const uint64_t call = calls_++;
  for (int d = 0; d < num_devices_; ++d) {
    // The forward time's wait is not a measurement; only the transfer part is noisy.
    const double wait = comm.forward_ms[d] - comm.backward_ms[d];
    comm.forward_ms[d] = wait + (comm.forward_ms[d] - wait) * noise_.Factor(call, 2 * d);
    comm.backward_ms[d] *= noise_.Factor(call, 2 * d + 1);
  }
  return comm;
}

absl::StatusOr<CollectiveCosts> SimBackend::MeasureCollectives(
    const Topology& topology, std::span<const CollectiveDemand> demands) {
  SHARDPLAN_RETURN_IF_ERROR(CheckTopology(&topology));
  for (size_t i = 0; i < demands.size(); ++i) {
    const CollectiveDemand& demand = demands[i];
    if (demand.peers.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("demands[", i, "].peers: empty"));
    }
    std::vector<bool> is_peer(static_cast<size_t>(num_devices_), false);
    for (int32_t peer : demand.peers) {
      if (peer < 0 || peer >= num_devices_ || is_peer[peer]) {
        return absl::InvalidArgumentError(absl::StrCat("demands[", i, "].peers: device ", peer,
                                                       " is repeated or not among the ",
                                                       num_devices_, " devices"));
      }
      is_peer[peer] = true;
    }
    for (int32_t device : demand.devices) {
      if (device < 0 || device >= num_devices_ || !is_peer[device]) {
        return absl::InvalidArgumentError(absl::StrCat("demands[", i, "].devices: device ", device,
                                                       " is not among the demand's peers"));
      }
    }
    for (size_t j = 0; j < demand.pairs.size(); ++j) {
      const PairBytes& pair = demand.pairs[j];
      if (pair.from < 0 || pair.from >= num_devices_ || !is_peer[pair.from] || pair.to < 0 ||
          pair.to >= num_devices_ || !is_peer[pair.to]) {
        return absl::InvalidArgumentError(
            absl::StrCat("demands[", i, "].pairs[", j, "]: devices ", pair.from, " -> ", pair.to,
                         " are not both among the demand's peers"));
      }
      if (!(pair.bytes >= 0.0) || !std::isfinite(pair.bytes)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "demands[", i, "].pairs[", j, "].bytes: must be finite and >= 0, got ", pair.bytes));
      }
    }
    if (!demand.pairs.empty() && demand.collective != Collective::kAllToAll) {
      return absl::InvalidArgumentError(absl::StrCat(
          "demands[", i, "].pairs: only an all-to-all is routed, not a ",
          CollectiveName(demand.collective)));
    }
    if (!(demand.bytes >= 0.0) || !std::isfinite(demand.bytes)) {
      return absl::InvalidArgumentError(
          absl::StrCat("demands[", i, "].bytes: must be finite and >= 0, got ", demand.bytes));
    }
  }
  CollectiveCosts costs = SimulateCollectives(profile_, topology, demands);
  const uint64_t call = calls_++;
  for (int d = 0; d < num_devices_; ++d) {
    costs.forward_ms[d] *= noise_.Factor(call, 2 * d);
    costs.backward_ms[d] *= noise_.Factor(call, 2 * d + 1);
  }
  return costs;
}

absl::Status SimBackend::CheckTopology(const Topology* topology) const {
  if (topology != nullptr && topology->num_devices() != num_devices_) {
    return absl::InvalidArgumentError(absl::StrCat("topology: has ", topology->num_devices(),
                                                   " devices, the simulator was built for ",
                                                   num_devices_));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<HardwareBackend>> MakeSimBackend(const std::string& profile,
                                                                int num_devices,
                                                                SimOptions options) {
  SHARDPLAN_ASSIGN_OR_RETURN(HardwareProfile found, FindHardwareProfile(profile));
  if (num_devices < 1) {
    return absl::InvalidArgumentError(absl::StrCat("num_devices must be >= 1, got ", num_devices));
  }
  if (!(options.noise_sigma >= 0.0) || !std::isfinite(options.noise_sigma)) {
    return absl::InvalidArgumentError(
        absl::StrCat("noise sigma must be finite and >= 0, got ", options.noise_sigma));
  }
  return std::make_unique<SimBackend>(std::move(found), num_devices, options);
}

}  // namespace shardplan
