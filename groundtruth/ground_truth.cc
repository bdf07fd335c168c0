#include "groundtruth/ground_truth.h"

#include <algorithm>
#include <limits>
#include <span>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "groundtruth/shard_kernels.h"
#include "planner/domain/cost_model.h"
#include "planner/domain/evaluation.h"

namespace shardplan {
namespace {

// Answers planner cost queries by measuring on a backend, so that ground truth goes through the
// very formula (and shard collection) the planner's evaluation uses instead of a copy of it.
// Not a real CostModel: it is stateful (the backend, the first error) and single-threaded; it
// never leaves this file.
class BackendCostModel final : public CostModel {
 public:
  explicit BackendCostModel(HardwareBackend& backend) : backend_(backend) {}

  std::string id() const override { return backend_.hardware_profile(); }
  absl::Status CheckSupports(const Task&) const override { return absl::OkStatus(); }

  // Row-level and data-parallel shards only where the backend measures their collectives.
  bool CostsShardingType(ShardingType type) const override {
    return IsColumnLevel(type) || backend_.measures_collectives();
  }

  // Routed layouts where the backend measures the collectives their exchanges run.
  bool CostsRowLayouts() const override { return backend_.measures_collectives(); }

  // The device's fused kernels (DeviceKernelCalls), measured one after another.
  double ComputeCost(const CostContext& context,
                     std::span<const ShardView> shards) const override {
    double total_ms = 0.0;
    for (const KernelCall& call : DeviceKernelCalls(shards, context.batch_size)) {
      absl::StatusOr<double> ms =
          context.objective == Objective::kInference
              ? backend_.MeasureForwardCompute(call.tables, call.batch_size)
              : backend_.MeasureCompute(call.tables, call.batch_size);
      if (!ms.ok()) return Fail(ms.status());
      total_ms += *ms;
    }
    return total_ms;
  }

  CollectiveCosts CostCollectives(const CostContext& context,
                                  std::span<const CollectiveDemand> demands) const override {
    absl::StatusOr<CollectiveCosts> measured =
        context.topology == nullptr
            ? absl::InvalidArgumentError("collectives need the task's topology")
            : backend_.MeasureCollectives(*context.topology, demands);
    if (!measured.ok()) {
      const size_t n = context.topology != nullptr ? context.topology->num_devices() : 0;
      const double failed = Fail(measured.status());
      return CollectiveCosts{std::vector<double>(n, failed), std::vector<double>(n, failed)};
    }
    return *std::move(measured);
  }

  std::vector<double> BackwardCommCosts(const CostContext& context,
                                        std::span<const int64_t> dim_sums) const override {
    const std::vector<double> zeros(dim_sums.size(), 0.0);
    return Comm(context, dim_sums, zeros, &CommMeasurement::backward_ms);
  }

  std::vector<double> ForwardCommCosts(const CostContext& context,
                                       std::span<const int64_t> dim_sums,
                                       std::span<const double> waits) const override {
    return Comm(context, dim_sums, waits, &CommMeasurement::forward_ms);
  }

  const absl::Status& status() const { return status_; }
  bool comm_measured() const { return comm_measured_; }

 private:
  // Keeps the first error; the NaN it returns makes the evaluation fail too.
  double Fail(const absl::Status& status) const {
    if (status_.ok()) status_ = status;
    return std::numeric_limits<double>::quiet_NaN();
  }

  std::vector<double> Comm(const CostContext& context, std::span<const int64_t> dim_sums,
                           std::span<const double> offsets,
                           std::vector<double> CommMeasurement::*direction) const {
    // Without TABLE_WISE or COLUMN_WISE shards there are no pooled outputs to exchange.
    if (std::all_of(dim_sums.begin(), dim_sums.end(), [](int64_t dims) { return dims == 0; })) {
      return std::vector<double>(dim_sums.size(), 0.0);
    }
    absl::StatusOr<CommMeasurement> measured =
        backend_.MeasureComm(context.topology, dim_sums, offsets, context.batch_size);
    if (absl::IsUnimplemented(measured.status())) {
      // No interconnect (cpu): compute-only cost, flagged so reports can label it.
      comm_measured_ = false;
      return std::vector<double>(dim_sums.size(), 0.0);
    }
    if (!measured.ok()) {
      return std::vector<double>(dim_sums.size(), Fail(measured.status()));
    }
    return std::move(*measured).*direction;
  }

  HardwareBackend& backend_;
  mutable absl::Status status_;
  mutable bool comm_measured_ = true;
};

HardwarePlanCost FromPlacementCost(PlacementCost cost, bool comm_measured) {
  return HardwarePlanCost{.compute_ms = std::move(cost.compute_ms),
                          .backward_comm_ms = std::move(cost.backward_comm_ms),
                          .forward_comm_ms = std::move(cost.forward_comm_ms),
                          .total_ms = std::move(cost.total_ms),
                          .cost_ms = cost.cost_ms,
                          .bottleneck_device = cost.bottleneck_device,
                          .comm_measured = comm_measured};
}

}  // namespace

absl::StatusOr<HardwarePlanCost> ScorePlacementOnHardware(
    const std::vector<std::vector<Table>>& tables_per_device, int64_t batch_size,
    HardwareBackend& backend) {
  std::vector<std::vector<ShardView>> shards(tables_per_device.size());
  for (size_t d = 0; d < tables_per_device.size(); ++d) {
    for (const Table& table : tables_per_device[d]) {
      shards[d].push_back(ShardView{.table = &table, .rows = table.rows, .columns = table.dim});
    }
  }
  const BackendCostModel model(backend);
  CostContext context;
  context.batch_size = batch_size;
  PlacementCost cost = CostOfPlacement(model, context, shards);
  if (!model.status().ok()) return model.status();
  return FromPlacementCost(std::move(cost), model.comm_measured());
}

absl::Status EvaluatePlanOnHardware(const Task& task, HardwareBackend& backend, Plan& plan,
                                    bool* comm_measured) {
  const BackendCostModel model(backend);
  const absl::Status evaluated = EvaluatePlan(task, model, plan);
  // The backend's error explains a NaN better than the evaluation's "non-finite cost".
  if (!model.status().ok()) return model.status();
  if (!evaluated.ok()) return evaluated;
  if (comm_measured != nullptr) *comm_measured = model.comm_measured();
  plan.cost_model = backend.hardware_profile();
  plan.cost_kind = "ground_truth";
  return absl::OkStatus();
}

absl::StatusOr<HardwarePlanCost> ScorePlanOnHardware(const Task& task, const Plan& plan,
                                                     HardwareBackend& backend) {
  Plan scored;
  scored.tables = plan.tables;
  bool comm_measured = true;
  if (absl::Status evaluated = EvaluatePlanOnHardware(task, backend, scored, &comm_measured);
      !evaluated.ok()) {
    return evaluated;
  }
  PlacementCost cost;
  for (const DeviceCost& device : scored.devices) {
    cost.compute_ms.push_back(device.compute_ms);
    cost.backward_comm_ms.push_back(device.backward_comm_ms);
    cost.forward_comm_ms.push_back(device.forward_comm_ms);
    cost.total_ms.push_back(device.total_ms);
  }
  cost.cost_ms = scored.cost_ms;
  cost.bottleneck_device = scored.bottleneck_device;
  return FromPlacementCost(std::move(cost), comm_measured);
}

}  // namespace shardplan
