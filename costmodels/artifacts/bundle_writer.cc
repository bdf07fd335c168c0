// WriteModelBundle: the files go into a temporary directory, are fsynced, and the directory is
// renamed to the version's (model_bundle.h).
#include "costmodels/artifacts/model_bundle.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/atomic_file.h"
#include "base/status_macros.h"
#include "costmodels/artifacts/bundle_manifest.h"

namespace shardplan {
namespace {

using bundle_internal::BundleFiles;
using bundle_internal::kManifestFile;
namespace fs = std::filesystem;

absl::Status ErrnoError(const std::string& step, const std::string& path, int err) {
  return absl::InternalError(absl::StrCat(path, ": ", step, ": ", std::strerror(err)));
}

// Creates `path` (which must not exist), writes `contents` and fsyncs it.
absl::Status WriteNewFile(const std::string& path, std::string_view contents) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError("create", path, errno);
  absl::Status status;
  while (!contents.empty() && status.ok()) {
    const ssize_t n = ::write(fd, contents.data(), contents.size());
    if (n < 0 && errno != EINTR) status = ErrnoError("write", path, errno);
    if (n > 0) contents.remove_prefix(static_cast<size_t>(n));
  }
  if (status.ok() && ::fsync(fd) != 0) status = ErrnoError("fsync", path, errno);
  if (::close(fd) != 0 && status.ok()) status = ErrnoError("close", path, errno);
  return status;
}

// Renames the finished temporary directory to the version's. RENAME_NOREPLACE keeps an existing
// version intact even when another writer created it after our check (a plain rename would
// replace an empty directory).
absl::Status RenameNoReplace(const std::string& from, const std::string& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) {
    return absl::OkStatus();
  }
  if (errno == EEXIST || errno == ENOTEMPTY) {
    return absl::AlreadyExistsError(
        absl::StrCat(to, ": the version exists (versions are immutable)"));
  }
  if (errno != EINVAL && errno != ENOSYS) return ErrnoError("rename from " + from, to, errno);
  // A filesystem without RENAME_NOREPLACE: check, then rename (a directory only replaces an
  // empty one, and a bundle directory is never empty).
  std::error_code ec;
  if (fs::exists(to, ec)) {
    return absl::AlreadyExistsError(
        absl::StrCat(to, ": the version exists (versions are immutable)"));
  }
  if (::rename(from.c_str(), to.c_str()) != 0) return ErrnoError("rename from " + from, to, errno);
  return absl::OkStatus();
}

absl::Status WriteBundleFiles(const BundleFiles& files, const std::string& tmp_dir,
                              const std::string& final_dir) {
  for (const auto& [name, bytes] : files.weights) {
    SHARDPLAN_RETURN_IF_ERROR(WriteNewFile(tmp_dir + "/" + name, bytes));
  }
  // The manifest last: a directory with a manifest has all its weights.
  SHARDPLAN_RETURN_IF_ERROR(WriteNewFile(tmp_dir + "/" + kManifestFile, files.manifest));
  SHARDPLAN_RETURN_IF_ERROR(FsyncDirectory(tmp_dir));
  SHARDPLAN_RETURN_IF_ERROR(RenameNoReplace(tmp_dir, final_dir));
  return FsyncDirectory(fs::path(final_dir).parent_path().string());
}

}  // namespace

namespace bundle_internal {

std::string NowRfc3339() {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone());
}

std::pair<std::string, std::string> NameAndVersionOf(const std::string& directory) {
  fs::path path(directory);
  while (!path.empty() && path.filename().empty() && path.has_parent_path() &&
         path != path.parent_path()) {
    path = path.parent_path();
  }
  return {path.parent_path().filename().string(), path.filename().string()};
}

absl::Status WriteBundleDirectory(const std::string& models_root, const std::string& name,
                                  const std::string& version, const BundleFiles& files) {
  const std::string name_dir = (fs::path(models_root) / name).string();
  const std::string final_dir = ModelBundleDirectory(models_root, name, version);
  const std::string tmp_dir =
      (fs::path(name_dir) / absl::StrCat(".", version, ".tmp-", ::getpid())).string();

  // One writer at a time in this process, so a temporary directory with our pid is stale (left
  // by a crashed process that had our pid) and safe to remove.
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  std::error_code ec;
  if (fs::exists(final_dir, ec)) {
    return absl::AlreadyExistsError(
        absl::StrCat(final_dir, ": the version exists (versions are immutable)"));
  }
  const bool created_name_dir = !fs::exists(name_dir, ec);
  fs::create_directories(name_dir, ec);
  if (ec) return absl::InternalError(absl::StrCat(name_dir, ": create directory: ", ec.message()));
  if (created_name_dir) {
    SHARDPLAN_RETURN_IF_ERROR(FsyncDirectory(fs::path(name_dir).parent_path().string()));
  }
  fs::remove_all(tmp_dir, ec);
  if (::mkdir(tmp_dir.c_str(), 0755) != 0) return ErrnoError("create directory", tmp_dir, errno);

  const absl::Status status = WriteBundleFiles(files, tmp_dir, final_dir);
  if (!status.ok()) fs::remove_all(tmp_dir, ec);
  return status;
}

}  // namespace bundle_internal

absl::Status WriteModelBundle(const std::string& models_root, const BundleInfo& info,
                              const NeuralCostModel& model) {
  SHARDPLAN_RETURN_IF_ERROR(bundle_internal::CheckBundleInfo(info, model));
  BundleInfo filled = info;
  if (filled.created.empty()) filled.created = bundle_internal::NowRfc3339();
  SHARDPLAN_ASSIGN_OR_RETURN(const BundleFiles files, bundle_internal::EncodeBundle(filled, model));
  return bundle_internal::WriteBundleDirectory(models_root, info.name, info.version, files);
}

}  // namespace shardplan
