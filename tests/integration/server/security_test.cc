// TLS, mutual TLS, bearer tokens, per-client limits and the planning-time cap
// of the real server. Certificates come from scripts/make_test_certs.sh
// (openssl) at test time.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "reflection_v1alpha.grpc.pb.h"
#include "shardplan/v1/admin.grpc.pb.h"
#include "tests/integration/server/server_test_support.h"
#include "tests/integration/support/files.h"
#include "tests/integration/support/test_pki.h"

namespace shardplan::integration {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kPlannerToken[] = "planner-secret-1";
constexpr char kOtherPlannerToken[] = "planner-secret-2";
constexpr char kAdminToken[] = "admin-secret";

using testing::ReadFile;
using testing::Sha256Hex;

class SecurityTest : public ServerTest {
 protected:
  void SetUp() override {
    absl::StatusOr<testing::TestPki> pki = testing::TestPki::Create();
    ASSERT_TRUE(pki.ok()) << pki.status();
    pki_.emplace(*std::move(pki));
    std::ofstream(File("tokens.json"))
        << R"({"tokens": [{"name": "trainer-a", "sha256": ")" << Sha256Hex(kPlannerToken)
        << R"(", "role": "planner"}, {"name": "trainer-b", "sha256": ")"
        << Sha256Hex(kOtherPlannerToken)
        << R"(", "role": "planner", "scopes": ["measurements"]}, {"name": "ops", "sha256": ")"
        << Sha256Hex(kAdminToken) << R"(", "role": "admin"}]})";
  }
  std::string File(const std::string& name) const { return pki_->File(name); }

  // TLS trusting the test CA, with the client certificate `client` ("client",
  // "rogue_client") or none ("").
  std::shared_ptr<grpc::ChannelCredentials> Tls(const std::string& client = "") const {
    grpc::SslCredentialsOptions options;
    options.pem_root_certs = ReadFile(File("ca.pem"));
    if (!client.empty()) {
      options.pem_private_key = ReadFile(File(client + ".key"));
      options.pem_cert_chain = ReadFile(File(client + ".pem"));
    }
    return grpc::SslCredentials(options);
  }
  std::vector<std::string> TlsArgs() const {
    return {"--tls_cert_file", File("server.pem"), "--tls_key_file", File("server.key")};
  }

  // A context with `authorization: Bearer <token>` ("" sends none).
  static std::unique_ptr<grpc::ClientContext> As(const std::string& token) {
    std::unique_ptr<grpc::ClientContext> context = Context();
    if (!token.empty()) context->AddMetadata("authorization", absl::StrCat("Bearer ", token));
    return context;
  }
  grpc::Status PlanAs(const std::string& token, const v1::PlanRequest& request) {
    v1::PlanResponse response;
    return stub_->Plan(As(token).get(), request, &response);
  }
  grpc::Status ReloadAs(const std::string& token) {
    v1::ReloadModelsResponse response;
    return v1::AdminService::NewStub(server_.Channel())
        ->ReloadModels(As(token).get(), v1::ReloadModelsRequest(), &response);
  }

  // AwaitState for a server that wants trainer-a's token.
  v1::JobStatus AwaitStateAs(const std::string& id, v1::JobState state) {
    const auto deadline = std::chrono::steady_clock::now() + kRpcTimeout;
    v1::JobStatus status;
    while (std::chrono::steady_clock::now() < deadline) {
      grpc::Status rpc = stub_->GetPlan(As(kPlannerToken).get(), Job(id), &status);
      EXPECT_TRUE(rpc.ok()) << rpc.error_message();
      if (!rpc.ok() || status.state() == state) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ(status.state(), state) << status.DebugString();
    return status;
  }

  std::optional<testing::TestPki> pki_;
};

TEST_F(SecurityTest, TlsServesTlsClientsAndPlaintextClientsFail) {
  server_.SetChannelCredentials(Tls());
  std::vector<std::string> args = TlsArgs();
  args.insert(args.end(), {"--auth_tokens_file", File("tokens.json")});
  StartServer(args);
  EXPECT_TRUE(PlanAs(kPlannerToken, QuickRequest()).ok());
  EXPECT_EQ(PlanAs("", QuickRequest()).error_code(), grpc::StatusCode::UNAUTHENTICATED);

  auto plaintext = v1::PlannerService::NewStub(
      grpc::CreateChannel(server_.target(), grpc::InsecureChannelCredentials()));
  v1::PlanResponse response;
  grpc::Status refused = plaintext->Plan(As(kPlannerToken).get(), QuickRequest(), &response);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE) << refused.error_message();
  EXPECT_THAT(server_.log(),
              Not(HasSubstr("plaintext")));  // no warning with TLS on
}

// Issue 18: every failed TLS handshake wrote one line of gRPC core's own, unbounded. They go
// through the server's log now: its format and its repeat limit, keyed by their source line.
TEST_F(SecurityTest, FailedHandshakesAreLoggedWithinTheRepeatLimit) {
  server_.SetChannelCredentials(Tls());
  std::vector<std::string> args = TlsArgs();
  args.insert(args.end(), {"--log_repeat_limit=3", "--log_format=json"});
  StartServer(args);
  for (int i = 0; i < 10; ++i) {  // a plaintext client on a new connection each time
    grpc::ChannelArguments fresh;
    fresh.SetInt("shardplan.test.connection", i);  // no subchannel sharing between them
    auto plaintext = v1::PlannerService::NewStub(
        grpc::CreateCustomChannel(server_.target(), grpc::InsecureChannelCredentials(), fresh));
    v1::PlanResponse response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
    EXPECT_FALSE(plaintext->Plan(&context, QuickRequest(), &response).ok());
  }
  const std::string log = server_.log();
  int handshake_lines = 0;
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    if (!absl::StrContains(line, "andshake")) continue;
    ++handshake_lines;
    EXPECT_THAT(std::string(line), ::testing::StartsWith("{\"ts\":")) << line;  // our format
    EXPECT_THAT(std::string(line), HasSubstr("\"msg\":\"grpc: ")) << line;
  }
  EXPECT_GE(handshake_lines, 1) << log;
  EXPECT_LE(handshake_lines, 3) << log;
  EXPECT_GE(MetricValue(Scrape(), "shardplan_log_lines_suppressed_total"), 1);
}

TEST_F(SecurityTest, MutualTlsAcceptsOnlyClientCertificatesOfItsCa) {
  server_.SetChannelCredentials(Tls("client"));
  std::vector<std::string> args = TlsArgs();
  args.insert(args.end(), {"--tls_client_ca_file", File("ca.pem")});
  StartServer(args);
  EXPECT_TRUE(PlanAs("", QuickRequest()).ok());

  for (const std::string client : {"", "rogue_client"}) {
    auto stub = v1::PlannerService::NewStub(grpc::CreateChannel(server_.target(), Tls(client)));
    v1::PlanResponse response;
    grpc::Status refused = stub->Plan(Context().get(), QuickRequest(), &response);
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE)
        << "client cert \"" << client << "\": " << refused.error_message();
  }
}

TEST_F(SecurityTest, TokensGateEveryCallByRoleAndTheRefusalsAreCounted) {
  StartServer({"--auth_tokens_file", File("tokens.json")});
  EXPECT_THAT(server_.log(), HasSubstr("warning: auth_tokens_file is set without TLS"));

  grpc::Status missing = PlanAs("", QuickRequest());
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(missing.error_message(), StartsWith("missing bearer token"));
  grpc::Status unknown = PlanAs("guess", QuickRequest());
  EXPECT_EQ(unknown.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(unknown.error_message(), "unknown bearer token");
  v1::ListAlgorithmsResponse algorithms;
  EXPECT_EQ(stub_->ListAlgorithms(As("").get(), {}, &algorithms).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);

  EXPECT_TRUE(PlanAs(kPlannerToken, QuickRequest()).ok());
  EXPECT_TRUE(stub_->ListAlgorithms(As(kPlannerToken).get(), {}, &algorithms).ok());
  grpc::Status denied = ReloadAs(kPlannerToken);
  EXPECT_EQ(denied.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(denied.error_message(), HasSubstr("shardplan.v1.AdminService/ReloadModels"));
  EXPECT_THAT(denied.error_message(), HasSubstr("needs role \"admin\""));
  EXPECT_TRUE(ReloadAs(kAdminToken).ok());
  EXPECT_TRUE(PlanAs(kAdminToken, QuickRequest()).ok());  // admin may plan too
  EXPECT_EQ(ReloadAs("").error_code(), grpc::StatusCode::UNAUTHENTICATED);

  // Kubernetes probes carry no token.
  absl::StatusOr<int> health = testing::CheckHealth(server_.Channel(), "");
  ASSERT_TRUE(health.ok()) << health.status();
  EXPECT_EQ(*health, 1);

  // Reflection is not open either.
  auto reflection = ::grpc::reflection::v1alpha::ServerReflection::NewStub(server_.Channel());
  auto context = Context();
  auto stream = reflection->ServerReflectionInfo(context.get());
  ::grpc::reflection::v1alpha::ServerReflectionRequest list;
  list.set_list_services("");
  stream->Write(list);
  ::grpc::reflection::v1alpha::ServerReflectionResponse response;
  EXPECT_FALSE(stream->Read(&response));
  EXPECT_EQ(stream->Finish().error_code(), grpc::StatusCode::UNAUTHENTICATED);

  const std::string metrics = Scrape();
  EXPECT_EQ(MetricValue(metrics,
                        "shardplan_auth_rejections_total{code=\"UNAUTHENTICATED\","
                        "method=\"shardplan.v1.PlannerService/Plan\"}"),
            2);
  EXPECT_EQ(MetricValue(metrics,
                        "shardplan_auth_rejections_total{code=\"UNAUTHENTICATED\","
                        "method=\"shardplan.v1.PlannerService/ListAlgorithms\"}"),
            1);
  EXPECT_EQ(MetricValue(metrics,
                        "shardplan_auth_rejections_total{code=\"PERMISSION_DENIED\","
                        "method=\"shardplan.v1.AdminService/ReloadModels\"}"),
            1);
  EXPECT_EQ(MetricValue(metrics,
                        "shardplan_auth_rejections_total{code=\"UNAUTHENTICATED\","
                        "method=\"shardplan.v1.AdminService/ReloadModels\"}"),
            1);
  EXPECT_EQ(MetricValue(metrics,
                        "shardplan_auth_rejections_total{code=\"UNAUTHENTICATED\","
                        "method=\"grpc.reflection.v1alpha.ServerReflection/"
                        "ServerReflectionInfo\"}"),
            1);
}

TEST_F(SecurityTest, OnlyTokensWithTheMeasurementsScopeReportMeasurements) {
  StartServer({"--auth_tokens_file", File("tokens.json")});
  v1::PlanResponse planned;
  ASSERT_TRUE(stub_->Plan(As(kPlannerToken).get(), QuickRequest(), &planned).ok());
  v1::ReportMeasurementRequest report;
  *report.mutable_task() = QuickRequest().task();
  *report.mutable_plan() = planned.plan();
  for (const v1::DeviceCost& device : planned.plan().devices()) {
    report.add_device_ms(device.total_ms());
  }
  v1::ReportMeasurementResponse answer;
  // trainer-a plans, but its token may not move the model's error gauge.
  grpc::Status denied = stub_->ReportMeasurement(As(kPlannerToken).get(), report, &answer);
  EXPECT_EQ(denied.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(denied.error_message(),
              HasSubstr("ReportMeasurement needs scope \"measurements\"; the token \"trainer-a\""));
  grpc::Status reported = stub_->ReportMeasurement(As(kOtherPlannerToken).get(), report, &answer);
  ASSERT_TRUE(reported.ok()) << reported.error_message();
  EXPECT_EQ(answer.reports(), 1);
  EXPECT_TRUE(stub_->ReportMeasurement(As(kAdminToken).get(), report, &answer).ok());
  // The log says who reported.
  EXPECT_THAT(server_.log(), HasSubstr("token:trainer-b"));
}

// Issue 32's two attacks on the error gauge, on the real server: one report of 5e-324 ms (it set
// the error to +Inf) and 100 reports equal to the prediction from one token (they erased a real
// 23% drift).
TEST_F(SecurityTest, NeitherATinyTimeNorOneReportersFloodMovesTheModelsError) {
  const std::vector<std::string> reporters = {"job-1", "job-2", "job-3", "liar"};
  std::ofstream tokens(File("reporters.json"));
  tokens << R"({"tokens": [)";
  for (size_t i = 0; i < reporters.size(); ++i) {
    tokens << (i == 0 ? "" : ", ") << R"({"name": ")" << reporters[i] << R"(", "sha256": ")"
           << Sha256Hex(reporters[i] + "-secret")
           << R"(", "role": "planner", "scopes": ["measurements"]})";
  }
  tokens << "]}";
  tokens.close();
  StartServer({"--auth_tokens_file", File("reporters.json"),
               "--max_measurements_per_client_per_minute=1000"});
  v1::PlanRequest request = QuickRequest();
  request.set_model("analytic@1");
  v1::PlanResponse planned;
  ASSERT_TRUE(stub_->Plan(As("job-1-secret").get(), request, &planned).ok());
  const auto report_as = [&](const std::string& reporter, double scale,
                             v1::ReportMeasurementResponse* answer) {
    v1::ReportMeasurementRequest report;
    *report.mutable_task() = request.task();
    *report.mutable_plan() = planned.plan();
    for (const v1::DeviceCost& device : planned.plan().devices()) {
      report.add_device_ms(device.total_ms() * scale);
    }
    return stub_->ReportMeasurement(As(reporter + "-secret").get(), report, answer);
  };
  // Three jobs measure every device 1/0.77 times slower than predicted: a 23% error.
  v1::ReportMeasurementResponse answer;
  for (const std::string job : {"job-1", "job-2", "job-3"}) {
    ASSERT_TRUE(report_as(job, 1 / 0.77, &answer).ok());
  }
  EXPECT_NEAR(answer.mean_abs_relative_error(), 0.23, 1e-9);

  v1::ReportMeasurementRequest tiny;
  *tiny.mutable_task() = request.task();
  *tiny.mutable_plan() = planned.plan();
  for (int d = 0; d < planned.plan().devices_size(); ++d) tiny.add_device_ms(d == 0 ? 5e-324 : 1);
  const grpc::Status refused = stub_->ReportMeasurement(As("liar-secret").get(), tiny, &answer);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(refused.error_message(), HasSubstr("device_ms[0]: 4.94066e-324 ms is not a "
                                                 "plausible time per iteration"));

  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(report_as("liar", 1.0, &answer).ok()) << "report " << i;
    EXPECT_NEAR(answer.relative_error(), 0.0, 1e-9);
  }
  EXPECT_NEAR(answer.mean_abs_relative_error(), 0.23, 1e-9);
  EXPECT_NEAR(MetricValue(Scrape(), R"(shardplan_model_prediction_error{model="analytic@1"})"),
              0.23, 1e-9);
  // Every accepted report is on record with its sender.
  EXPECT_THAT(server_.log(),
              HasSubstr("measurement reported model=analytic@1 reporter=token:liar"));
  EXPECT_THAT(server_.log(), HasSubstr("reporter=token:job-3"));
}

TEST_F(SecurityTest, SighupReloadsTheTokens) {
  StartServer({"--auth_tokens_file", File("tokens.json")});
  EXPECT_EQ(PlanAs("brand-new", QuickRequest()).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  std::ofstream(File("tokens.json")) << R"({"tokens": [{"name": "new", "sha256": ")"
                                     << Sha256Hex("brand-new") << R"(", "role": "planner"}]})";
  ASSERT_TRUE(server_.Signal(SIGHUP).ok());
  // The reload happens on the server's signal thread; wait for its log line.
  const auto deadline = std::chrono::steady_clock::now() + kRpcTimeout;
  while (server_.log().find("1 tokens in force") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(PlanAs("brand-new", QuickRequest()).ok());
  EXPECT_EQ(PlanAs(kPlannerToken, QuickRequest()).error_code(), grpc::StatusCode::UNAUTHENTICATED);
}

TEST_F(SecurityTest, MaxRequestsPerClientRefusesOneClientWhileOthersAreServed) {
  StartServer({"--auth_tokens_file", File("tokens.json"), "--max_requests_per_client=1",
               "--workers=1", "--max_planning_time_ms=0"});
  // trainer-a's slow job holds its only slot until cancelled.
  v1::SubmitPlanResponse submitted;
  ASSERT_TRUE(stub_->SubmitPlan(As(kPlannerToken).get(), SlowRequest(), &submitted).ok());
  AwaitStateAs(submitted.job_id(), v1::RUNNING);

  grpc::Status refused = PlanAs(kPlannerToken, QuickRequest(1));
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(), StartsWith("max_requests_per_client: client "
                                                  "\"token:trainer-a\" already has 1 "));
  v1::SubmitPlanResponse second;
  EXPECT_EQ(stub_->SubmitPlan(As(kPlannerToken).get(), QuickRequest(2), &second).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_TRUE(PlanAs(kOtherPlannerToken, QuickRequest(3)).ok());

  v1::JobStatus cancelled;
  ASSERT_TRUE(stub_->CancelPlan(As(kPlannerToken).get(), Job(submitted.job_id()), &cancelled).ok());
  AwaitStateAs(submitted.job_id(), v1::CANCELLED);
  EXPECT_TRUE(PlanAs(kPlannerToken, QuickRequest(4)).ok());  // the slot came back
}

// Issue 18: a job belongs to the token that submitted it. Another planner token is told
// NOT_FOUND for it (GetPlan, WatchPlan, CancelPlan: as for an unknown id) and cannot DeletePlan
// (an admin method); an admin token reads and cancels it; its owner reads it. The same holds for
// a record only the store holds: a keyless Plan call's, and the job after a restart.
TEST_F(SecurityTest, JobsBelongToTheTokenThatSubmittedThem) {
  const std::vector<std::string> args = {"--auth_tokens_file", File("tokens.json"), "--workers=1",
                                         "--max_planning_time_ms=0"};
  StartServer(args);
  auto get = [&](const std::string& token, const std::string& id, v1::JobStatus* status) {
    return stub_->GetPlan(As(token).get(), Job(id), status);
  };
  auto cancel = [&](const std::string& token, const std::string& id) {
    v1::JobStatus status;
    return stub_->CancelPlan(As(token).get(), Job(id), &status);
  };
  // The first status of a watch, or the stream's refusal.
  auto watch = [&](const std::string& token, const std::string& id) {
    std::unique_ptr<grpc::ClientContext> context = As(token);
    auto stream = stub_->WatchPlan(context.get(), Job(id));
    v1::JobStatus first;
    if (stream->Read(&first)) {
      context->TryCancel();
      (void)stream->Finish();
      return grpc::Status::OK;
    }
    return stream->Finish();
  };
  // What an unknown id of the same length gets, with `id` in its place.
  auto unknown_message = [&](const std::string& id) {
    const std::string other(id.size(), 'f');
    v1::JobStatus status;
    const grpc::Status unknown = get(kOtherPlannerToken, other, &status);
    EXPECT_EQ(unknown.error_code(), grpc::StatusCode::NOT_FOUND);
    std::string message = unknown.error_message();
    message.replace(message.find(other), other.size(), id);
    return message;
  };
  auto expect_hidden_from_b = [&](const std::string& id) {
    v1::JobStatus status;
    const grpc::Status got = get(kOtherPlannerToken, id, &status);
    EXPECT_EQ(got.error_code(), grpc::StatusCode::NOT_FOUND) << id;
    EXPECT_EQ(got.error_message(), unknown_message(id));
    const grpc::Status watched = watch(kOtherPlannerToken, id);
    EXPECT_EQ(watched.error_code(), grpc::StatusCode::NOT_FOUND) << watched.error_message();
    const grpc::Status cancelled = cancel(kOtherPlannerToken, id);
    EXPECT_EQ(cancelled.error_code(), grpc::StatusCode::NOT_FOUND) << cancelled.error_message();
    EXPECT_EQ(cancelled.error_message(), unknown_message(id));
    v1::DeletePlanRequest remove;
    remove.set_job_id(id);
    v1::DeletePlanResponse removed;
    EXPECT_EQ(v1::AdminService::NewStub(server_.Channel())
                  ->DeletePlan(As(kOtherPlannerToken).get(), remove, &removed)
                  .error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
  };

  v1::SubmitPlanResponse submitted;
  ASSERT_TRUE(stub_->SubmitPlan(As(kPlannerToken).get(), SlowRequest(), &submitted).ok());
  const std::string id = submitted.job_id();
  AwaitStateAs(id, v1::RUNNING);
  v1::PlanResponse planned;
  ASSERT_TRUE(stub_->Plan(As(kPlannerToken).get(), QuickRequest(7), &planned).ok());
  ASSERT_FALSE(planned.job_id().empty());

  expect_hidden_from_b(id);
  expect_hidden_from_b(planned.job_id());
  EXPECT_EQ(AwaitStateAs(id, v1::RUNNING).state(), v1::RUNNING);  // B's cancel did nothing
  v1::JobStatus status;
  EXPECT_TRUE(get(kPlannerToken, planned.job_id(), &status).ok());
  EXPECT_TRUE(watch(kPlannerToken, id).ok());
  for (const std::string& job : {id, planned.job_id()}) {
    EXPECT_TRUE(get(kAdminToken, job, &status).ok()) << job;
    EXPECT_TRUE(watch(kAdminToken, job).ok()) << job;
  }
  EXPECT_TRUE(cancel(kAdminToken, id).ok());
  AwaitStateAs(id, v1::CANCELLED);

  // A job key is the name the ranks of a training job share: keyed Plan calls answer whoever
  // knows the key, as before.
  v1::PlanRequest keyed = QuickRequest(8);
  keyed.set_job_key("team/run-1");
  ASSERT_TRUE(PlanAs(kPlannerToken, keyed).ok());
  v1::PlanResponse shared;
  ASSERT_TRUE(stub_->Plan(As(kOtherPlannerToken).get(), keyed, &shared).ok());
  EXPECT_TRUE(shared.from_store());

  // After a restart only the store knows the job: the same answers.
  ASSERT_TRUE(server_.Signal(SIGTERM).ok());
  ASSERT_TRUE(server_.WaitForExit(std::chrono::seconds(60)).ok()) << server_.log();
  StartServer(args);
  expect_hidden_from_b(id);
  ASSERT_TRUE(get(kPlannerToken, id, &status).ok());
  EXPECT_EQ(status.state(), v1::CANCELLED);
  EXPECT_TRUE(get(kAdminToken, id, &status).ok());
  EXPECT_TRUE(watch(kPlannerToken, id).ok());
}

TEST_F(SecurityTest, MaxPlanningTimeCapsPlanCallsAndJobs) {
  StartServer({"--max_planning_time_ms=300"});
  v1::PlanResponse response;
  grpc::Status capped = Plan(SlowRequest(), &response);  // the call's own deadline is 30 s
  EXPECT_EQ(capped.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_THAT(capped.error_message(), StartsWith("max_planning_time_ms: "));

  const v1::JobStatus job = AwaitState(Submit(SlowRequest()), v1::FAILED);
  EXPECT_THAT(job.error_message(), StartsWith("max_planning_time_ms: ")) << job.DebugString();
}

TEST_F(SecurityTest, BadSecuritySettingsStopTheStartNamingTheSetting) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--tls_cert_file", File("server.pem")}, "tls_key_file: must be set with tls_cert_file"},
      {{"--tls_cert_file", File("missing.pem"), "--tls_key_file", File("server.key")},
       "tls_cert_file: cannot read"},
      {{"--tls_cert_file", File("server.pem"), "--tls_key_file", File("client.key")},
       "tls_key_file: "},
      {{"--tls_client_ca_file", File("ca.pem")}, "tls_client_ca_file: "},
      {{"--auth_tokens_file", File("missing.json")}, "auth_tokens_file \""},
  };
  for (const auto& [args, expected] : cases) {
    testing::ServerProcess server;
    absl::Status started = server.Start(args, std::chrono::seconds(10));
    EXPECT_FALSE(started.ok());
    EXPECT_THAT(std::string(started.message()), HasSubstr(expected)) << args[0];
  }
}

}  // namespace
}  // namespace shardplan::integration
