#include "costmodels/policy_registry.h"

#include <iterator>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shardplan {
namespace {

// Orders the server's candidates: newest `created`, then the greater name, then the later
// version, so a choice never depends on the order policies were added.
bool OlderThan(const PolicyManifest& a, const PolicyManifest& b) {
  if (std::tie(a.created, a.name) != std::tie(b.created, b.name)) {
    return std::tie(a.created, a.name) < std::tie(b.created, b.name);
  }
  return VersionLess(a.version, b.version);
}

}  // namespace

absl::Status PolicyRegistry::Add(PolicyManifest manifest, std::shared_ptr<const Policy> policy) {
  if (manifest.name.empty()) return absl::InvalidArgumentError("policy name: must not be empty");
  if (manifest.version.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("policy ", manifest.name, ": version must not be empty"));
  }
  if (manifest.name.find('@') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("policy name \"", manifest.name, "\": must not contain '@'"));
  }
  if (manifest.algorithm.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("policy ", manifest.id(), ": algorithm must not be empty"));
  }
  if (policy == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("policy ", manifest.id(), ": no policy"));
  }
  // The manifest is what resolution and the cache key read; the policy what the planner runs.
  if (policy->id() != manifest.id() || policy->algorithm != manifest.algorithm ||
      policy->content_sha256 != manifest.content_sha256) {
    return absl::InvalidArgumentError(absl::StrCat(
        "policy ", manifest.id(), ": the manifest does not describe the policy (", policy->id(),
        " of ", policy->algorithm, ", content ", policy->content_sha256, ")"));
  }
  std::lock_guard<std::mutex> lock(mu_);
  const std::string version = manifest.version;
  policies_[manifest.name].insert_or_assign(version,
                                            ResolvedPolicy{std::move(manifest), std::move(policy)});
  return absl::OkStatus();
}

absl::Status PolicyRegistry::Remove(const std::string& name, const std::string& version) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto by_name = policies_.find(name);
  if (by_name == policies_.end() || by_name->second.erase(version) == 0) {
    return absl::NotFoundError(absl::StrCat("policy ", name, "@", version, " is not loaded"));
  }
  if (by_name->second.empty()) policies_.erase(by_name);
  return absl::OkStatus();
}

std::string PolicyRegistry::LoadedIds() const {
  std::vector<std::string> ids;
  for (const auto& [name, versions] : policies_) {
    for (const auto& [version, entry] : versions) ids.push_back(entry.manifest.id());
  }
  return ids.empty() ? "none" : absl::StrJoin(ids, ", ");
}

absl::StatusOr<ResolvedPolicy> PolicyRegistry::Resolve(
    const std::string& spec, const std::string& algorithm,
    const std::string& preferred_hardware_profile, std::string* reason) const {
  absl::StatusOr<VersionSpec> parsed = ParseVersionSpec(spec);
  if (!parsed.ok()) return parsed.status();
  const std::string& name = parsed->name;
  const std::string& version = parsed->version;
  std::lock_guard<std::mutex> lock(mu_);
  if (name.empty()) {
    // The server's choice: the newest of the algorithm's policies, those trained on the
    // hardware the request's cost model describes first.
    const ResolvedPolicy* newest = nullptr;
    const ResolvedPolicy* newest_preferred = nullptr;
    for (const auto& [unused, versions] : policies_) {
      for (const auto& [unused_version, entry] : versions) {
        if (entry.manifest.algorithm != algorithm) continue;
        if (newest == nullptr || OlderThan(newest->manifest, entry.manifest)) newest = &entry;
        if (!preferred_hardware_profile.empty() &&
            entry.manifest.hardware_profile == preferred_hardware_profile &&
            (newest_preferred == nullptr ||
             OlderThan(newest_preferred->manifest, entry.manifest))) {
          newest_preferred = &entry;
        }
      }
    }
    if (newest == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          "no policy of algorithm ", algorithm, " is loaded (loaded policies: ", LoadedIds(), ")"));
    }
    const ResolvedPolicy& chosen = newest_preferred != nullptr ? *newest_preferred : *newest;
    if (reason != nullptr) {
      const PolicyManifest& m = chosen.manifest;
      *reason = newest_preferred != nullptr
                    ? absl::StrCat("policy: ", m.id(), ", the newest ", algorithm,
                                   " policy trained on ", preferred_hardware_profile)
                    : absl::StrCat("policy: ", m.id(), ", the newest ", algorithm,
                                   " policy (trained on ", m.hardware_profile, "; none on ",
                                   preferred_hardware_profile.empty() ? "the cost model's hardware"
                                                                      : preferred_hardware_profile,
                                   ")");
    }
    return chosen;
  }
  const auto by_name = policies_.find(name);
  if (by_name == policies_.end() || by_name->second.empty()) {
    return absl::NotFoundError(absl::StrCat("no policy named \"", name,
                                            "\" is loaded (loaded policies: ", LoadedIds(), ")"));
  }
  const auto& versions = by_name->second;
  const ResolvedPolicy* found = nullptr;
  if (version.empty()) {
    found = &versions.rbegin()->second;
  } else if (const auto it = versions.find(version); it != versions.end()) {
    found = &it->second;
  } else {
    std::vector<std::string> known;
    for (const auto& [v, unused] : versions) known.push_back(v);
    return absl::NotFoundError(absl::StrCat("policy ", name, " has no version \"", version,
                                            "\" (versions: ", absl::StrJoin(known, ", "), ")"));
  }
  if (found->manifest.algorithm != algorithm) {
    return absl::FailedPreconditionError(absl::StrCat(found->manifest.id(), " is a policy of ",
                                                      found->manifest.algorithm, ", not of ",
                                                      algorithm));
  }
  return *found;
}

std::vector<PolicyRegistry::Entry> PolicyRegistry::List() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Entry> entries;
  for (const auto& [name, versions] : policies_) {
    for (auto it = versions.begin(); it != versions.end(); ++it) {
      entries.push_back(Entry{it->second.manifest, std::next(it) == versions.end()});
    }
  }
  return entries;
}

size_t PolicyRegistry::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t count = 0;
  for (const auto& [name, versions] : policies_) count += versions.size();
  return count;
}

}  // namespace shardplan
