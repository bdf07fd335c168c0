#include "server/planning_service.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/algorithms/builtin_algorithms.h"
#include "prometheus/text_serializer.h"
#include "server/metrics.h"
#include "server/retry_after.h"
#include "server/store/plan_store.h"
#include "tests/unit/server/histogram_reading_model.h"
#include "tests/unit/server/server_test_util.h"
#include "tests/unit/server/service_test_fixture.h"

namespace shardplan {
namespace {

using server_test::SmallTask;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class PlanningServiceTest : public server_test::ServiceTest {
 protected:
  // Request()'s plan as the service computed it, and as a caller brings it back (its tables).
  void PlanShards(Plan* predicted, Plan* shards) {
    absl::StatusOr<PlanAnswer> planned = service_->Plan(Request(), call_);
    ASSERT_TRUE(planned.ok()) << planned.status();
    *predicted = planned->result.plan;
    shards->tables = predicted->tables;
  }

  static PlanningRequest Request(std::string job_key = "") {
    PlanningRequest request;
    request.task = SmallTask(6, 2);
    request.job_key = std::move(job_key);
    return request;
  }
};

TEST_F(PlanningServiceTest, PlansThenAnswersFromTheCacheAndRecordsTheComputedPlan) {
  absl::StatusOr<PlanAnswer> first = service_->Plan(Request(), call_);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_FALSE(first->result.cache_hit);
  EXPECT_EQ(first->result.plan.algorithm, "size_lookup_greedy");
  EXPECT_FALSE(first->job_id.empty());  // the plan's history record
  absl::StatusOr<PlanAnswer> second = service_->Plan(Request(), call_);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_TRUE(second->result.cache_hit);
  EXPECT_EQ(second->result.request_hash, first->result.request_hash);
  EXPECT_TRUE(second->job_id.empty());  // nothing new to record
}

// TORCHREC_MEMORY is the plan's: computed, cached, stored under a key or run as a job, the
// answer carries it.
TEST_F(PlanningServiceTest, EveryAnswerCarriesThePlansOwnWarnings) {
  auto over_torchrecs_reservation = [](std::string job_key) {
    PlanningRequest request = Request(std::move(job_key));
    request.task = SmallTask(4, 2);  // t3 alone is 512,000 bytes: 85.3% of 600,000
    request.task.topology.memory_bytes.assign(2, 600000);
    return request;
  };
  auto torchrec_warnings = [](const PlanningResult& result) {
    return std::count_if(result.warnings.begin(), result.warnings.end(),
                         [](const PlanWarning& w) { return w.code == kTorchRecMemory; });
  };
  absl::StatusOr<PlanAnswer> computed = service_->Plan(over_torchrecs_reservation(""), call_);
  ASSERT_TRUE(computed.ok()) << computed.status();
  EXPECT_EQ(torchrec_warnings(computed->result), 1);
  absl::StatusOr<PlanAnswer> cached = service_->Plan(over_torchrecs_reservation(""), call_);
  ASSERT_TRUE(cached.ok()) << cached.status();
  EXPECT_TRUE(cached->result.cache_hit);
  EXPECT_EQ(torchrec_warnings(cached->result), 1);
  absl::StatusOr<PlanAnswer> keyed = service_->Plan(over_torchrecs_reservation("k/1"), call_);
  ASSERT_TRUE(keyed.ok()) << keyed.status();
  absl::StatusOr<PlanAnswer> from_store = service_->Plan(over_torchrecs_reservation("k/1"), call_);
  ASSERT_TRUE(from_store.ok()) << from_store.status();
  EXPECT_TRUE(from_store->from_store);
  EXPECT_EQ(torchrec_warnings(from_store->result), 1);

  absl::StatusOr<JobSnapshot> job = service_->Submit(over_torchrecs_reservation("j/1"), call_);
  ASSERT_TRUE(job.ok()) << job.status();
  JobSnapshot last;
  ASSERT_TRUE(service_
                  ->WatchJob(job->id, call_,
                             [&](const JobSnapshot& snapshot) {
                               last = snapshot;
                               return true;
                             })
                  .ok());
  ASSERT_EQ(last.state, JobState::kSucceeded);
  ASSERT_TRUE(last.result != nullptr);
  EXPECT_EQ(torchrec_warnings(*last.result), 1);
}

TEST_F(PlanningServiceTest, AJobKeyBringsBackItsPlanAndRefusesAnotherRequest) {
  absl::StatusOr<PlanAnswer> first = service_->Plan(Request("run/1"), call_);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_FALSE(first->from_store);
  absl::StatusOr<PlanAnswer> again = service_->Plan(Request("run/1"), call_);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->from_store);
  EXPECT_EQ(again->job_id, first->job_id);
  EXPECT_EQ(again->result.request_hash, first->result.request_hash);

  PlanningRequest other = Request("run/1");
  other.seed = 9;
  absl::Status refused = service_->Plan(other, call_).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(refused.message()), StartsWith("job_key: \"run/1\" already names"));
  absl::StatusOr<PlanAnswer> replaced = service_->Replan(other, call_);
  ASSERT_TRUE(replaced.ok()) << replaced.status();
  EXPECT_NE(replaced->job_id, first->job_id);
  EXPECT_EQ(replaced->result.plan.seed, 9u);
}

// Issue 32: cache hits for tasks without histograms cost the imputation. After a restart the
// cache is empty and an identical request's plan comes from the store, which does not keep what
// the imputation found: it is imputed again, once, and the next identical request is a cache hit
// that imputes nothing, with the same warnings.
TEST_F(PlanningServiceTest, AStoredPlanIsImputedOnceThenServedFromTheCache) {
  ASSERT_TRUE(server_test::AddHistogramReadingModel(models_, "r", "1", {2}).ok());
  PlanningRequest keyed;
  keyed.task = SmallTask(4, 2);  // no table has a histogram
  keyed.algorithm = "size_lookup_greedy";
  keyed.model = "r@1";
  keyed.job_key = "stored/1";  // stored before the answer
  ASSERT_TRUE(service_->Plan(keyed, call_).ok());
  const auto imputed = [&] {
    const std::string text = prometheus::TextSerializer().Serialize(metrics_.registry()->Collect());
    const std::string series = "\nshardplan_imputed_histograms_total ";
    const size_t at = text.find(series);
    return at == std::string::npos ? -1.0 : std::stod(text.substr(at + series.size()));
  };
  EXPECT_EQ(imputed(), 4.0);

  // A restarted server: an empty cache over the same store.
  PlanCache empty_cache(int64_t{1} << 20);
  PlanningEngine engine(&algorithms_, &models_, &policies_, &empty_cache, &metrics_,
                        PlanningEngineOptions{.default_algorithm = "size_lookup_greedy"});
  PlanningService restarted(&engine, jobs_.get(), ledger_.get(), &slots_, &clients_, &metrics_);
  PlanningRequest request = keyed;
  request.job_key.clear();
  absl::StatusOr<PlanAnswer> stored = restarted.Plan(request, call_);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_TRUE(stored->from_store);
  EXPECT_EQ(imputed(), 8.0);
  ASSERT_EQ(stored->result.warnings.size(), 4u);
  EXPECT_EQ(stored->result.warnings[0].code, kImputedAccessHistogram);

  absl::StatusOr<PlanAnswer> hit = restarted.Plan(request, call_);
  ASSERT_TRUE(hit.ok()) << hit.status();
  EXPECT_FALSE(hit->from_store);
  EXPECT_TRUE(hit->result.cache_hit);
  EXPECT_EQ(imputed(), 8.0);  // was 12: every store hit imputed again
  EXPECT_EQ(hit->result.warnings, stored->result.warnings);
  EXPECT_EQ(hit->result.plan.cost_ms, stored->result.plan.cost_ms);
}

TEST_F(PlanningServiceTest, ReplanKeepsTheModelTheKeysPlanAskedForUnlessToldOtherwise) {
  PlanningRequest named = Request("run/2");
  named.model = "analytic";
  absl::StatusOr<PlanAnswer> first = service_->Plan(named, call_);
  ASSERT_TRUE(first.ok()) << first.status();

  // A Replan naming no model keeps "analytic", so the job's resume call still finds the plan.
  absl::StatusOr<PlanAnswer> replanned = service_->Replan(Request("run/2"), call_);
  ASSERT_TRUE(replanned.ok()) << replanned.status();
  EXPECT_NE(replanned->job_id, first->job_id);
  absl::StatusOr<PlanAnswer> resumed = service_->Plan(named, call_);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_TRUE(resumed->from_store);
  EXPECT_EQ(resumed->job_id, replanned->job_id);

  // Told otherwise, it moves: the key names the new model's plan, and the old request is
  // another request now.
  PlanningRequest pinned = Request("run/2");
  pinned.model = "analytic@1";
  ASSERT_TRUE(service_->Replan(pinned, call_).ok());
  EXPECT_EQ(service_->Plan(named, call_).status().code(), absl::StatusCode::kFailedPrecondition);
  absl::StatusOr<PlanAnswer> moved = service_->Plan(pinned, call_);
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_TRUE(moved->from_store);

  // A key without a plan takes the server's choice.
  ASSERT_TRUE(service_->Replan(Request("run/new"), call_).ok());
  EXPECT_TRUE(service_->Plan(Request("run/new"), call_).ok());
}

TEST_F(PlanningServiceTest, SubmittedJobsRunAndAreWatchedToTheEnd) {
  absl::StatusOr<JobSnapshot> job = service_->Submit(Request("job/1"), call_);
  ASSERT_TRUE(job.ok()) << job.status();
  int updates = 0;
  JobSnapshot last;
  ASSERT_TRUE(service_
                  ->WatchJob(job->id, call_,
                             [&](const JobSnapshot& snapshot) {
                               ++updates;
                               last = snapshot;
                               return true;
                             })
                  .ok());
  EXPECT_GE(updates, 1);
  EXPECT_EQ(last.state, JobState::kSucceeded);
  // Submitting the same key again is the same job.
  absl::StatusOr<JobSnapshot> same = service_->Submit(Request("job/1"), call_);
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ(same->id, job->id);
  EXPECT_EQ(service_->GetJob("no-such-job", call_).status().code(), absl::StatusCode::kNotFound);
}

// Issue 18: a job belongs to the identity that submitted it. Another token or certificate
// identity (and a peer) is told NOT_FOUND in the very words of an unknown id, for the job in
// memory and for a record only the store holds; its owner and admins see it. A job a peer
// identity submitted (no tokens, no client certificates) is everyone's, as before.
TEST_F(PlanningServiceTest, JobsAreSeenAndCancelledOnlyByTheirSubmitterAndAdmins) {
  CallContext a, b, admin, peer;
  a.client = "token:trainer-a";
  b.client = "token:trainer-b";
  admin.client = "token:ops";
  admin.admin = true;
  peer.client = "peer:10.0.0.7";
  auto watch = [&](const std::string& id, const CallContext& call, int* sent) {
    return service_->WatchJob(id, call, [sent](const JobSnapshot&) {
      ++*sent;
      return true;
    });
  };
  // As an unknown id of the same length is answered, with the id in its place.
  auto unknown_answer = [&](const std::string& id) {
    const std::string other(id.size(), 'f');
    const absl::Status unknown = service_->GetJob(other, b).status();
    EXPECT_EQ(unknown.code(), absl::StatusCode::kNotFound);
    return absl::StrReplaceAll(unknown.message(), {{other, id}});
  };

  absl::StatusOr<JobSnapshot> job = service_->Submit(Request(), a);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->submitted_by, "token:trainer-a");
  int sent = 0;
  ASSERT_TRUE(watch(job->id, a, &sent).ok());
  EXPECT_GE(sent, 1);
  EXPECT_EQ(service_->GetJob(job->id, a)->state, JobState::kSucceeded);
  EXPECT_EQ(service_->GetJob(job->id, admin)->submitted_by, "token:trainer-a");
  EXPECT_TRUE(service_->CancelJob(job->id, admin).ok());  // finished: left as it is
  EXPECT_TRUE(service_->CancelJob(job->id, a).ok());

  // A keyless Plan call's record (of another request: the job's plan is cached): only the store
  // holds it.
  PlanningRequest other_request = Request();
  other_request.task = SmallTask(8, 2);
  absl::StatusOr<PlanAnswer> planned = service_->Plan(other_request, a);
  ASSERT_TRUE(planned.ok()) << planned.status();
  ASSERT_FALSE(planned->job_id.empty());
  EXPECT_EQ(ledger_->FindJob(planned->job_id).value()->submitted_by, "token:trainer-a");
  EXPECT_TRUE(service_->GetJob(planned->job_id, a).ok());
  EXPECT_TRUE(service_->GetJob(planned->job_id, admin).ok());

  for (const std::string& id : {job->id, planned->job_id}) {
    for (const CallContext* other : {&b, &peer}) {
      const absl::Status got = service_->GetJob(id, *other).status();
      EXPECT_EQ(got.code(), absl::StatusCode::kNotFound) << other->client;
      EXPECT_EQ(got.message(), unknown_answer(id)) << other->client;
      const absl::Status cancelled = service_->CancelJob(id, *other).status();
      EXPECT_EQ(cancelled.code(), absl::StatusCode::kNotFound) << other->client;
      EXPECT_EQ(cancelled.message(), unknown_answer(id));
      int leaked = 0;
      EXPECT_EQ(watch(id, *other, &leaked).code(), absl::StatusCode::kNotFound) << other->client;
      EXPECT_EQ(leaked, 0);
    }
  }

  // A job still at work is not cancelled by another identity; an admin cancels it.
  PlanningRequest slow = Request();
  slow.algorithm = "exhaustive";
  slow.task = SmallTask(12, 4);
  slow.params = {{"max_placements", "1000000000"}};
  absl::StatusOr<JobSnapshot> endless = service_->Submit(slow, a);
  ASSERT_TRUE(endless.ok()) << endless.status();
  EXPECT_EQ(service_->CancelJob(endless->id, b).status().code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(IsTerminal(service_->GetJob(endless->id, a)->state));
  ASSERT_TRUE(service_->CancelJob(endless->id, admin).ok());
  ASSERT_TRUE(watch(endless->id, a, &sent).ok());
  EXPECT_EQ(service_->GetJob(endless->id, a)->state, JobState::kCancelled);

  // A peer's job is everyone's.
  absl::StatusOr<JobSnapshot> open = service_->Submit(Request("k/peer"), peer);
  ASSERT_TRUE(open.ok()) << open.status();
  EXPECT_TRUE(service_->GetJob(open->id, b).ok());
}

TEST_F(PlanningServiceTest, ACallThatStopsWaitingGetsItsOwnReason) {
  CallContext expired;
  expired.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  PlanningRequest slow = Request();
  slow.algorithm = "exhaustive";
  slow.task = SmallTask(12, 4);
  slow.params = {{"max_placements", "1000000000"}};
  EXPECT_EQ(service_->Plan(slow, expired).status().code(), absl::StatusCode::kDeadlineExceeded);
}

TEST_F(PlanningServiceTest, AdmitChecksWhatNeedsNoTask) {
  using Kind = PlanningService::CallKind;
  EXPECT_TRUE(service_->Admit(Kind::kPlan, "").ok());
  EXPECT_TRUE(service_->Admit(Kind::kSubmit, "team/run-1").ok());
  EXPECT_THAT(std::string(service_->Admit(Kind::kReplan, "").message()),
              StartsWith("job_key: Replan replaces a named plan"));
  EXPECT_EQ(service_->Admit(Kind::kPlan, "has space").code(), absl::StatusCode::kInvalidArgument);
  service_->StartDraining();
  EXPECT_EQ(service_->Admit(Kind::kPlan, "").code(), absl::StatusCode::kUnavailable);
}

TEST_F(PlanningServiceTest, DrainingRefusesNewWorkButNotQueries) {
  absl::StatusOr<PlanAnswer> planned = service_->Plan(Request(), call_);
  ASSERT_TRUE(planned.ok());
  service_->StartDraining();
  EXPECT_EQ(service_->Plan(Request(), call_).status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(service_->Submit(Request(), call_).status().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(service_->GetJob(planned->job_id, call_).ok());  // answered from the store
}

TEST_F(PlanningServiceTest, EvaluateTakesAModelOrGroundTruthNotBoth) {
  Plan predicted, shards;
  ASSERT_NO_FATAL_FAILURE(PlanShards(&predicted, &shards));
  const Task task = SmallTask(6, 2);
  absl::StatusOr<PlanningResult> modelled = service_->Evaluate(task, shards, "analytic", "");
  ASSERT_TRUE(modelled.ok()) << modelled.status();
  EXPECT_EQ(modelled->plan.cost_kind, "simulated");
  absl::StatusOr<PlanningResult> measured = service_->Evaluate(task, shards, "", "sim:rtx2080ti");
  ASSERT_TRUE(measured.ok()) << measured.status();
  EXPECT_EQ(measured->plan.cost_kind, "ground_truth");
  absl::Status both = service_->Evaluate(task, shards, "analytic", "sim:rtx2080ti").status();
  EXPECT_EQ(both.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(both.message()), HasSubstr("model, ground_truth"));
}

TEST_F(PlanningServiceTest, AMeasuredPlanRecordsItsModelsError) {
  Plan predicted, shards;
  ASSERT_NO_FATAL_FAILURE(PlanShards(&predicted, &shards));
  const Task task = SmallTask(6, 2);
  // The job measured every device 25% slower than predicted.
  std::vector<double> device_ms;
  for (const DeviceCost& device : predicted.devices) device_ms.push_back(1.25 * device.total_ms);
  absl::StatusOr<MeasurementReport> report =
      service_->ReportMeasurement(task, shards, predicted.cost_model, device_ms);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->evaluated.plan.cost_model, "analytic@1");
  EXPECT_DOUBLE_EQ(report->predicted_ms, predicted.cost_ms);
  const double slowest = *std::max_element(device_ms.begin(), device_ms.end());
  EXPECT_DOUBLE_EQ(report->measured_ms, slowest);
  EXPECT_DOUBLE_EQ(report->relative_error, (predicted.cost_ms - slowest) / slowest);
  EXPECT_LT(report->relative_error, 0.0);  // the model predicted too little
  EXPECT_EQ(report->window.reports, 1);
  EXPECT_DOUBLE_EQ(report->window.mean_abs_relative_error, std::abs(report->relative_error));
  const double first = std::abs(report->relative_error);

  // A second job measured exactly what was predicted: the version's mean error halves.
  std::vector<double> exact;
  for (const DeviceCost& device : predicted.devices) exact.push_back(device.total_ms);
  report = service_->ReportMeasurement(task, shards, "analytic@1", exact);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->window.reports, 2);
  EXPECT_NEAR(report->window.mean_abs_relative_error, first / 2, 1e-12);
}

TEST_F(PlanningServiceTest, AMeasurementNamesWhatIsWrongWithIt) {
  Plan predicted, shards;
  ASSERT_NO_FATAL_FAILURE(PlanShards(&predicted, &shards));
  const Task task = SmallTask(6, 2);
  const auto error = [&](const std::string& model, std::vector<double> device_ms) {
    return service_->ReportMeasurement(task, shards, model, device_ms).status();
  };
  absl::Status status = error("", {1.0, 2.0});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("model: name the model version"));
  status = error("analytic@1", {1.0});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("device_ms: 1 times for a task of 2"));
  status = error("analytic@1", {1.0, -2.0});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("device_ms[1]: must be a finite time > 0"));
  EXPECT_EQ(error("analytic@1", {1.0, std::nan("")}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(error("nope@1", {1.0, 2.0}).code(), absl::StatusCode::kNotFound);
  // Positive and finite, but no device runs an iteration in 5e-324 ms (it made the error +Inf).
  status = error("analytic@1", {5e-324, 2.0});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("device_ms[0]: 4.94066e-324 ms is not a plausible time per iteration "
                        "(0.001 to 3.6e+06 ms)"));
  EXPECT_EQ(error("analytic@1", {1.0, 1e9}).code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(PlanningServiceTest, MeasurementsAreRateLimitedAndCountedPerReporter) {
  ClientRateLimiter rate(2, "max_measurements_per_client_per_minute");
  PlanningService service(engine_.get(), jobs_.get(), ledger_.get(), &slots_, &clients_, &metrics_,
                          PlanningServiceOptions{.measurement_rate = &rate});
  Plan predicted, shards;
  ASSERT_NO_FATAL_FAILURE(PlanShards(&predicted, &shards));
  const Task task = SmallTask(6, 2);
  std::vector<double> drifted, exact;
  for (const DeviceCost& device : predicted.devices) {
    drifted.push_back(device.total_ms / 0.8);  // predicted 20% too little
    exact.push_back(device.total_ms);
  }
  const auto report = [&](const std::string& client, const std::vector<double>& device_ms) {
    CallContext call;
    call.client = client;
    return service.ReportMeasurement(task, shards, "analytic@1", device_ms, call);
  };
  for (const std::string client : {"token:a", "token:b", "token:c"}) {
    ASSERT_TRUE(report(client, drifted).ok());
  }
  // One client says the prediction was exact, as often as it may: the drift stays.
  ASSERT_TRUE(report("token:liar", exact).ok());
  absl::StatusOr<MeasurementReport> last = report("token:liar", exact);
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_NEAR(last->window.mean_abs_relative_error, 0.2, 1e-9);
  EXPECT_EQ(last->window.reporters, 4);
  const absl::Status limited = report("token:liar", exact).status();
  EXPECT_EQ(limited.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(limited.message()),
              HasSubstr("max_measurements_per_client_per_minute: client \"token:liar\""));
  EXPECT_TRUE(RetryAfterMs(limited).has_value());
  EXPECT_TRUE(report("token:a", drifted).ok());  // others are not limited by it
}

TEST_F(PlanningServiceTest, NoWorkIsDoneForACallerThatGaveUp) {
  Plan predicted, shards;
  ASSERT_NO_FATAL_FAILURE(PlanShards(&predicted, &shards));
  const Task task = SmallTask(6, 2);
  std::vector<double> device_ms;
  for (const DeviceCost& device : predicted.devices) device_ms.push_back(device.total_ms);
  CallContext late;
  late.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  EXPECT_EQ(service_->Evaluate(task, shards, "analytic", "", late).status().code(),
            absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(service_->Evaluate(task, shards, "", "sim:rtx2080ti", late).status().code(),
            absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(
      service_->ReportMeasurement(task, shards, "analytic@1", device_ms, late).status().code(),
      absl::StatusCode::kDeadlineExceeded);
  // Even a cached plan: nobody waits for it.
  EXPECT_EQ(service_->Plan(Request(), late).status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(service_->Submit(Request(), late).status().code(), absl::StatusCode::kDeadlineExceeded);
  CallContext gone;
  gone.cancelled = [] { return true; };
  EXPECT_EQ(service_->Evaluate(task, shards, "analytic", "", gone).status().code(),
            absl::StatusCode::kCancelled);
  EXPECT_EQ(
      service_->ReportMeasurement(task, shards, "analytic@1", device_ms, gone).status().code(),
      absl::StatusCode::kCancelled);
  // The reports of callers that gave up were not recorded.
  absl::StatusOr<MeasurementReport> report =
      service_->ReportMeasurement(task, shards, "analytic@1", device_ms, call_);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->window.reports, 1);
}

TEST_F(PlanningServiceTest, HeavyWorkIsAdmittedByItsTablesTimesDevices) {
  ConcurrencyLimiter budget(1000);
  PlanningService service(engine_.get(), jobs_.get(), ledger_.get(), &slots_, &clients_, &metrics_,
                          PlanningServiceOptions{.work = &budget});
  const auto scraped = [&] {
    return prometheus::TextSerializer().Serialize(metrics_.registry()->Collect());
  };
  {
    absl::StatusOr<WorkAdmission::Ticket> big = service.AdmitWork(100, 8);
    ASSERT_TRUE(big.ok()) << big.status();
    EXPECT_EQ(budget.in_use(), 800);
    absl::StatusOr<WorkAdmission::Ticket> more = service.AdmitWork(30, 8);
    EXPECT_EQ(more.status().code(), absl::StatusCode::kResourceExhausted);
    EXPECT_THAT(std::string(more.status().message()),
                HasSubstr("max_concurrent_work: this call's task is 30 tables x 8 devices = 240 "
                          "table-devices, and calls in progress hold 800 of the server's 1000"));
    EXPECT_TRUE(RetryAfterMs(more.status()).has_value());  // busy, not too big
    absl::StatusOr<WorkAdmission::Ticket> fits = service.AdmitWork(25, 8);
    ASSERT_TRUE(fits.ok()) << fits.status();
    EXPECT_THAT(scraped(), HasSubstr("shardplan_work_in_progress 1000"));
    EXPECT_THAT(scraped(), HasSubstr("shardplan_work_rejected_total 1"));
  }
  EXPECT_EQ(budget.in_use(), 0);
  EXPECT_THAT(scraped(), HasSubstr("shardplan_work_in_progress 0"));
  // A task larger than the whole budget runs, alone.
  absl::StatusOr<WorkAdmission::Ticket> huge = service.AdmitWork(100000, 4096);
  ASSERT_TRUE(huge.ok()) << huge.status();
  EXPECT_EQ(budget.in_use(), 1000);
  EXPECT_EQ(service.AdmitWork(1, 1).status().code(), absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace shardplan
