#ifndef SHARDPLAN_COSTMODELS_ARTIFACTS_BUNDLE_FILE_H_
#define SHARDPLAN_COSTMODELS_ARTIFACTS_BUNDLE_FILE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace shardplan {

// What the model loader reads is bounded (docs/model-bundles.md, "Reading: what is bounded").
// A manifest is a few KB; 1 MiB leaves room for any real one.
inline constexpr uint64_t kMaxManifestBytes = uint64_t{1} << 20;
// A weights file must have exactly the size its manifest's architecture implies; this cap keeps
// a manifest that declares absurd layer sizes from making the loader read gigabytes. The
// shipped models' files are tens to hundreds of KB.
inline constexpr uint64_t kMaxWeightsFileBytes = uint64_t{64} << 20;

// The bounds of one file.
struct FileBounds {
  uint64_t max_bytes = 0;  // a larger file is refused before anything is read
  // When set, a file of any other size is refused before anything is read; `exact_what` says
  // where the size comes from ("the manifest's architecture (...)").
  std::optional<uint64_t> exact_bytes;
  std::string exact_what;

  static FileBounds AtMost(uint64_t max_bytes) {
    FileBounds bounds;
    bounds.max_bytes = max_bytes;
    return bounds;
  }
};

// Reads all of `path`, a regular file (a symlink is followed: its target must be a regular
// file), within `bounds`. It never blocks on what the path is: the file is opened with
// O_NONBLOCK and checked with fstat before any byte is read, so a FIFO, a device such as
// /dev/zero, a socket or a directory is refused at once, as is a file out of bounds. Errors name
// the file: NOT_FOUND when it does not exist (a dangling symlink included), FAILED_PRECONDITION
// otherwise, with a ModelLoadFailureReason.
absl::StatusOr<std::string> ReadBundleFile(const std::string& path, const FileBounds& bounds);

// ReadBundleFile of a file a manifest lists with its SHA-256: FAILED_PRECONDITION naming the
// file when it is missing ("missing"), or its bytes do not hash to `sha256`.
absl::StatusOr<std::string> ReadChecksummedBundleFile(const std::string& path,
                                                      const std::string& sha256,
                                                      const FileBounds& bounds);

// What a file of st_mode `mode` is, for messages: "a regular file", "a FIFO", "a character
// device", "a block device", "a socket", "a directory", "a symlink" or "an odd file".
const char* FileTypeName(unsigned mode);

// Why the model loader refused something: the `reason` label of
// shardplan_model_load_failures_total.
//   "unreadable"  cannot be opened, listed or read (permissions, I/O errors, busy)
//   "file_type"   a FIFO, device, socket or directory where a file must be, or a file where a
//                 directory must be
//   "size"        a file over its limit, or of another size than the manifest implies
//   "missing"     a version directory without manifest.json, or a weights file it lists
//   "invalid"     anything else: the content is refused (corrupt, incompatible)
inline constexpr char kLoadFailureUnreadable[] = "unreadable";
inline constexpr char kLoadFailureFileType[] = "file_type";
inline constexpr char kLoadFailureSize[] = "size";
inline constexpr char kLoadFailureMissing[] = "missing";
inline constexpr char kLoadFailureInvalid[] = "invalid";

// `status` with `reason` attached (a status payload, so it survives being passed on).
absl::Status WithLoadFailureReason(absl::Status status, std::string_view reason);
// The reason attached to `status`; without one, "missing" for NOT_FOUND and "invalid" otherwise.
std::string ModelLoadFailureReason(const absl::Status& status);

}  // namespace shardplan

#endif  // SHARDPLAN_COSTMODELS_ARTIFACTS_BUNDLE_FILE_H_
