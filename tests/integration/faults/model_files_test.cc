// The model loader under an operator's bad day, with the real server (issue 18): a FIFO named
// manifest.json, a weights file linked to /dev/zero, a 1 GiB manifest, and a model directory
// that becomes unreadable while it serves. Each is refused at once with a reason naming the file
// (counted in shardplan_model_load_failures_total{reason}); nothing already serving is dropped;
// and SIGTERM still drains and exits.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "shardplan/v1/admin.grpc.pb.h"
#include "tests/integration/faults/store_fault_support.h"
#include "tests/integration/server/server_test_support.h"
#include "tests/integration/support/test_bundles.h"

namespace shardplan::integration {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing_bundles::WriteTinyBundle;

constexpr uid_t kNobody = 65534;

class ModelFilesTest : public ModelsServerTest {
 protected:
  // ReloadModels with a deadline far beyond a working reload; a hung reload fails the test
  // (DEADLINE_EXCEEDED) instead of hanging it.
  grpc::Status TryReload(v1::ReloadModelsResponse* response) {
    return admin_->ReloadModels(Context(std::chrono::seconds(20)).get(), v1::ReloadModelsRequest(),
                                response);
  }

  // The one refusal of `response`, which must be for `directory`.
  std::string OnlyRefusal(const v1::ReloadModelsResponse& response, const std::string& directory) {
    EXPECT_EQ(response.refused_size(), 1);
    if (response.refused_size() != 1) return "";
    EXPECT_EQ(fs::path(response.refused(0).directory()), fs::path(directory));
    return response.refused(0).reason();
  }

  // Reloads (tiny@1 serving), expects tiny@2 refused for `refusal` with `reason` counted, and
  // tiny@1 still serving the latest.
  void ExpectTiny2Refused(const std::string& refusal, const std::string& reason) {
    v1::ReloadModelsResponse response;
    grpc::Status status = TryReload(&response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_THAT(OnlyRefusal(response, Version("tiny", "2")), HasSubstr(refusal));
    EXPECT_THAT(response.loaded(), IsEmpty());
    EXPECT_EQ(PlannedWith("tiny"), "tiny@1");
    const std::string series =
        absl::StrCat("shardplan_model_load_failures_total{reason=\"", reason, "\"}");
    EXPECT_EQ(AwaitMetric(series, 1), 1);
    EXPECT_THAT(server_.log(), HasSubstr(refusal));
  }

  std::string PlannedWith(const std::string& model) {
    v1::PlanRequest request = QuickRequest();
    request.set_model(model);
    v1::PlanResponse response;
    grpc::Status status = Plan(request, &response);
    EXPECT_TRUE(status.ok()) << model << ": " << status.error_message();
    return response.plan().cost_model();
  }

  // SIGTERM drains and exits 0; the bound only stops a hung server's test.
  void ExpectCleanShutdown() {
    ASSERT_TRUE(server_.Signal(SIGTERM).ok());
    absl::StatusOr<int> exit_code = server_.WaitForExit(std::chrono::seconds(60));
    ASSERT_TRUE(exit_code.ok()) << "SIGTERM did not end the server: " << exit_code.status() << "\n"
                                << server_.log();
    EXPECT_EQ(*exit_code, 0) << server_.log();
    EXPECT_THAT(server_.log(), HasSubstr("drained"));
  }

  std::string Version(const std::string& name, const std::string& version) const {
    return absl::StrCat(root_, "/", name, "/", version);
  }
};

// Before: ReloadModels blocked forever opening the FIFO (waiting for a writer), and SIGTERM
// then never finished (the drain waited for the reload).
TEST_F(ModelFilesTest, AFifoManifestHangsNeitherReloadNorTheDrain) {
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "1").ok());
  Start({"--model_reload_interval_s=0.05"});  // the poll meets the FIFO too
  fs::create_directories(Version("tiny", "2"));
  const std::string fifo = Version("tiny", "2") + "/manifest.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  ExpectTiny2Refused(fifo + ": is a FIFO, not a regular file", "file_type");
  ExpectCleanShutdown();
}

// Before: the loader read /dev/zero until the process was killed.
TEST_F(ModelFilesTest, AWeightsFileLinkedToADeviceIsRefused) {
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "1").ok());
  Start();
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "2", /*seed=*/2).ok());
  const std::string weights = Version("tiny", "2") + "/compute.weights";
  fs::remove(weights);
  fs::create_symlink("/dev/zero", weights);
  ExpectTiny2Refused(weights + ": is a character device, not a regular file", "file_type");
  ExpectCleanShutdown();
}

// Before: every reload read the whole 1 GiB (24.6 s, 2.2 GB of memory). The file is sparse, so
// the test costs no disk.
TEST_F(ModelFilesTest, AHugeManifestIsRefusedBeforeItIsRead) {
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "1").ok());
  Start();
  fs::create_directories(Version("tiny", "2"));
  const std::string manifest = Version("tiny", "2") + "/manifest.json";
  { std::ofstream create(manifest); }
  ASSERT_EQ(::truncate(manifest.c_str(), off_t{1} << 30), 0);
  ExpectTiny2Refused(manifest + ": 1073741824 bytes, more than the 1048576 bytes", "size");
  ExpectCleanShutdown();
}

// Before: a model directory that could not be listed dropped every version of it ("models
// removed"), and jobs pinned to one could no longer be planned. Permission bits do not stop
// root, so when the test runs as root the server runs as nobody for the chmod case; a dangling
// symlink in place of the directory (a mount that went away) needs no user switch.
class UnreadableModelDirTest : public ModelFilesTest,
                               public ::testing::WithParamInterface<std::string> {};

TEST_P(UnreadableModelDirTest, KeepsServingItsVersions) {
  const bool by_chmod = GetParam() == "chmod";
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "1").ok());
  ASSERT_TRUE(WriteTinyBundle(root_, "tiny", "2", /*seed=*/2).ok());
  ASSERT_TRUE(WriteTinyBundle(root_, "other", "1", /*seed=*/3).ok());
  if (by_chmod && geteuid() == 0) {
    // A first start creates the server's temporary directory, which nobody must be able to
    // write (port file, plan store); the bundles must be readable by nobody.
    Start();
    ASSERT_TRUE(server_.Signal(SIGTERM).ok());
    ASSERT_TRUE(server_.WaitForExit(std::chrono::seconds(60)).ok());
    const fs::path store_dir = fs::path(server_.store().substr(7)).parent_path();
    for (const auto& entry : fs::directory_iterator(store_dir)) {
      if (absl::StartsWith(entry.path().filename().string(), "plans.db")) fs::remove(entry);
    }
    ASSERT_EQ(::chmod(store_dir.c_str(), 0777), 0);
    for (const auto& entry : fs::recursive_directory_iterator(root_)) {
      fs::permissions(entry.path(), entry.is_directory()
                                        ? fs::perms::owner_all | fs::perms::group_read |
                                              fs::perms::group_exec | fs::perms::others_read |
                                              fs::perms::others_exec
                                        : fs::perms::owner_read | fs::perms::owner_write |
                                              fs::perms::group_read | fs::perms::others_read);
    }
    ASSERT_EQ(::chmod(root_.c_str(), 0755), 0);
    server_.SetUser(kNobody, kNobody);
  }
  Start();
  ASSERT_THAT(ListedIds(), ElementsAre("analytic@1", "other@1", "tiny@1", "tiny@2"));

  const std::string model_dir = root_ + "/tiny";
  const std::string aside = root_ + "/.tiny-aside";
  if (by_chmod) {
    ASSERT_EQ(::chmod(model_dir.c_str(), 0), 0);
  } else {
    fs::rename(model_dir, aside);
    fs::create_symlink(root_ + "/unmounted/tiny", model_dir);
  }
  v1::ReloadModelsResponse response;
  grpc::Status status = TryReload(&response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_THAT(response.removed(), IsEmpty());
  EXPECT_THAT(response.unchanged(), ElementsAre("other@1"));
  EXPECT_THAT(OnlyRefusal(response, model_dir),
              HasSubstr(by_chmod ? ": cannot list the directory: Permission denied"
                                 : ": is a dangling symlink"));
  EXPECT_THAT(ListedIds(), ElementsAre("analytic@1", "other@1", "tiny@1", "tiny@2"));
  EXPECT_THAT(server_.log(), Not(HasSubstr("models removed")));
  EXPECT_THAT(server_.log(), HasSubstr("keeps serving"));
  EXPECT_EQ(AwaitMetric(R"(shardplan_model_load_failures_total{reason="unreadable"})", 1), 1);

  // Pinned and latest requests are served, keyed jobs pinned to the version too.
  EXPECT_EQ(PlannedWith("tiny@1"), "tiny@1");
  EXPECT_EQ(PlannedWith("tiny"), "tiny@2");
  v1::PlanRequest keyed = KeyedRequest("pinned/tiny-1", 5);
  keyed.set_model("tiny@1");
  const std::string job = Submit(keyed);
  EXPECT_EQ(AwaitState(job, v1::SUCCEEDED).result().plan().cost_model(), "tiny@1");

  // Readable again: unchanged. Really gone: removed.
  if (by_chmod) {
    ASSERT_EQ(::chmod(model_dir.c_str(), 0755), 0);
  } else {
    fs::remove(model_dir);
    fs::rename(aside, model_dir);
  }
  response = Reload();
  EXPECT_THAT(response.refused(), IsEmpty());
  EXPECT_THAT(response.unchanged(), ElementsAre("other@1", "tiny@1", "tiny@2"));
  fs::remove_all(model_dir);
  response = Reload();
  EXPECT_THAT(response.removed(), ElementsAre("tiny@1", "tiny@2"));
  ExpectCleanShutdown();
}

INSTANTIATE_TEST_SUITE_P(Ways, UnreadableModelDirTest,
                         ::testing::Values("chmod", "dangling_symlink"));

}  // namespace
}  // namespace shardplan::integration
