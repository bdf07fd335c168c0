#ifndef SHARDPLAN_COSTMODELS_ARTIFACTS_POLICY_BUNDLE_H_
#define SHARDPLAN_COSTMODELS_ARTIFACTS_POLICY_BUNDLE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "planner/domain/policy.h"

namespace shardplan {

// A trained placement policy on disk (docs/policies.md), beside the cost-model bundles under
// the models root and versioned the same way:
//
//   <models root>/<name>/<version>/
//     manifest.json    "kind": "policy", format version, identity, the algorithm and
//                      architecture, hardware profile, constants, hyperparameters, training
//                      summary (data and its SHA-256, seed, the training curve), the weights'
//                      SHA-256
//     policy.weights   the tensors (weights_file.h)
//
// Written atomically like model bundles (hidden temporary directory, fsync, rename); versions
// are immutable.

inline constexpr int kPolicyBundleFormatVersion = 1;

// One point of the training curve: after `episodes` training episodes, the mean of the
// training metric over the episodes since the previous point.
struct PolicyCurvePoint {
  int64_t episodes = 0;
  double value = 0.0;
};

// How a policy was trained, for the manifest.
struct PolicyTraining {
  std::string data;         // what it was trained on, in words: tasks, their generator and seed
  std::string data_sha256;  // hex SHA-256 of the training tasks (their canonical encoding)
  int64_t tasks = 0;        // training tasks
  int64_t episodes = 0;     // episodes run (placements measured or predicted)
  int64_t updates = 0;      // optimiser steps on the policy
  double wall_seconds = 0.0;
  std::string curve_metric;             // e.g. "degree of balance (measured, sim-rtx2080ti)"
  std::vector<PolicyCurvePoint> curve;  // at most a few hundred points
};

// Everything in a policy manifest that is not a tensor or a constant (those are the Policy's).
struct PolicyBundleInfo {
  std::string description;
  std::string created;  // RFC 3339 UTC; WritePolicyBundle fills it when empty
  uint64_t seed = 0;    // the trainer's seed
  std::map<std::string, std::string> hyperparameters;  // e.g. "learning_rate" -> "0.001"
  PolicyTraining training;
};

// A policy bundle read back and verified.
struct LoadedPolicy {
  PolicyBundleInfo info;
  std::shared_ptr<const Policy> policy;  // content_sha256 = the manifest's SHA-256
  std::string directory;
};

// Writes `policy` (name, version, algorithm, architecture, hardware profile, tensors,
// constants) with `info` to <models_root>/<name>/<version>/ atomically. INVALID_ARGUMENT for a
// bad name or version, an empty algorithm or architecture, a tensor whose data does not match
// its shape, a non-finite constant (naming which); ALREADY_EXISTS when that version exists;
// INTERNAL naming the path and step for an I/O failure, leaving no partial bundle.
absl::Status WritePolicyBundle(const std::string& models_root, const PolicyBundleInfo& info,
                               const Policy& policy);

// Reads and verifies the policy bundle in `directory`: manifest kind "policy" and format
// version kPolicyBundleFormatVersion, name and version equal to the last two path components,
// the weights file's SHA-256 and parse. Does not check the tensors against an algorithm (the
// loader asks Algorithm::CheckPolicy). FAILED_PRECONDITION (corrupt or incompatible) or
// NOT_FOUND (no manifest), naming the file and the reason.
absl::StatusOr<LoadedPolicy> ReadPolicyBundle(const std::string& directory);

}  // namespace shardplan

#endif  // SHARDPLAN_COSTMODELS_ARTIFACTS_POLICY_BUNDLE_H_
