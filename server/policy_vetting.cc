#include "server/policy_vetting.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "costmodels/analytic/analytic_cost_model.h"
#include "planner/domain/task.h"
#include "planner/framework/plan_task.h"

namespace shardplan {
namespace {

constexpr char kBaselineAlgorithm[] = "size_lookup_greedy";
constexpr int kSanityTables = 32;
constexpr int kSanityDevices = 8;
constexpr int kSanityDevicesPerHost = 4;
constexpr int64_t kGiB = int64_t{1} << 30;

// 32 tables whose sizes and pooling factors vary over two orders of magnitude, as a real
// model's do, all of which fit on any one device: a policy is judged on balance, not on fit.
Task SanityTask() {
  Task task;
  for (int i = 0; i < kSanityTables; ++i) {
    Table table;
    table.name = absl::StrCat("sanity_", i);
    table.rows = int64_t{10000} * (1 + (i * 7) % 97);
    table.dim = 16 * (1 + i % 4);
    table.pooling_factor = 1.0 + (i * 13) % 40;
    task.tables.push_back(table);
  }
  task.topology.memory_bytes.assign(kSanityDevices, 16 * kGiB);
  task.topology.devices_per_host = kSanityDevicesPerHost;
  return task;
}

}  // namespace

absl::Status VetPolicy(const Policy& policy, const AlgorithmRegistry& algorithms) {
  absl::StatusOr<const Algorithm*> algorithm = algorithms.Find(policy.algorithm);
  if (!algorithm.ok()) return algorithm.status();
  absl::StatusOr<const Algorithm*> baseline = algorithms.Find(kBaselineAlgorithm);
  if (!baseline.ok()) return baseline.status();
  const Task task = SanityTask();
  const AnalyticCostModel model;
  const std::string context =
      absl::StrCat("policy ", policy.id(), ": vetted on a sanity task of ", kSanityTables,
                   " tables on ", kSanityDevices, " devices under ", model.id());
  absl::StatusOr<Plan> planned = PlanTask(**algorithm, task, model, {.policy = &policy});
  if (!planned.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat(context, ", it did not plan: ", planned.status().message()));
  }
  absl::StatusOr<Plan> greedy = PlanTask(**baseline, task, model, {});
  if (!greedy.ok()) return greedy.status();
  if (planned->cost_ms <= kMaxVettedCostRatio * greedy->cost_ms) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrFormat(
      "%s, its plan costs %.1f ms against %s's %.1f ms (%.1fx, at most %.1fx): its weights plan "
      "absurdly; it is not served",
      context, planned->cost_ms, kBaselineAlgorithm, greedy->cost_ms,
      planned->cost_ms / greedy->cost_ms, kMaxVettedCostRatio));
}

std::function<absl::Status(const Policy&)> ServedPolicyCheck(const AlgorithmRegistry* algorithms) {
  return [algorithms](const Policy& policy) {
    if (absl::Status runnable = algorithms->CheckPolicy(policy); !runnable.ok()) return runnable;
    return VetPolicy(policy, *algorithms);
  };
}

}  // namespace shardplan
