// Planning with trained policies (docs/policies.md) through the engine and the service, with a
// fake policy algorithm: resolution, the selection reason, the cache key, holding a policy
// across a reload, and the job-key pin.

#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/planning_engine.h"
#include "server/planning_service.h"
#include "tests/unit/server/server_test_util.h"
#include "tests/unit/server/service_test_fixture.h"
#include "tests/unit/support/fake_policy_algorithm.h"

namespace shardplan {
namespace {

using server_test::SmallTask;
using test_support::FakePolicyAlgorithm;
using test_support::kFakePolicyAlgorithm;
using test_support::MakeFakePolicy;
using ::testing::HasSubstr;
using ::testing::Not;

// The analytic built-in's hardware profile: what a policy trained "for" it is preferred on.
constexpr char kAnalyticHardware[] = "torchrec-default";

// The device of every table of `plan`, in plan order.
std::vector<int32_t> Devices(const Plan& plan) {
  std::vector<int32_t> devices;
  for (const TableSharding& table : plan.tables) devices.push_back(table.shards.at(0).device);
  return devices;
}

// The engine and the service as the server assembles them (ServiceTest), with two fake policy
// algorithms; policies are added to the registry directly, as a reload would.
class PolicyPlanningTest : public server_test::ServiceTest {
 protected:
  PolicyPlanningTest() {
    auto fake = std::make_unique<FakePolicyAlgorithm>();
    fake_ = fake.get();
    algorithms_.Register(std::move(fake));
    algorithms_.Register(std::make_unique<FakePolicyAlgorithm>("other_policy"));
  }
  void TearDown() override {
    ServiceTest::TearDown();
    std::filesystem::remove_all(dir_);
  }

  FakePolicyAlgorithm* fake_ = nullptr;  // registered in algorithms_

  // Adds (or replaces in place) name@version: a fake policy that shifts tables by `shift`,
  // trained on `hardware` at `created`; `content` tells two contents of one version apart.
  void AddPolicy(const std::string& name, const std::string& version, int shift,
                 const std::string& hardware, const std::string& created,
                 const std::string& algorithm = kFakePolicyAlgorithm,
                 const std::string& content = "") {
    Policy policy = MakeFakePolicy(name, version, shift, hardware, algorithm);
    if (!content.empty()) policy.content_sha256 = content;
    PolicyManifest manifest;
    manifest.name = name;
    manifest.version = version;
    manifest.algorithm = algorithm;
    manifest.architecture = policy.architecture;
    manifest.hardware_profile = hardware;
    manifest.created = created;
    manifest.content_sha256 = policy.content_sha256;
    ASSERT_TRUE(
        policies_.Add(std::move(manifest), std::make_shared<const Policy>(std::move(policy))).ok());
  }

  static PlanningRequest Request(const std::string& policy = "", std::string job_key = "") {
    PlanningRequest request;
    request.task = SmallTask(6, 3);
    request.algorithm = kFakePolicyAlgorithm;
    if (!policy.empty()) request.params["policy"] = policy;
    request.job_key = std::move(job_key);
    return request;
  }

  absl::StatusOr<PlanningResult> PlanIt(PlanningRequest request) {
    absl::StatusOr<PreparedRequest> prepared = engine_->Prepare(std::move(request));
    if (!prepared.ok()) return prepared.status();
    const StopSignal stop;
    return engine_->Run(*prepared, stop, nullptr);
  }
};

TEST_F(PolicyPlanningTest, WithoutAPolicyTheRequestIsRefusedSayingWhatToDo) {
  absl::StatusOr<PreparedRequest> none = engine_->Prepare(Request());
  EXPECT_EQ(none.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(none.status().message()),
              HasSubstr("parameters.policy: no policy of algorithm fake_policy is loaded "
                        "(loaded policies: none); train one (shardplan-offline policy "
                        "train-fake_policy) into the server's models_dir"));
  // Only another algorithm's policy: still none for this one.
  AddPolicy("other-1", "1", 0, kAnalyticHardware, "2026-11-01T00:00:00Z", "other_policy");
  EXPECT_EQ(engine_->Prepare(Request()).status().code(), absl::StatusCode::kFailedPrecondition);

  // An engine without a policy registry refuses policy algorithms the same way.
  PlanningEngine no_policies(&algorithms_, &models_, &cache_, &metrics_,
                             PlanningEngineOptions{.default_algorithm = "size_lookup_greedy"});
  absl::StatusOr<PreparedRequest> refused = no_policies.Prepare(Request());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("parameters.policy: algorithm fake_policy plans with a trained policy, "
                        "and this server serves none"));
}

TEST_F(PolicyPlanningTest, TheServerChoosesTheNewestPolicyForTheModelsHardwareAndSaysSo) {
  AddPolicy("fake-torchrec", "1", 1, kAnalyticHardware, "2026-11-01T00:00:00Z");
  AddPolicy("fake-torchrec", "2", 2, kAnalyticHardware, "2026-11-02T00:00:00Z");
  AddPolicy("fake-sim", "1", 0, "sim-rtx2080ti", "2026-11-20T00:00:00Z");  // newer, elsewhere
  absl::StatusOr<PlanningResult> planned = PlanIt(Request());
  ASSERT_TRUE(planned.ok()) << planned.status();
  EXPECT_EQ(planned->plan.parameters.at("policy"), "fake-torchrec@2");
  EXPECT_EQ(planned->plan.algorithm, kFakePolicyAlgorithm);
  EXPECT_EQ(Devices(planned->plan), (std::vector<int32_t>{2, 0, 1, 2, 0, 1}));  // shift 2
  EXPECT_THAT(planned->selection,
              HasSubstr("policy: fake-torchrec@2, the newest fake_policy policy trained on "
                        "torchrec-default"));
}

TEST_F(PolicyPlanningTest, ANamedPolicyIsUsedAsNamedAndErrorsNameTheParameter) {
  AddPolicy("fake-a", "1", 1, kAnalyticHardware, "2026-11-01T00:00:00Z");
  AddPolicy("fake-a", "2", 2, kAnalyticHardware, "2026-11-02T00:00:00Z");
  AddPolicy("other-a", "1", 0, kAnalyticHardware, "2026-11-03T00:00:00Z", "other_policy");
  absl::StatusOr<PlanningResult> exact = PlanIt(Request("fake-a@1"));
  ASSERT_TRUE(exact.ok()) << exact.status();
  EXPECT_EQ(exact->plan.parameters.at("policy"), "fake-a@1");
  EXPECT_THAT(exact->selection, Not(HasSubstr("policy:")));  // the client chose it
  absl::StatusOr<PlanningResult> latest = PlanIt(Request("fake-a"));
  ASSERT_TRUE(latest.ok()) << latest.status();
  EXPECT_EQ(latest->plan.parameters.at("policy"), "fake-a@2");

  absl::StatusOr<PreparedRequest> unknown = engine_->Prepare(Request("nope"));
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(unknown.status().message()),
              HasSubstr("parameters.policy: no policy named \"nope\" is loaded (loaded "
                        "policies: fake-a@1, fake-a@2, other-a@1)"));
  absl::StatusOr<PreparedRequest> foreign = engine_->Prepare(Request("other-a"));
  EXPECT_EQ(foreign.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(foreign.status().message()),
              HasSubstr("parameters.policy: other-a@1 is a policy of other_policy, not of "
                        "fake_policy"));
  EXPECT_EQ(engine_->Prepare(Request("fake-a@")).status().code(),
            absl::StatusCode::kInvalidArgument);
  // An algorithm without a policy has no such parameter.
  PlanningRequest plain = Request("fake-a@1");
  plain.algorithm = "size_greedy";
  absl::StatusOr<PreparedRequest> no_param = engine_->Prepare(plain);
  EXPECT_EQ(no_param.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(no_param.status().message()), HasSubstr("parameters.policy"));
}

TEST_F(PolicyPlanningTest, RequestsWithoutAPolicyKeepTheirKeys) {
  PlanningRequest plain = Request();
  plain.algorithm = "size_greedy";
  absl::StatusOr<PreparedRequest> before = engine_->Prepare(plain);
  ASSERT_TRUE(before.ok()) << before.status();
  AddPolicy("fake-a", "1", 1, kAnalyticHardware, "2026-11-01T00:00:00Z");
  absl::StatusOr<PreparedRequest> after = engine_->Prepare(plain);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->cache_key, before->cache_key);
  EXPECT_EQ(after->policy.policy, nullptr);
  EXPECT_EQ(after->planning.policy, nullptr);
}

TEST_F(PolicyPlanningTest, APreparedRequestKeepsItsPolicyThroughAReload) {
  AddPolicy("fake-a", "1", 1, kAnalyticHardware, "2026-11-01T00:00:00Z");
  absl::StatusOr<PreparedRequest> prepared = engine_->Prepare(Request());
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  // A reload replaces the version in place, then removes it, while the request waits.
  AddPolicy("fake-a", "1", 2, kAnalyticHardware, "2026-11-01T00:00:00Z", kFakePolicyAlgorithm,
            "replaced");
  ASSERT_TRUE(policies_.Remove("fake-a", "1").ok());
  const StopSignal stop;
  absl::StatusOr<PlanningResult> planned = engine_->Run(*prepared, stop, nullptr);
  ASSERT_TRUE(planned.ok()) << planned.status();
  EXPECT_EQ(planned->plan.parameters.at("policy"), "fake-a@1");
  EXPECT_EQ(Devices(planned->plan), (std::vector<int32_t>{1, 2, 0, 1, 2, 0}));  // shift 1
}

// (b) A request without a job key after a new version appears gets a new plan recording it.
TEST_F(PolicyPlanningTest, ANewVersionGivesKeylessRequestsANewPlan) {
  AddPolicy("fake-a", "1", 1, kAnalyticHardware, "2026-11-01T00:00:00Z");
  absl::StatusOr<PlanAnswer> first = service_->Plan(Request(), call_);
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<PlanAnswer> again = service_->Plan(Request(), call_);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->result.cache_hit);

  AddPolicy("fake-a", "2", 2, kAnalyticHardware, "2026-11-02T00:00:00Z");  // hot reload
  absl::StatusOr<PlanAnswer> second = service_->Plan(Request(), call_);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_FALSE(second->result.cache_hit);
  EXPECT_FALSE(second->from_store);
  EXPECT_NE(second->result.request_hash, first->result.request_hash);
  EXPECT_EQ(second->result.plan.parameters.at("policy"), "fake-a@2");
  EXPECT_NE(Devices(second->result.plan), Devices(first->result.plan));
}

// (c) A version whose content is replaced in place never serves the old content's plan, from
// the cache or from the plan store.
TEST_F(PolicyPlanningTest, AVersionReplacedInPlaceNeverServesTheOldPlan) {
  AddPolicy("fake-a", "1", 1, kAnalyticHardware, "2026-11-01T00:00:00Z", kFakePolicyAlgorithm,
            "content-A");
  absl::StatusOr<PlanAnswer> old_content = service_->Plan(Request("fake-a@1"), call_);
  ASSERT_TRUE(old_content.ok()) << old_content.status();
  AddPolicy("fake-a", "1", 2, kAnalyticHardware, "2026-11-01T00:00:00Z", kFakePolicyAlgorithm,
            "content-B");
  for (const std::string& spec : {"fake-a@1", "fake-a", ""}) {
    absl::StatusOr<PlanAnswer> new_content = service_->Plan(Request(spec), call_);
    ASSERT_TRUE(new_content.ok()) << new_content.status();
    EXPECT_NE(new_content->result.request_hash, old_content->result.request_hash) << spec;
    EXPECT_EQ(new_content->result.plan.parameters.at("policy"), "fake-a@1");
    EXPECT_EQ(Devices(new_content->result.plan), (std::vector<int32_t>{2, 0, 1, 2, 0, 1})) << spec;
  }
  // The cache no longer has the old content's plan to give: a fresh engine over the same store
  // (a restart, another replica) finds only the new content's plans there.
  PlanCache empty_cache(int64_t{1} << 20);
  PlanningEngine restarted(&algorithms_, &models_, &policies_, &empty_cache, &metrics_,
                           PlanningEngineOptions{.default_algorithm = "size_lookup_greedy"});
  PlanningService replica(&restarted, jobs_.get(), ledger_.get(), &slots_, &clients_, &metrics_);
  absl::StatusOr<PlanAnswer> from_store = replica.Plan(Request("fake-a@1"), call_);
  ASSERT_TRUE(from_store.ok()) << from_store.status();
  EXPECT_TRUE(from_store->from_store);
  EXPECT_EQ(Devices(from_store->result.plan), (std::vector<int32_t>{2, 0, 1, 2, 0, 1}));
}

// (a) A job key keeps its plan: a new policy version (or new content) leaves the plan a
// resumed job gets for the same key and request as it was; Replan moves it on purpose.
TEST_F(PolicyPlanningTest, AJobKeyKeepsItsPlanWhenANewPolicyVersionAppears) {
  AddPolicy("fake-a", "1", 1, kAnalyticHardware, "2026-11-01T00:00:00Z");
  absl::StatusOr<PlanAnswer> pinned = service_->Plan(Request("", "train/run-7"), call_);
  ASSERT_TRUE(pinned.ok()) << pinned.status();
  ASSERT_EQ(pinned->result.plan.parameters.at("policy"), "fake-a@1");

  AddPolicy("fake-a", "2", 2, kAnalyticHardware, "2026-11-02T00:00:00Z");
  AddPolicy("fake-a", "1", 0, kAnalyticHardware, "2026-11-01T00:00:00Z", kFakePolicyAlgorithm,
            "replaced");
  absl::StatusOr<PlanAnswer> resumed = service_->Plan(Request("", "train/run-7"), call_);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_TRUE(resumed->from_store);
  EXPECT_EQ(resumed->job_id, pinned->job_id);
  EXPECT_EQ(resumed->result.plan.parameters.at("policy"), "fake-a@1");
  EXPECT_EQ(Devices(resumed->result.plan), Devices(pinned->result.plan));
  EXPECT_EQ(resumed->result.request_hash, pinned->result.request_hash);
  // Submitting the key again is idempotent: the same job and plan.
  absl::StatusOr<JobSnapshot> submitted = service_->Submit(Request("", "train/run-7"), call_);
  ASSERT_TRUE(submitted.ok()) << submitted.status();
  EXPECT_EQ(submitted->id, pinned->job_id);
  ASSERT_NE(submitted->result, nullptr);
  EXPECT_EQ(Devices(submitted->result->plan), Devices(pinned->result.plan));

  // Replan moves the key to the newest policy.
  absl::StatusOr<PlanAnswer> moved = service_->Replan(Request("", "train/run-7"), call_);
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ(moved->result.plan.parameters.at("policy"), "fake-a@2");
  absl::StatusOr<PlanAnswer> after = service_->Plan(Request("", "train/run-7"), call_);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->result.plan.parameters.at("policy"), "fake-a@2");
}

TEST_F(PolicyPlanningTest, AQueuedJobPlansWithThePolicyItWasPreparedWith) {
  AddPolicy("fake-a", "1", 1, kAnalyticHardware, "2026-11-01T00:00:00Z");
  // The job's worker waits in Run until the reload below is done, so the job is still queued
  // or starting when its policy is replaced and removed.
  std::promise<void> reloaded;
  std::shared_future<void> reload_done = reloaded.get_future().share();
  fake_->set_before_run([reload_done] { reload_done.wait(); });
  absl::StatusOr<JobSnapshot> job = service_->Submit(Request("", "jobs/1"), call_);
  ASSERT_TRUE(job.ok()) << job.status();
  AddPolicy("fake-a", "2", 2, kAnalyticHardware, "2026-11-02T00:00:00Z");
  ASSERT_TRUE(policies_.Remove("fake-a", "1").ok());
  reloaded.set_value();
  JobSnapshot last;
  ASSERT_TRUE(service_
                  ->WatchJob(job->id, call_,
                             [&](const JobSnapshot& snapshot) {
                               last = snapshot;
                               return true;
                             })
                  .ok());
  ASSERT_EQ(last.state, JobState::kSucceeded) << last.error;
  EXPECT_EQ(last.result->plan.parameters.at("policy"), "fake-a@1");
  EXPECT_EQ(Devices(last.result->plan), (std::vector<int32_t>{1, 2, 0, 1, 2, 0}));
}

}  // namespace
}  // namespace shardplan
