#ifndef SHARDPLAN_COSTMODELS_ARTIFACTS_MODEL_DIRECTORY_LOADER_H_
#define SHARDPLAN_COSTMODELS_ARTIFACTS_MODEL_DIRECTORY_LOADER_H_

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "costmodels/model_registry.h"

namespace shardplan {

// What one Reload did. Ids are "name@version"; lists are sorted.
struct ModelReloadReport {
  struct Refusal {
    std::string directory;  // the bundle's directory
    std::string reason;     // ReadModelBundle's error, or why the loader refused it
    bool first_time = false;  // not refused for this reason by the previous Reload
  };
  std::vector<std::string> loaded;     // new versions, and versions whose content changed
  std::vector<std::string> unchanged;  // manifest as last loaded: not read again
  std::vector<std::string> removed;    // directory gone: dropped from the registry
  std::vector<Refusal> refused;        // not served (a previously loaded content still is)
};

// Keeps a ModelRegistry in step with a models root laid out as <root>/<name>/<version>/
// (model_bundle.h). Reload scans the root, ignoring hidden entries (WriteModelBundle's
// temporary directories) and plain files:
//   - a version not loaded yet, or whose manifest.json bytes changed since it was loaded, is
//     read with ReadModelBundle and added (replacing the old content) if it verifies;
//   - a version whose manifest is unchanged is not read again (weights are immutable);
//   - a bundle that fails to read is refused; whatever content of it was loaded before keeps
//     serving, and the next Reload tries it again;
//   - a version loaded before whose directory is gone is removed from the registry; requests
//     that already resolved it keep their shared_ptr and finish on it.
// A missing root counts as an empty one. A bundle whose name@version the registry holds from
// elsewhere (a built-in) is refused rather than shadowing it. Concurrent Reloads are
// serialised; registry readers never wait for a Reload's I/O.
class ModelDirectoryLoader {
 public:
  // Called with one line for each refusal whose reason differs from the previous Reload's for
  // that directory, so a bundle that stays broken is logged once, not on every poll.
  using LogFn = std::function<void(const std::string& line)>;

  // `registry` must outlive the loader.
  ModelDirectoryLoader(std::string models_root, ModelRegistry* registry, LogFn log = nullptr);

  // FAILED_PRECONDITION when the root exists but cannot be listed (not a directory,
  // permissions); the registry is then left as it was.
  absl::StatusOr<ModelReloadReport> Reload();

  const std::string& models_root() const { return models_root_; }

 private:
  struct Loaded {
    std::string manifest_fingerprint;  // SHA-256 of manifest.json as it was read
  };

  const std::string models_root_;
  ModelRegistry* const registry_;
  const LogFn log_;

  std::mutex reload_mu_;  // serialises Reload; guards the members below
  std::map<std::pair<std::string, std::string>, Loaded> loaded_;  // (name, version)
  std::map<std::string, std::string> refusals_;  // directory -> last reason
};

}  // namespace shardplan

#endif  // SHARDPLAN_COSTMODELS_ARTIFACTS_MODEL_DIRECTORY_LOADER_H_
