#include "costmodels/artifacts/model_directory_loader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "base/sha256.h"
#include "costmodels/artifacts/model_bundle.h"

namespace shardplan {
namespace fs = std::filesystem;
namespace {

bool Hidden(const fs::path& path) {
  const std::string name = path.filename().string();
  return name.empty() || name[0] == '.';
}

// The visible subdirectories of `dir`, sorted by name. FAILED_PRECONDITION when it cannot be
// listed.
absl::StatusOr<std::vector<fs::path>> VisibleSubdirectories(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> subdirs;
  fs::directory_iterator it(dir, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code type_ec;
    if (Hidden(it->path()) || !it->is_directory(type_ec)) continue;
    subdirs.push_back(it->path());
  }
  if (ec) {
    return absl::FailedPreconditionError(
        absl::StrCat(dir.string(), ": cannot list the directory: ", ec.message()));
  }
  std::sort(subdirs.begin(), subdirs.end());
  return subdirs;
}

// SHA-256 of the manifest's bytes; "" when it cannot be read (ReadModelBundle then says why).
std::string ManifestFingerprint(const fs::path& bundle_dir) {
  std::ifstream in(bundle_dir / "manifest.json", std::ios::binary);
  if (!in) return "";
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return Sha256Hex(bytes.str());
}

}  // namespace

ModelDirectoryLoader::ModelDirectoryLoader(std::string models_root, ModelRegistry* registry,
                                           LogFn log)
    : models_root_(std::move(models_root)), registry_(registry), log_(std::move(log)) {}

absl::StatusOr<ModelReloadReport> ModelDirectoryLoader::Reload() {
  std::lock_guard<std::mutex> lock(reload_mu_);
  ModelReloadReport report;
  // Records a refusal; logs it when its reason is new for that directory.
  auto refuse = [&](const std::string& dir, std::string reason, bool keeps_serving) {
    std::string& last = refusals_[dir];
    const bool first_time = last != reason;
    last = reason;
    if (first_time && log_) {
      log_(absl::StrCat("model bundle ", dir, " refused",
                        keeps_serving ? " (its previous content keeps serving)" : "", ": ",
                        reason));
    }
    report.refused.push_back({dir, std::move(reason), first_time});
  };

  // (name, version, directory) of every visible bundle directory.
  std::vector<std::tuple<std::string, std::string, fs::path>> found;
  std::error_code ec;
  if (fs::exists(models_root_, ec)) {
    absl::StatusOr<std::vector<fs::path>> names = VisibleSubdirectories(models_root_);
    if (!names.ok()) return names.status();
    for (const fs::path& name_dir : *names) {
      absl::StatusOr<std::vector<fs::path>> versions = VisibleSubdirectories(name_dir);
      if (!versions.ok()) {
        refuse(name_dir.string(), std::string(versions.status().message()), false);
        continue;
      }
      for (const fs::path& version_dir : *versions) {
        found.emplace_back(name_dir.filename().string(), version_dir.filename().string(),
                           version_dir);
      }
    }
  }

  std::set<std::pair<std::string, std::string>> present;
  for (const auto& [name, version, dir] : found) {
    const std::pair<std::string, std::string> key(name, version);
    present.insert(key);
    const std::string id = absl::StrCat(name, "@", version);
    const auto loaded = loaded_.find(key);
    const std::string fingerprint = ManifestFingerprint(dir);
    if (loaded != loaded_.end() && !fingerprint.empty() &&
        loaded->second.manifest_fingerprint == fingerprint) {
      report.unchanged.push_back(id);
      refusals_.erase(dir.string());
      continue;
    }
    absl::Status refusal;
    absl::StatusOr<LoadedBundle> bundle = ReadModelBundle(dir.string());
    if (!bundle.ok()) {
      refusal = bundle.status();
    } else if (bundle->model == nullptr || bundle->model->id() != id ||
               bundle->manifest.id() != id) {
      refusal = absl::FailedPreconditionError(
          absl::StrCat(dir.string(), ": the bundle does not describe ", id));
    } else if (loaded == loaded_.end() && registry_->Resolve(id).ok()) {
      refusal = absl::FailedPreconditionError(
          absl::StrCat(dir.string(), ": ", id, " is a built-in model; pick another name"));
    } else {
      ModelManifest manifest = bundle->manifest;
      manifest.content_sha256 = bundle->manifest_sha256;
      refusal = registry_->Add(std::move(manifest), bundle->model);
    }
    if (refusal.ok()) {
      // The fingerprint of the manifest actually loaded (it may have changed since the
      // fingerprint above was taken; the next scan then sees the difference).
      loaded_[key] = Loaded{bundle->manifest_sha256};
      report.loaded.push_back(id);
      refusals_.erase(dir.string());
      continue;
    }
    refuse(dir.string(), std::string(refusal.message()), loaded != loaded_.end());
  }

  for (auto it = loaded_.begin(); it != loaded_.end();) {
    if (present.count(it->first) != 0) {
      ++it;
      continue;
    }
    const auto& [name, version] = it->first;
    // NOT_FOUND only if someone else removed it already; either way it is gone.
    registry_->Remove(name, version).IgnoreError();
    report.removed.push_back(absl::StrCat(name, "@", version));
    refusals_.erase(ModelBundleDirectory(models_root_, name, version));
    it = loaded_.erase(it);
  }
  // Forget refusals of directories that are gone, so a reappearing one is logged again.
  for (auto it = refusals_.begin(); it != refusals_.end();) {
    it = fs::exists(it->first, ec) ? std::next(it) : refusals_.erase(it);
  }
  for (auto* ids : {&report.loaded, &report.unchanged, &report.removed}) {
    std::sort(ids->begin(), ids->end());
  }
  return report;
}

}  // namespace shardplan
