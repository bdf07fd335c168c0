#include "costmodels/artifacts/bundle_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "base/sha256.h"

namespace shardplan {
namespace {

constexpr char kReasonPayloadUrl[] = "type.shardplan.dev/model-load-failure-reason";

absl::Status Refuse(const std::string& path, const std::string& what, std::string_view reason) {
  return WithLoadFailureReason(absl::FailedPreconditionError(absl::StrCat(path, ": ", what)),
                               reason);
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

const char* FileTypeName(unsigned mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symlink";
  return "an odd file";
}

absl::Status WithLoadFailureReason(absl::Status status, std::string_view reason) {
  if (!status.ok()) status.SetPayload(kReasonPayloadUrl, absl::Cord(std::string(reason)));
  return status;
}

std::string ModelLoadFailureReason(const absl::Status& status) {
  if (auto reason = status.GetPayload(kReasonPayloadUrl)) {
    return std::string(*reason);
  }
  return status.code() == absl::StatusCode::kNotFound ? kLoadFailureMissing : kLoadFailureInvalid;
}

absl::StatusOr<std::string> ReadBundleFile(const std::string& path, const FileBounds& bounds) {
  // O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer, and
  // a file under a conflicting lease answers EWOULDBLOCK instead of waiting for its holder.
  const Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) {
    const int err = errno;
    if (err == ENOENT) {
      return absl::NotFoundError(absl::StrCat(path, ": cannot open: ", std::strerror(err)));
    }
    return Refuse(path, absl::StrCat("cannot open: ", std::strerror(err)), kLoadFailureUnreadable);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) {
    return Refuse(path, absl::StrCat("cannot stat: ", std::strerror(errno)),
                  kLoadFailureUnreadable);
  }
  if (!S_ISREG(st.st_mode)) {
    return Refuse(path,
                  absl::StrCat("is ", FileTypeName(st.st_mode),
                               ", not a regular file (the model loader reads only regular files)"),
                  kLoadFailureFileType);
  }
  const auto size = static_cast<uint64_t>(st.st_size);
  if (bounds.exact_bytes.has_value() && size != *bounds.exact_bytes) {
    return Refuse(path,
                  absl::StrCat(size, " bytes, but ", bounds.exact_what, " needs exactly ",
                               *bounds.exact_bytes, " bytes"),
                  kLoadFailureSize);
  }
  if (size > bounds.max_bytes) {
    return Refuse(path,
                  absl::StrCat(size, " bytes, more than the ", bounds.max_bytes,
                               " bytes such a file may have"),
                  kLoadFailureSize);
  }
  // Reads one byte more than fstat said, so that a file growing meanwhile is noticed.
  std::string bytes(size + 1, '\0');
  size_t have = 0;
  while (have < bytes.size()) {
    const ssize_t n = ::read(fd.get(), bytes.data() + have, bytes.size() - have);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Refuse(path, absl::StrCat("read error: ", std::strerror(errno)),
                    kLoadFailureUnreadable);
    }
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  if (have != size) {
    return Refuse(path,
                  absl::StrCat("changed while it was read (", size, " bytes at the start, ",
                               have > size ? "more" : absl::StrCat(have), " read)"),
                  kLoadFailureUnreadable);
  }
  bytes.resize(size);
  return bytes;
}

absl::StatusOr<std::string> ReadChecksummedBundleFile(const std::string& path,
                                                      const std::string& sha256,
                                                      const FileBounds& bounds) {
  absl::StatusOr<std::string> bytes = ReadBundleFile(path, bounds);
  if (!bytes.ok()) {
    if (absl::IsNotFound(bytes.status())) {
      return WithLoadFailureReason(
          absl::FailedPreconditionError(
              absl::StrCat(path, ": weights file is missing (listed in manifest.json)")),
          kLoadFailureMissing);
    }
    return bytes.status();
  }
  const std::string actual = Sha256Hex(*bytes);
  if (actual != sha256) {
    return absl::FailedPreconditionError(absl::StrCat(path, ": SHA-256 mismatch (manifest ",
                                                      sha256.substr(0, 12), "..., file ",
                                                      actual.substr(0, 12), "...)"));
  }
  return bytes;
}

}  // namespace shardplan
