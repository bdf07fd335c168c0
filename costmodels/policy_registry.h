#ifndef SHARDPLAN_COSTMODELS_POLICY_REGISTRY_H_
#define SHARDPLAN_COSTMODELS_POLICY_REGISTRY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "costmodels/model_registry.h"
#include "planner/domain/policy.h"

namespace shardplan {

// What ListModels shows of a policy version (docs/policies.md): the Policy's identity and the
// bundle's provenance, without the tensors.
struct PolicyManifest {
  std::string name;
  std::string version;
  std::string algorithm;         // the algorithm that reads it, e.g. "autoshard"
  std::string architecture;      // e.g. "autoshard-1"
  std::string hardware_profile;  // the ground truth it was trained on, e.g. "sim-rtx2080ti"
  std::string created;           // RFC 3339; orders the server's choice
  std::string description;
  // The bundle manifest's SHA-256 (Policy::content_sha256): what tells two contents of one
  // name@version apart; part of the plan cache key.
  std::string content_sha256;
  // The training summary: tasks trained on, episodes run, the trainer's seed, and the last
  // point of the training curve (`final_metric` of `curve_metric`) when it has one.
  int64_t training_tasks = 0;
  int64_t training_episodes = 0;
  uint64_t seed = 0;
  std::string curve_metric;
  std::optional<double> final_metric;

  std::string id() const { return name + "@" + version; }
};

// A policy version ready to serve. Holding the shared_ptr keeps the version alive, so a request
// finishes on the version it resolved even if a reload replaces or removes it.
struct ResolvedPolicy {
  PolicyManifest manifest;
  std::shared_ptr<const Policy> policy;
};

// The trained policies the server serves, beside the cost models (ModelRegistry) and with the
// same thread-safety: reads run concurrently with Add/Remove (hot reload swaps entries under a
// lock; resolved policies stay valid).
class PolicyRegistry {
 public:
  // Adds or replaces name@version. INVALID_ARGUMENT for an empty name, version or algorithm, a
  // name with '@', a null policy, or a manifest whose identity (name, version, algorithm,
  // content) is not the policy's.
  absl::Status Add(PolicyManifest manifest, std::shared_ptr<const Policy> policy);

  // Removes name@version. Requests that resolved it keep their shared_ptr and finish on it.
  // NOT_FOUND when it is not there.
  absl::Status Remove(const std::string& name, const std::string& version);

  // The policy a request for `algorithm` plans with:
  //   ""             -> among the policies of `algorithm` (every version), those trained on
  //                     `preferred_hardware_profile` if any, the newest by `created` (ties: the
  //                     greater name, then the later version); `reason` says why
  //   "name"         -> its latest version
  //   "name@version" -> exactly that
  // INVALID_ARGUMENT for a malformed spec; NOT_FOUND for a name or version not loaded, naming
  // what is; FAILED_PRECONDITION when no policy of `algorithm` is loaded (spec "") or the one
  // named is another algorithm's. `reason` (may be null) is set only for spec "".
  absl::StatusOr<ResolvedPolicy> Resolve(const std::string& spec, const std::string& algorithm,
                                         const std::string& preferred_hardware_profile,
                                         std::string* reason = nullptr) const;

  struct Entry {
    PolicyManifest manifest;
    bool is_latest = false;  // the latest version of its name
  };
  // Sorted by name, then version (oldest first).
  std::vector<Entry> List() const;

  size_t size() const;

 private:
  // "name@version, name@version, ..." of every loaded policy (under mu_), or "none".
  std::string LoadedIds() const;

  mutable std::mutex mu_;
  std::map<std::string, std::map<std::string, ResolvedPolicy, VersionOrder>> policies_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_COSTMODELS_POLICY_REGISTRY_H_
