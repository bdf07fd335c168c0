#ifndef SHARDPLAN_COSTMODELS_MODEL_REGISTRY_H_
#define SHARDPLAN_COSTMODELS_MODEL_REGISTRY_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "planner/domain/cost_model.h"

namespace shardplan {

// What ListModels shows of a model version (docs/design.md section 4).
struct ModelManifest {
  std::string name;
  std::string version;
  std::string kind;              // "analytic" or "neural"
  std::string hardware_profile;  // e.g. "torchrec-default" or "sim-2080ti"
  std::string backend;           // where its training data came from; "" for analytic
  int64_t data_size = 0;
  std::map<std::string, double> test_mse;  // per sub-model, e.g. "compute", "comm_4_fw"
  std::string created;           // RFC 3339
  std::vector<int32_t> device_counts;  // device counts its comm models cover; empty: any
  // Whether its costs include the interconnect; false for compute-only data (zero comm costs).
  bool costs_interconnect = true;
  std::string description;
  // What distinguishes two contents of one name@version: a bundle's manifest SHA-256 (hot
  // reload may replace a version in place); "" for built-ins. Part of the plan cache key.
  std::string content_sha256;

  std::string id() const { return name + "@" + version; }
};

// A model version ready to serve. Holding the shared_ptr keeps the version alive, so a request
// finishes on the version it started with even if a reload replaces it.
struct ResolvedModel {
  ModelManifest manifest;
  std::shared_ptr<const CostModel> model;
};

// Orders version strings: numeric segments by value ("2" < "10"), others lexicographically.
bool VersionLess(const std::string& a, const std::string& b);
struct VersionOrder {
  bool operator()(const std::string& a, const std::string& b) const { return VersionLess(a, b); }
};

// A "", "name" or "name@version" spec (models and policies alike) as its name and version, either
// "" when not given; INVALID_ARGUMENT for anything else ("x@", "@1", "a@b@c").
struct VersionSpec {
  std::string name;
  std::string version;
};
absl::StatusOr<VersionSpec> ParseVersionSpec(const std::string& spec);

// The versioned cost models the server serves. Thread-safe: reads run concurrently with
// Add/Remove (hot reload swaps entries under a lock; resolved models stay valid).
class ModelRegistry {
 public:
  // Adds or replaces name@version. INVALID_ARGUMENT for an empty name or version.
  absl::Status Add(ModelManifest manifest, std::shared_ptr<const CostModel> model);

  // Removes name@version (and the name once it has no version left). Requests that resolved
  // it keep their shared_ptr and finish on it. NOT_FOUND when it is not there.
  absl::Status Remove(const std::string& name, const std::string& version);

  // The model used when a request names none; must have been added. Defaults to the first
  // name added.
  absl::Status SetDefault(const std::string& name);

  // "" -> the default model's latest version; "name" -> its latest version; "name@version" ->
  // exactly that. NOT_FOUND names what is available; INVALID_ARGUMENT for a malformed spec.
  absl::StatusOr<ResolvedModel> Resolve(const std::string& spec) const;

  struct Entry {
    ModelManifest manifest;
    bool is_default = false;  // the default name (any version)
    bool is_latest = false;   // the latest version of its name
  };
  // Sorted by name, then version (oldest first).
  std::vector<Entry> List() const;

  size_t size() const;

 private:
  mutable std::mutex mu_;
  // name -> version -> model; versions compare numerically where both are numbers.
  std::map<std::string, std::map<std::string, ResolvedModel, VersionOrder>> models_;
  std::string default_name_;
};

// The built-in model that serves when nothing better does: the analytic estimator.
inline constexpr char kFallbackModel[] = "analytic";

// Adds the built-in models that need no artifact: the analytic estimator, as "analytic@1".
absl::Status RegisterBuiltinModels(ModelRegistry& registry);

}  // namespace shardplan

#endif  // SHARDPLAN_COSTMODELS_MODEL_REGISTRY_H_
