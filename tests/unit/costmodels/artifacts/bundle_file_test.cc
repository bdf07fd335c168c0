#include "costmodels/artifacts/bundle_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/support/test_bundles.h"

namespace shardplan {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing_bundles::FreshTempDir;

class BundleFileTest : public ::testing::Test {
 protected:
  BundleFileTest() : dir_(FreshTempDir("bundle-file")) {}
  ~BundleFileTest() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  // The refusal of `path` under `bounds`, checking its code and reason.
  std::string Refusal(const std::string& path, const FileBounds& bounds,
                      const std::string& reason) {
    absl::StatusOr<std::string> read = ReadBundleFile(path, bounds);
    EXPECT_FALSE(read.ok()) << path;
    if (read.ok()) return "";
    EXPECT_EQ(read.status().code(), absl::StatusCode::kFailedPrecondition) << read.status();
    EXPECT_EQ(ModelLoadFailureReason(read.status()), reason) << read.status();
    return std::string(read.status().message());
  }

  const std::string dir_;
};

TEST_F(BundleFileTest, ReadsARegularFileAndOneBehindASymlink) {
  const std::string path = Write("a.json", "{\"x\": 1}");
  EXPECT_EQ(ReadBundleFile(path, FileBounds::AtMost(100)).value_or("?"), "{\"x\": 1}");
  fs::create_symlink(path, dir_ + "/link.json");
  EXPECT_EQ(ReadBundleFile(dir_ + "/link.json", FileBounds::AtMost(100)).value_or("?"),
            "{\"x\": 1}");
  FileBounds exact = FileBounds::AtMost(100);
  exact.exact_bytes = 8;
  EXPECT_EQ(ReadBundleFile(path, exact).value_or("?"), "{\"x\": 1}");
  EXPECT_EQ(ReadBundleFile(Write("empty", ""), FileBounds::AtMost(0)).value_or("?"), "");
}

TEST_F(BundleFileTest, AMissingFileIsNotFound) {
  absl::StatusOr<std::string> read = ReadBundleFile(dir_ + "/nope", FileBounds::AtMost(10));
  EXPECT_EQ(read.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(read.status().message(), HasSubstr(dir_ + "/nope: cannot open"));
  EXPECT_EQ(ModelLoadFailureReason(read.status()), kLoadFailureMissing);
  fs::create_symlink(dir_ + "/nope", dir_ + "/dangling");
  EXPECT_EQ(ReadBundleFile(dir_ + "/dangling", FileBounds::AtMost(10)).status().code(),
            absl::StatusCode::kNotFound);
}

// Before, a FIFO named manifest.json blocked the loader forever in open().
TEST_F(BundleFileTest, AFifoIsRefusedWithoutBlocking) {
  const std::string path = dir_ + "/manifest.json";
  ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0);
  EXPECT_THAT(Refusal(path, FileBounds::AtMost(kMaxManifestBytes), kLoadFailureFileType),
              HasSubstr(path + ": is a FIFO, not a regular file"));
}

// Before, a weights file linked to /dev/zero was read until the process was killed.
TEST_F(BundleFileTest, ASymlinkToADeviceIsRefused) {
  const std::string path = dir_ + "/compute.weights";
  fs::create_symlink("/dev/zero", path);
  EXPECT_THAT(Refusal(path, FileBounds::AtMost(kMaxWeightsFileBytes), kLoadFailureFileType),
              HasSubstr(path + ": is a character device, not a regular file"));
}

TEST_F(BundleFileTest, ADirectoryIsRefused) {
  fs::create_directory(dir_ + "/sub");
  EXPECT_THAT(Refusal(dir_ + "/sub", FileBounds::AtMost(10), kLoadFailureFileType),
              HasSubstr("is a directory, not a regular file"));
}

// Before, a 1 GiB manifest was read whole (24.6 s, 2.2 GB); a sparse one costs no disk here.
TEST_F(BundleFileTest, AFileOverItsLimitIsRefusedBeforeItIsRead) {
  const std::string path = Write("manifest.json", "");
  ASSERT_EQ(::truncate(path.c_str(), off_t{1} << 30), 0);
  EXPECT_THAT(Refusal(path, FileBounds::AtMost(kMaxManifestBytes), kLoadFailureSize),
              HasSubstr(absl::StrCat(path, ": 1073741824 bytes, more than the 1048576 bytes")));
  EXPECT_THAT(Refusal(Write("small", "12345"), FileBounds::AtMost(4), kLoadFailureSize),
              HasSubstr("5 bytes, more than the 4 bytes"));
}

TEST_F(BundleFileTest, AFileOfAnotherSizeThanExpectedIsRefused) {
  FileBounds bounds = FileBounds::AtMost(kMaxWeightsFileBytes);
  bounds.exact_bytes = 36228;
  bounds.exact_what = "the manifest's architecture (x)";
  const std::string path = Write("compute.weights", std::string(100, 'w'));
  EXPECT_THAT(Refusal(path, bounds, kLoadFailureSize),
              HasSubstr(path + ": 100 bytes, but the manifest's architecture (x) needs exactly "
                               "36228 bytes"));
}

TEST_F(BundleFileTest, AnUnreadableFileIsRefused) {
  const std::string path = Write("secret", "x");
  ASSERT_EQ(::chmod(path.c_str(), 0), 0);
  if (::access(path.c_str(), R_OK) == 0) {
    GTEST_SKIP() << "running as root, which permission bits do not stop (the server-level "
                    "test runs the server as nobody for this)";
  }
  EXPECT_THAT(Refusal(path, FileBounds::AtMost(10), kLoadFailureUnreadable),
              HasSubstr(path + ": cannot open: Permission denied"));
}

// A file another process holds a write lease on: a blocking open() would wait for the holder
// (up to /proc/sys/fs/lease-break-time, 45 s by default); the loader's answers at once. Unlike
// permission bits, this works when the test runs as root.
TEST_F(BundleFileTest, AFileUnderALeaseIsRefusedWithoutWaiting) {
  const std::string path = Write("busy.json", "{}");
  const int holder = ::open(path.c_str(), O_RDWR);
  ASSERT_GE(holder, 0);
  // The break notice would be SIGIO, whose default action ends the process.
  ::signal(SIGIO, SIG_IGN);
  if (::fcntl(holder, F_SETLEASE, F_WRLCK) != 0) {
    ::close(holder);
    GTEST_SKIP() << "this filesystem does not grant leases: " << std::strerror(errno);
  }
  EXPECT_THAT(Refusal(path, FileBounds::AtMost(10), kLoadFailureUnreadable),
              HasSubstr(path + ": cannot open: Resource temporarily unavailable"));
  ::fcntl(holder, F_SETLEASE, F_UNLCK);
  ::close(holder);
}

TEST_F(BundleFileTest, ReasonsSurviveAndDefault) {
  EXPECT_EQ(ModelLoadFailureReason(absl::FailedPreconditionError("x")), kLoadFailureInvalid);
  EXPECT_EQ(ModelLoadFailureReason(absl::NotFoundError("x")), kLoadFailureMissing);
  const absl::Status sized =
      WithLoadFailureReason(absl::FailedPreconditionError("x"), kLoadFailureSize);
  const absl::Status copy = sized;
  EXPECT_EQ(ModelLoadFailureReason(copy), kLoadFailureSize);
  EXPECT_TRUE(WithLoadFailureReason(absl::OkStatus(), kLoadFailureSize).ok());
}

}  // namespace
}  // namespace shardplan
