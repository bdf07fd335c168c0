#include "costmodels/artifacts/model_directory_loader.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "base/sha256.h"
#include "costmodels/artifacts/bundle_file.h"
#include "costmodels/artifacts/model_bundle.h"
#include "costmodels/artifacts/policy_bundle.h"
#include "nlohmann/json.hpp"

namespace shardplan {
namespace fs = std::filesystem;

struct ModelDirectoryLoader::ScanResult {
  // A version directory found, and what reading it gave.
  struct Version {
    std::string name;
    std::string version;
    fs::path dir;
    bool unchanged = false;                            // the manifest is as it was loaded
    std::optional<absl::StatusOr<LoadedBundle>> read;  // a cost model, unless unchanged
    std::optional<absl::StatusOr<LoadedPolicy>> policy_read;  // or a policy
  };
  // A model or version directory that is there but cannot be read.
  struct Unreadable {
    std::string dir;
    absl::Status status;
    bool keeps_serving = false;  // loaded versions live under it
  };
  absl::Status root_error;  // the root cannot be listed: Apply changes nothing
  std::vector<Version> versions;
  std::vector<Unreadable> unreadable;
  // Loaded versions whose directory is there but could not be read: they keep serving.
  std::set<std::pair<std::string, std::string>> kept;
  std::set<std::string> seen;  // every directory this scan found
};

namespace {

bool Hidden(const fs::path& path) {
  const std::string name = path.filename().string();
  return name.empty() || name[0] == '.';
}

// A visible entry of a listed directory; `error` says why it is not a directory that can be
// entered (ok for one that is).
struct Entry {
  fs::path path;
  absl::Status error;
};

// Ok when `path` (symlinks followed) is a directory; otherwise why not, with its
// ModelLoadFailureReason. `missing` is set when nothing at all is there (not even a symlink).
absl::Status CheckDirectory(const fs::path& path, bool* missing = nullptr) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return absl::OkStatus();
    return WithLoadFailureReason(
        absl::FailedPreconditionError(
            absl::StrCat(path.string(), ": is ", FileTypeName(st.st_mode), ", not a directory")),
        kLoadFailureFileType);
  }
  const int err = errno;
  struct stat lst;
  if (err == ENOENT && ::lstat(path.c_str(), &lst) != 0) {
    if (missing != nullptr) *missing = true;
    return absl::NotFoundError(absl::StrCat(path.string(), ": does not exist"));
  }
  return WithLoadFailureReason(
      absl::FailedPreconditionError(
          absl::StrCat(path.string(), ": ",
                       err == ENOENT ? std::string("is a dangling symlink")
                                     : absl::StrCat("cannot stat: ", std::strerror(err)))),
      kLoadFailureUnreadable);
}

// The visible entries of `dir`, sorted by name. FAILED_PRECONDITION ("unreadable") when it
// cannot be listed.
absl::StatusOr<std::vector<Entry>> VisibleEntries(const fs::path& dir) {
  std::error_code ec;
  std::vector<Entry> entries;
  fs::directory_iterator it(dir, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (Hidden(it->path())) continue;
    entries.push_back({it->path(), CheckDirectory(it->path())});
  }
  if (ec) {
    return WithLoadFailureReason(absl::FailedPreconditionError(absl::StrCat(
                                     dir.string(), ": cannot list the directory: ", ec.message())),
                                 kLoadFailureUnreadable);
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.path < b.path; });
  return entries;
}

// Whether `manifest` (manifest.json's bytes) says "kind": "policy". Anything else, a manifest
// that does not parse included, is read as a cost model, whose reader names what is wrong.
bool SaysPolicy(const std::string& manifest) {
  const nlohmann::json json = nlohmann::json::parse(manifest, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return false;
  const auto kind = json.find("kind");
  return kind != json.end() && kind->is_string() && kind->get<std::string>() == "policy";
}

// What ListModels shows of a policy bundle, and what resolution orders by.
PolicyManifest ManifestOfPolicy(const LoadedPolicy& bundle) {
  const Policy& policy = *bundle.policy;
  PolicyManifest manifest;
  manifest.name = policy.name;
  manifest.version = policy.version;
  manifest.algorithm = policy.algorithm;
  manifest.architecture = policy.architecture;
  manifest.hardware_profile = policy.hardware_profile;
  manifest.created = bundle.info.created;
  manifest.description = bundle.info.description;
  manifest.content_sha256 = policy.content_sha256;
  manifest.training_tasks = bundle.info.training.tasks;
  manifest.training_episodes = bundle.info.training.episodes;
  manifest.seed = bundle.info.seed;
  manifest.curve_metric = bundle.info.training.curve_metric;
  if (!bundle.info.training.curve.empty()) {
    manifest.final_metric = bundle.info.training.curve.back().value;
  }
  return manifest;
}

}  // namespace

ModelDirectoryLoader::ModelDirectoryLoader(std::string models_root, ModelRegistry* registry,
                                           LogFn log, PolicyRegistry* policies,
                                           PolicyCheckFn check_policy)
    : models_root_(std::move(models_root)),
      registry_(registry),
      log_(std::move(log)),
      policies_(policies),
      check_policy_(std::move(check_policy)) {}

ModelDirectoryLoader::~ModelDirectoryLoader() = default;

void ModelDirectoryLoader::Unregister(const std::pair<std::string, std::string>& key,
                                      const Loaded& loaded) {
  // NOT_FOUND only if someone else removed it already; either way it is gone.
  if (loaded.policy) {
    policies_->Remove(key.first, key.second).IgnoreError();
  } else {
    registry_->Remove(key.first, key.second).IgnoreError();
  }
}

absl::Status ModelDirectoryLoader::ApplyPolicy(const std::pair<std::string, std::string>& key,
                                               const std::string& dir,
                                               const absl::StatusOr<LoadedPolicy>& bundle) {
  const std::string id = absl::StrCat(key.first, "@", key.second);
  if (!bundle.ok()) return bundle.status();
  if (bundle->policy == nullptr || bundle->policy->id() != id) {
    return absl::FailedPreconditionError(absl::StrCat(dir, ": the bundle does not describe ", id));
  }
  // A policy no algorithm of this server can run is never served: a request would only fail.
  if (absl::Status runnable = check_policy_ ? check_policy_(*bundle->policy) : absl::OkStatus();
      !runnable.ok()) {
    return WithLoadFailureReason(
        absl::FailedPreconditionError(absl::StrCat(dir, ": ", runnable.message())),
        kLoadFailureInvalid);
  }
  if (absl::Status added = policies_->Add(ManifestOfPolicy(*bundle), bundle->policy); !added.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(dir, ": ", added.message()));
  }
  const auto loaded = loaded_.find(key);
  // A version that was a cost model before is one no longer.
  if (loaded != loaded_.end() && !loaded->second.policy) Unregister(key, loaded->second);
  // Policy::content_sha256 is the SHA-256 of the manifest as it was read.
  loaded_[key] = Loaded{bundle->policy->content_sha256, /*policy=*/true};
  return absl::OkStatus();
}

absl::StatusOr<ModelReloadReport> ModelDirectoryLoader::Reload() {
  std::lock_guard<std::mutex> lock(reload_mu_);
  std::shared_ptr<ScanResult> scan = Scan();
  return Apply(*scan);
}

std::shared_ptr<ModelDirectoryLoader::ScanResult> ModelDirectoryLoader::Scan() {
  auto scan = std::make_shared<ScanResult>();
  bool root_missing = false;
  if (absl::Status root = CheckDirectory(models_root_, &root_missing); !root.ok()) {
    if (!root_missing) {
      scan->root_error = absl::FailedPreconditionError(
          absl::StrCat(root.message(), " (the models directory cannot be listed)"));
    }
    return scan;  // a missing root counts as an empty one
  }
  absl::StatusOr<std::vector<Entry>> names = VisibleEntries(models_root_);
  if (!names.ok()) {
    scan->root_error = names.status();
    return scan;
  }
  // Keeps every loaded version of `name` serving.
  auto keep_loaded = [&](const std::string& name) {
    for (auto it = loaded_.lower_bound({name, ""}); it != loaded_.end() && it->first.first == name;
         ++it) {
      scan->kept.insert(it->first);
    }
  };
  for (const Entry& name_entry : *names) {
    const std::string name = name_entry.path.filename().string();
    const bool has_loaded = loaded_.lower_bound({name, ""}) != loaded_.end() &&
                            loaded_.lower_bound({name, ""})->first.first == name;
    absl::StatusOr<std::vector<Entry>> versions =
        name_entry.error.ok() ? VisibleEntries(name_entry.path)
                              : absl::StatusOr<std::vector<Entry>>(name_entry.error);
    if (!versions.ok()) {
      // A plain file that never held a model is not a refusal: it is skipped, as ever.
      if (!name_entry.error.ok() && !has_loaded) continue;
      scan->unreadable.push_back({name_entry.path.string(), versions.status(), has_loaded});
      scan->seen.insert(name_entry.path.string());
      keep_loaded(name);
      continue;
    }
    for (const Entry& version_entry : *versions) {
      const std::string version = version_entry.path.filename().string();
      const std::pair<std::string, std::string> key(name, version);
      if (!version_entry.error.ok()) {
        if (loaded_.contains(key)) {
          scan->unreadable.push_back({version_entry.path.string(), version_entry.error, true});
          scan->seen.insert(version_entry.path.string());
          scan->kept.insert(key);
        }
        continue;
      }
      ScanResult::Version found;
      found.name = name;
      found.version = version;
      found.dir = version_entry.path;
      scan->seen.insert(found.dir.string());
      // Unchanged when the manifest reads as it was loaded; anything else is read in full
      // (and refused with ReadModelBundle's words when the manifest cannot be read). The
      // manifest is read here only to compare it or, with policies served, to see its kind.
      const auto loaded = loaded_.find(key);
      absl::StatusOr<std::string> manifest =
          loaded == loaded_.end() && policies_ == nullptr
              ? absl::StatusOr<std::string>(std::string())
              : ReadBundleFile((found.dir / "manifest.json").string(),
                               FileBounds::AtMost(kMaxManifestBytes));
      if (loaded != loaded_.end() && manifest.ok() &&
          loaded->second.manifest_fingerprint == Sha256Hex(*manifest)) {
        found.unchanged = true;
      } else if (policies_ != nullptr && manifest.ok() && SaysPolicy(*manifest)) {
        found.policy_read = ReadPolicyBundle(found.dir.string());
      } else {
        found.read = ReadModelBundle(found.dir.string());
      }
      scan->versions.push_back(std::move(found));
    }
  }
  return scan;
}

absl::StatusOr<ModelReloadReport> ModelDirectoryLoader::Apply(ScanResult& scan) {
  if (!scan.root_error.ok()) return scan.root_error;
  ModelReloadReport report;
  // Records a refusal; logs it when its reason is new for that directory.
  auto refuse = [&](const std::string& dir, const absl::Status& status, bool keeps_serving) {
    std::string reason(status.message());
    std::string& last = refusals_[dir];
    const bool first_time = last != reason;
    last = reason;
    if (first_time && log_) {
      log_(absl::StrCat("model bundle ", dir, " refused",
                        keeps_serving ? " (its previous content keeps serving)" : "", ": ",
                        reason));
    }
    report.refused.push_back({dir, std::move(reason), first_time, ModelLoadFailureReason(status)});
  };

  for (const ScanResult::Unreadable& unreadable : scan.unreadable) {
    refuse(unreadable.dir, unreadable.status, unreadable.keeps_serving);
  }

  std::set<std::pair<std::string, std::string>> present = scan.kept;
  for (ScanResult::Version& found : scan.versions) {
    const std::pair<std::string, std::string> key(found.name, found.version);
    present.insert(key);
    const std::string id = absl::StrCat(found.name, "@", found.version);
    const std::string dir = found.dir.string();
    const auto loaded = loaded_.find(key);
    if (found.unchanged) {
      (loaded->second.policy ? report.policies_unchanged : report.unchanged).push_back(id);
      refusals_.erase(dir);
      continue;
    }
    if (found.policy_read.has_value()) {
      absl::Status refusal = ApplyPolicy(key, dir, *found.policy_read);
      if (refusal.ok()) {
        report.policies_loaded.push_back(id);
        refusals_.erase(dir);
        continue;
      }
      refuse(dir, refusal, loaded != loaded_.end());
      continue;
    }
    absl::Status refusal;
    absl::StatusOr<LoadedBundle>& bundle = *found.read;
    if (!bundle.ok()) {
      refusal = bundle.status();
    } else if (bundle->model == nullptr || bundle->model->id() != id ||
               bundle->manifest.id() != id) {
      refusal =
          absl::FailedPreconditionError(absl::StrCat(dir, ": the bundle does not describe ", id));
    } else if (loaded == loaded_.end() && registry_->Resolve(id).ok()) {
      refusal = absl::FailedPreconditionError(
          absl::StrCat(dir, ": ", id, " is a built-in model; pick another name"));
    } else {
      ModelManifest manifest = bundle->manifest;
      manifest.content_sha256 = bundle->manifest_sha256;
      refusal = registry_->Add(std::move(manifest), bundle->model);
    }
    if (refusal.ok()) {
      // A version that was a policy before is one no longer.
      if (loaded != loaded_.end() && loaded->second.policy) Unregister(key, loaded->second);
      // The fingerprint of the manifest actually loaded (it may have changed since the scan
      // compared it; the next scan then sees the difference).
      loaded_[key] = Loaded{bundle->manifest_sha256, /*policy=*/false};
      report.loaded.push_back(id);
      refusals_.erase(dir);
      continue;
    }
    refuse(dir, refusal, loaded != loaded_.end());
  }

  // Gone: no longer listed where the scan could list.
  for (auto it = loaded_.begin(); it != loaded_.end();) {
    if (present.count(it->first) != 0) {
      ++it;
      continue;
    }
    const auto& [name, version] = it->first;
    Unregister(it->first, it->second);
    (it->second.policy ? report.policies_removed : report.removed)
        .push_back(absl::StrCat(name, "@", version));
    refusals_.erase(ModelBundleDirectory(models_root_, name, version));
    it = loaded_.erase(it);
  }
  // Forget refusals of directories that are gone, so a reappearing one is logged again.
  for (auto it = refusals_.begin(); it != refusals_.end();) {
    it = scan.seen.contains(it->first) ? std::next(it) : refusals_.erase(it);
  }
  for (auto* ids : {&report.loaded, &report.unchanged, &report.removed, &report.policies_loaded,
                    &report.policies_unchanged, &report.policies_removed}) {
    std::sort(ids->begin(), ids->end());
  }
  return report;
}

}  // namespace shardplan
