#include "bench/oper_exact/exact_check.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "planner/algorithms/oper/oper_layout.h"
#include "planner/domain/validation.h"

namespace shardplan::oper_exact {
namespace {

absl::Status ValidateLayout(const ExactInstance& instance, const oper::Copies& copies) {
  Plan plan;
  plan.tables =
      oper::OperShardings(instance.tables, instance.partitions, copies, instance.task.topology);
  absl::Status valid = ValidatePlan(instance.task, plan);
  if (!valid.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the solution's plan does not validate: ", valid.message()));
  }
  return absl::OkStatus();
}

absl::Status CheckOwners(const ExactInstance& instance, const std::vector<int32_t>& owner,
                         const std::vector<int64_t>& extra) {
  if (owner.size() != instance.partitions.size()) {
    return absl::FailedPreconditionError(absl::StrCat("owner: ", owner.size(), " entries for ",
                                                      instance.partitions.size(), " partitions"));
  }
  std::vector<int64_t> used = extra;
  for (size_t p = 0; p < owner.size(); ++p) {
    if (owner[p] < 0 || owner[p] >= instance.devices()) {
      return absl::FailedPreconditionError(
          absl::StrCat("partition ", p, " is on device ", owner[p]));
    }
    used[owner[p]] += instance.partitions[p].bytes;
  }
  for (int d = 0; d < instance.devices(); ++d) {
    if (used[d] > instance.capacities()[d]) {
      return absl::FailedPreconditionError(absl::StrCat(
          "device ", d, " holds ", used[d], " bytes, its capacity is ", instance.capacities()[d]));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckPlacement(const ExactInstance& instance, const std::vector<int32_t>& owner) {
  SHARDPLAN_RETURN_IF_ERROR(
      CheckOwners(instance, owner, std::vector<int64_t>(instance.devices(), 0)));
  return ValidateLayout(instance, oper::OwnersOnly(owner, instance.devices()));
}

absl::StatusOr<double> CheckCopies(const ExactInstance& instance, const oper::Copies& copies,
                                   const std::vector<int64_t>& spare) {
  const int devices = instance.devices();
  if (copies.devices.size() != instance.partitions.size() ||
      copies.path.size() != instance.partitions.size()) {
    return absl::FailedPreconditionError("copies: not one entry per partition");
  }
  std::vector<int32_t> owner;
  std::vector<int64_t> replica_bytes(devices, 0);
  for (size_t p = 0; p < copies.devices.size(); ++p) {
    const std::vector<int32_t>& holders = copies.devices[p];
    if (holders.empty())
      return absl::FailedPreconditionError(absl::StrCat("partition ", p, " has no copy"));
    owner.push_back(holders.front());
    for (size_t k = 1; k < holders.size(); ++k) {
      if (holders[k] < 0 || holders[k] >= devices ||
          std::find(holders.begin(), holders.begin() + k, holders[k]) != holders.begin() + k) {
        return absl::FailedPreconditionError(absl::StrCat("partition ", p, ": replica on device ",
                                                          holders[k], " is invalid or twice"));
      }
      replica_bytes[holders[k]] += instance.partitions[p].bytes;
    }
    if (static_cast<int>(copies.path[p].size()) != devices) {
      return absl::FailedPreconditionError(
          absl::StrCat("partition ", p, ": not one path per device"));
    }
    for (int i = 0; i < devices; ++i) {
      if (std::find(holders.begin(), holders.end(), copies.path[p][i]) == holders.end()) {
        return absl::FailedPreconditionError(absl::StrCat("partition ", p, ": device ", i,
                                                          " fetches it from ", copies.path[p][i],
                                                          ", which holds no copy"));
      }
    }
  }
  for (int d = 0; d < devices; ++d) {
    if (replica_bytes[d] > spare[d]) {
      return absl::FailedPreconditionError(absl::StrCat("device ", d, "'s replicas take ",
                                                        replica_bytes[d],
                                                        " bytes, its spare memory is ", spare[d]));
    }
  }
  SHARDPLAN_RETURN_IF_ERROR(CheckOwners(instance, owner, replica_bytes));
  SHARDPLAN_RETURN_IF_ERROR(ValidateLayout(instance, copies));
  return oper::OffDiagonalTotal(
      oper::CommunicationMatrix(instance.partitions, copies, instance.cost));
}

}  // namespace shardplan::oper_exact
