#include "planner/domain/task.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace shardplan {

bool IsCanonical(const Task& task) {
  const auto by_name = [](const Table& a, const Table& b) { return a.name < b.name; };
  if (!std::is_sorted(task.tables.begin(), task.tables.end(), by_name)) return false;
  for (const std::vector<std::string>& group : task.colocate) {
    if (!std::is_sorted(group.begin(), group.end())) return false;
  }
  return std::is_sorted(task.colocate.begin(), task.colocate.end());
}

Task CanonicalTask(Task task) {
  std::stable_sort(task.tables.begin(), task.tables.end(),
                   [](const Table& a, const Table& b) { return a.name < b.name; });
  for (std::vector<std::string>& group : task.colocate) std::sort(group.begin(), group.end());
  std::sort(task.colocate.begin(), task.colocate.end());
  return task;
}

const char* ObjectiveName(Objective objective) {
  switch (objective) {
    case Objective::kTraining:
      return "TRAINING";
    case Objective::kInference:
      return "INFERENCE";
  }
  return "OBJECTIVE_UNSPECIFIED";
}

double ReplicationBudget::BytesOn(int64_t capacity_bytes) const {
  if (capacity_fraction) return *capacity_fraction * static_cast<double>(capacity_bytes);
  return static_cast<double>(extra_bytes_per_device.value_or(0));
}

int64_t LocalBatchSize(const Task& task) {
  return std::max<int64_t>(1, task.batch_size / std::max(1, task.topology.num_devices()));
}

absl::Status ValidateReplicationBudget(const ReplicationBudget& budget) {
  if (budget.extra_bytes_per_device && budget.capacity_fraction) {
    return absl::InvalidArgumentError(
        "replication_budget: set extra_gib_per_device or capacity_fraction, not both");
  }
  if (budget.capacity_fraction &&
      !(*budget.capacity_fraction >= 0 && *budget.capacity_fraction <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("replication_budget.capacity_fraction: must be a fraction in [0, 1], got ",
                     *budget.capacity_fraction));
  }
  return absl::OkStatus();
}

}  // namespace shardplan
