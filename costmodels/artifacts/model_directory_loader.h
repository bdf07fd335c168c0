#ifndef SHARDPLAN_COSTMODELS_ARTIFACTS_MODEL_DIRECTORY_LOADER_H_
#define SHARDPLAN_COSTMODELS_ARTIFACTS_MODEL_DIRECTORY_LOADER_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "costmodels/model_registry.h"
#include "costmodels/policy_registry.h"
#include "planner/domain/policy.h"

namespace shardplan {

struct LoadedPolicy;  // policy_bundle.h

// What one Reload did. Ids are "name@version"; lists are sorted. Cost models and policies are
// listed apart; refusals are by directory, whatever the bundle's kind.
struct ModelReloadReport {
  struct Refusal {
    std::string directory;  // the bundle's directory (or a model's, when it cannot be listed)
    std::string reason;     // ReadModelBundle's error, or why the loader refused it
    bool first_time = false;  // not refused for this reason by the previous Reload
    // ModelLoadFailureReason (bundle_file.h): "unreadable", "file_type", "size", "missing",
    // "invalid"; the label of shardplan_model_load_failures_total.
    std::string kind;
  };
  std::vector<std::string> loaded;     // new versions, and versions whose content changed
  std::vector<std::string> unchanged;  // manifest as last loaded: not read again
  std::vector<std::string> removed;    // directory gone: dropped from the registry
  std::vector<Refusal> refused;        // not served (a previously loaded content still is)
  // The same for policy bundles (docs/policies.md), into the PolicyRegistry.
  std::vector<std::string> policies_loaded;
  std::vector<std::string> policies_unchanged;
  std::vector<std::string> policies_removed;
};

// Keeps a ModelRegistry in step with a models root laid out as <root>/<name>/<version>/
// (model_bundle.h). Reload scans the root, ignoring hidden entries (WriteModelBundle's
// temporary directories) and plain files:
//   - a version not loaded yet, or whose manifest.json bytes changed since it was loaded, is
//     read with ReadModelBundle and added (replacing the old content) if it verifies;
//   - a version whose manifest is unchanged is not read again (weights are immutable);
//   - a bundle that fails to read is refused; whatever content of it was loaded before keeps
//     serving, and the next Reload tries it again;
//   - a loaded version is removed from the registry only when its directory is gone: no longer
//     listed in its model's directory, or its model's directory no longer listed in the root
//     (or the root gone). A model or version directory that is there but cannot be read (no
//     permission, replaced by a file, a dangling symlink, an I/O error) is refused and its
//     loaded versions keep serving. Requests that already resolved a removed version keep their
//     shared_ptr and finish on it.
// Every file is read with ReadBundleFile's bounds (bundle_file.h): regular files only, within
// their size limits, never blocking on a FIFO or device.
// Policy bundles (docs/policies.md: a manifest with "kind": "policy") live in the same root and
// follow the same rules: when the loader has a PolicyRegistry they are read with
// ReadPolicyBundle, checked with the caller's PolicyCheckFn (the server's asks the policy's
// algorithm: Algorithm::CheckPolicy) and added to it; a loader without one refuses them as a
// cost-model loader always did (ReadModelBundle's words).
// A missing root counts as an empty one. A bundle whose name@version the registry holds from
// elsewhere (a built-in) is refused rather than shadowing it. Concurrent Reloads are
// serialised; registry readers never wait for a Reload's I/O.
//
// A Reload is Scan (all of the I/O; the registry is not touched) then Apply (in memory: the
// registry, the log). A caller that must not wait for a hung filesystem runs Scan where it can
// abandon it (ModelReloader) and Apply only if it still wants the result.
class ModelDirectoryLoader {
 public:
  // Called with one line for each refusal whose reason differs from the previous Reload's for
  // that directory, so a bundle that stays broken is logged once, not on every poll.
  using LogFn = std::function<void(const std::string& line)>;

  // Whether a policy may be served: OK, or why not (e.g. no algorithm of that name, or one
  // that cannot run its tensors). Called from Apply, on the caller's thread.
  using PolicyCheckFn = std::function<absl::Status(const Policy& policy)>;

  // What a Scan read, for Apply.
  struct ScanResult;

  // `registry` (and `policies`, when not null) must outlive the loader. Without `policies`,
  // policy bundles are refused; with it, `check_policy` (required) vets each policy read.
  ModelDirectoryLoader(std::string models_root, ModelRegistry* registry, LogFn log = nullptr,
                       PolicyRegistry* policies = nullptr, PolicyCheckFn check_policy = nullptr);
  ~ModelDirectoryLoader();

  // Scan then Apply, under one lock. FAILED_PRECONDITION when the root exists but cannot be
  // listed (not a directory, permissions); the registry is then left as it was.
  absl::StatusOr<ModelReloadReport> Reload();

  // Reads what changed under the root; touches neither the registry nor the log. Scan and Apply
  // must alternate, from one thread at a time (Reload does both).
  std::shared_ptr<ScanResult> Scan();
  // Brings the registry in step with `scan` (this loader's latest Scan) and logs new refusals.
  absl::StatusOr<ModelReloadReport> Apply(ScanResult& scan);

  const std::string& models_root() const { return models_root_; }

 private:
  struct Loaded {
    std::string manifest_fingerprint;  // SHA-256 of manifest.json as it was read
    bool policy = false;               // in the PolicyRegistry, not the ModelRegistry
  };

  // Drops name@version from the registry `loaded` says it is in.
  void Unregister(const std::pair<std::string, std::string>& key, const Loaded& loaded);
  // Serves the policy bundle read from `dir` as (name, version) `key` once it describes that
  // version and check_policy_ accepts it; otherwise why not (nothing changes).
  absl::Status ApplyPolicy(const std::pair<std::string, std::string>& key, const std::string& dir,
                           const absl::StatusOr<LoadedPolicy>& bundle);

  const std::string models_root_;
  ModelRegistry* const registry_;
  const LogFn log_;
  PolicyRegistry* const policies_;
  const PolicyCheckFn check_policy_;

  std::mutex reload_mu_;  // serialises Reload
  // Read by Scan, written by Apply (which alternate).
  std::map<std::pair<std::string, std::string>, Loaded> loaded_;  // (name, version)
  std::map<std::string, std::string> refusals_;  // directory -> last reason
};

}  // namespace shardplan

#endif  // SHARDPLAN_COSTMODELS_ARTIFACTS_MODEL_DIRECTORY_LOADER_H_
