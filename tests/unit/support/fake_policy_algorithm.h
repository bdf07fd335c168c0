#ifndef SHARDPLAN_TESTS_UNIT_SUPPORT_FAKE_POLICY_ALGORITHM_H_
#define SHARDPLAN_TESTS_UNIT_SUPPORT_FAKE_POLICY_ALGORITHM_H_

// A tiny algorithm that plans with a trained policy, for the tests of what serves policies
// (registry, loader, engine, service) without a real learned planner: its policy is one tensor
// "shift" of shape [1], and it places table i (canonical order) table-wise on device
// (i + shift) mod devices, so two policy contents give two plans.

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "planner/domain/plan.h"
#include "planner/domain/policy.h"
#include "planner/framework/algorithm.h"

namespace shardplan::test_support {

inline constexpr char kFakePolicyAlgorithm[] = "fake_policy";
inline constexpr char kFakePolicyArchitecture[] = "fake-1";

class FakePolicyAlgorithm final : public Algorithm {
 public:
  explicit FakePolicyAlgorithm(std::string name = kFakePolicyAlgorithm) {
    info_.name = std::move(name);
    info_.description = "places table i on device i + shift (tests only)";
    info_.params = {PolicyParamSpec()};
    info_.sharding_types = {ShardingType::kTableWise};
    info_.uses_policy = true;
  }

  const AlgorithmInfo& info() const override { return info_; }

  absl::Status CheckPolicy(const Policy& policy) const override {
    if (policy.architecture != kFakePolicyArchitecture) {
      return absl::FailedPreconditionError(absl::StrCat("policy ", policy.id(), ": architecture \"",
                                                        policy.architecture, "\" is not ",
                                                        kFakePolicyArchitecture));
    }
    const auto shift = policy.tensors.find("shift");
    if (shift == policy.tensors.end() || shift->second.shape != std::vector<uint32_t>{1} ||
        shift->second.data.size() != 1) {
      return absl::FailedPreconditionError(
          absl::StrCat("policy ", policy.id(), ": tensor \"shift\" of shape [1] is missing"));
    }
    return absl::OkStatus();
  }

  // Runs at the start of every Run: a test holds the job worker there (e.g. on a latch).
  void set_before_run(std::function<void()> before_run) { before_run_ = std::move(before_run); }

  absl::StatusOr<Plan> Run(const Task& task, const PlanningContext& context) const override {
    if (before_run_) before_run_();
    if (context.policy == nullptr) return absl::InternalError("no policy");
    const int devices = task.topology.num_devices();
    const int shift = static_cast<int>(std::lround(context.policy->tensors.at("shift").data[0]));
    std::vector<int32_t> device_of_table;
    for (size_t i = 0; i < task.tables.size(); ++i) {
      device_of_table.push_back(static_cast<int32_t>((static_cast<int>(i) + shift) % devices));
    }
    return TableWisePlan(task, device_of_table);
  }

 private:
  AlgorithmInfo info_;
  std::function<void()> before_run_;
};

// A policy FakePolicyAlgorithm runs: name@version of `algorithm`, trained on `hardware`.
inline Policy MakeFakePolicy(const std::string& name, const std::string& version, int shift,
                             const std::string& hardware = "sim-test",
                             const std::string& algorithm = kFakePolicyAlgorithm) {
  Policy policy;
  policy.name = name;
  policy.version = version;
  policy.algorithm = algorithm;
  policy.architecture = kFakePolicyArchitecture;
  policy.hardware_profile = hardware;
  policy.tensors["shift"] = PolicyTensor{{1}, {static_cast<float>(shift)}};
  policy.content_sha256 = absl::StrCat("content-", name, "-", version, "-", shift);
  return policy;
}

}  // namespace shardplan::test_support

#endif  // SHARDPLAN_TESTS_UNIT_SUPPORT_FAKE_POLICY_ALGORITHM_H_
