// Health, reflection, the Prometheus endpoint and the log of the real server.
#include <ctime>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/dynamic_message.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "reflection_v1alpha.grpc.pb.h"
#include "tests/integration/server/server_test_support.h"

namespace shardplan::integration {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;
using ::testing::StartsWith;
namespace reflection = ::grpc::reflection::v1alpha;
namespace protobuf = ::google::protobuf;

// Every line of a JSON log, parsed (a line that is not one JSON object fails the test).
std::vector<nlohmann::json> JsonLines(const std::string& log) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    nlohmann::json json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    EXPECT_TRUE(json.is_object()) << "not a JSON object: " << line;
    if (json.is_object()) lines.push_back(std::move(json));
  }
  return lines;
}

// The request lines of `method` (msg "request"), in order.
std::vector<nlohmann::json> RequestLines(const std::string& log, const std::string& method) {
  std::vector<nlohmann::json> found;
  for (nlohmann::json& line : JsonLines(log)) {
    if (line.value("msg", "") == "request" && line.value("method", "") == method) {
      found.push_back(std::move(line));
    }
  }
  return found;
}

class ObservabilityTest : public ServerTest {
 protected:
  void SetUp() override { StartServer(); }
};

TEST_F(ObservabilityTest, HealthIsServing) {
  absl::StatusOr<int> overall = testing::CheckHealth(server_.Channel(), "");
  ASSERT_TRUE(overall.ok()) << overall.status();
  EXPECT_EQ(*overall, 1);  // SERVING
  absl::StatusOr<int> service =
      testing::CheckHealth(server_.Channel(), "shardplan.v1.PlannerService");
  ASSERT_TRUE(service.ok()) << service.status();
  EXPECT_EQ(*service, 1);
}

// One ServerReflectionInfo stream, as a reflection client (grpcurl) uses it.
class ReflectionSession {
 public:
  explicit ReflectionSession(const std::shared_ptr<grpc::Channel>& channel)
      : stub_(reflection::ServerReflection::NewStub(channel)) {
    context_.set_deadline(std::chrono::system_clock::now() + kRpcTimeout);  // before the call
    stream_ = stub_->ServerReflectionInfo(&context_);
  }

  // The services the server lists.
  std::set<std::string> Services() {
    reflection::ServerReflectionRequest list;
    list.set_list_services("");
    const reflection::ServerReflectionResponse response = Ask(list);
    std::set<std::string> services;
    for (const auto& service : response.list_services_response().service()) {
      services.insert(service.name());
    }
    return services;
  }

  // The answer to file_containing_symbol `symbol`.
  reflection::ServerReflectionResponse FileContaining(const std::string& symbol) {
    reflection::ServerReflectionRequest describe;
    describe.set_file_containing_symbol(symbol);
    return Ask(describe);
  }

  grpc::Status Finish() {
    stream_->WritesDone();
    return stream_->Finish();
  }

 private:
  reflection::ServerReflectionResponse Ask(const reflection::ServerReflectionRequest& request) {
    reflection::ServerReflectionResponse response;
    EXPECT_TRUE(stream_->Write(request) && stream_->Read(&response)) << request.DebugString();
    return response;
  }

  std::unique_ptr<reflection::ServerReflection::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<reflection::ServerReflectionRequest,
                                           reflection::ServerReflectionResponse>>
      stream_;
};

TEST_F(ObservabilityTest, ReflectionListsAndDescribesThePlannerService) {
  ReflectionSession session(server_.Channel());
  const std::set<std::string> services = session.Services();
  EXPECT_TRUE(services.contains("shardplan.v1.PlannerService"));
  EXPECT_TRUE(services.contains("grpc.health.v1.Health"));
  EXPECT_GE(session.FileContaining("shardplan.v1.PlannerService")
                .file_descriptor_response()
                .file_descriptor_proto_size(),
            1);
  EXPECT_TRUE(session.Finish().ok());
}

// What a client that has nothing but server reflection (grpcurl) does: find the Health service,
// fetch its file descriptor, build the request from the descriptor and call it as raw bytes. No
// health header is included here: everything comes from the server.
TEST_F(ObservabilityTest, HealthCanBeDescribedAndCalledThroughReflectionAlone) {
  ReflectionSession session(server_.Channel());
  ASSERT_TRUE(session.Services().contains("grpc.health.v1.Health"));
  const reflection::ServerReflectionResponse response =
      session.FileContaining("grpc.health.v1.Health");
  ASSERT_TRUE(response.has_file_descriptor_response()) << response.error_response().error_message();
  EXPECT_TRUE(session.Finish().ok());

  // The files come with their dependencies, in no promised order: build until all are in.
  std::vector<protobuf::FileDescriptorProto> files;
  for (const std::string& bytes : response.file_descriptor_response().file_descriptor_proto()) {
    ASSERT_TRUE(files.emplace_back().ParseFromString(bytes));
  }
  protobuf::DescriptorPool pool;
  for (size_t built = 0, round = 0; built < files.size() && round < files.size(); ++round) {
    for (const protobuf::FileDescriptorProto& file : files) {
      if (pool.FindFileByName(file.name()) == nullptr && pool.BuildFile(file) != nullptr) ++built;
    }
  }
  const protobuf::ServiceDescriptor* health = pool.FindServiceByName("grpc.health.v1.Health");
  ASSERT_NE(health, nullptr);
  const protobuf::MethodDescriptor* check = health->FindMethodByName("Check");
  ASSERT_NE(check, nullptr);
  EXPECT_NE(health->FindMethodByName("Watch"), nullptr);

  protobuf::DynamicMessageFactory factory(&pool);
  for (const std::string& name : {std::string(""), std::string("shardplan.v1.PlannerService")}) {
    std::unique_ptr<protobuf::Message> request(factory.GetPrototype(check->input_type())->New());
    const protobuf::FieldDescriptor* service = check->input_type()->FindFieldByName("service");
    ASSERT_NE(service, nullptr);
    request->GetReflection()->SetString(request.get(), service, name);
    absl::StatusOr<std::string> bytes = testing::CallUnaryBytes(
        server_.Channel(), absl::StrCat("/", health->full_name(), "/", check->name()),
        request->SerializeAsString(), std::chrono::seconds(10));
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    std::unique_ptr<protobuf::Message> reply(factory.GetPrototype(check->output_type())->New());
    ASSERT_TRUE(reply->ParseFromString(*bytes));
    const protobuf::FieldDescriptor* status = check->output_type()->FindFieldByName("status");
    ASSERT_NE(status, nullptr);
    EXPECT_EQ(reply->GetReflection()->GetEnum(*reply, status)->name(), "SERVING")
        << "service \"" << name << "\"";
  }
}

TEST_F(ObservabilityTest, ProcessAndBuildMetricsAreExposed) {
  const std::string metrics = Scrape();
  EXPECT_GT(MetricValue(metrics, "process_resident_memory_bytes"), 0);
  EXPECT_GE(MetricValue(metrics, "process_virtual_memory_bytes"),
            MetricValue(metrics, "process_resident_memory_bytes"));
  EXPECT_THAT(metrics, HasSubstr("\nprocess_cpu_seconds_total "));  // may still read 0 ticks
  EXPECT_GE(MetricValue(metrics, "process_cpu_seconds_total"), 0);
  EXPECT_GT(MetricValue(metrics, "process_open_fds"), 0);
  EXPECT_GE(MetricValue(metrics, "process_max_fds"), MetricValue(metrics, "process_open_fds"));
  EXPECT_GT(MetricValue(metrics, "process_threads"), 1);
  const double started = MetricValue(metrics, "process_start_time_seconds");
  const double now = static_cast<double>(std::time(nullptr));
  EXPECT_LE(started, now + 1);
  EXPECT_GT(started, now - 3600);

  std::smatch build;
  const std::regex build_info(
      R"re(shardplan_build_info\{build_type="([^"]*)",compiler="([^"]*)",git_commit="([^"]*)",version="([^"]*)"\} (\S+))re");
  ASSERT_TRUE(std::regex_search(metrics, build, build_info)) << metrics;
  EXPECT_FALSE(build[1].str().empty());
  EXPECT_FALSE(build[2].str().empty());
  EXPECT_FALSE(build[3].str().empty());  // the commit, or "unknown" outside a git checkout
  EXPECT_THAT(build[4].str(), ::testing::MatchesRegex(R"([0-9]+\.[0-9]+\.[0-9]+)"));
  EXPECT_EQ(build[5].str(), "1");
  EXPECT_GT(MetricValue(metrics, R"(shardplan_log_lines_total{level="info"})"), 0);
}

TEST_F(ObservabilityTest, MetricsMoveWithTraffic) {
  const std::string before = Scrape();
  EXPECT_THAT(before, HasSubstr("shardplan_models_loaded 1"));
  EXPECT_THAT(before, HasSubstr("shardplan_job_queue_depth 0"));

  v1::PlanRequest request;
  *request.mutable_task() = SmallTask();
  v1::PlanResponse response;
  ASSERT_TRUE(Plan(request, &response).ok());
  ASSERT_TRUE(Plan(request, &response).ok());  // a cache hit
  request.set_algorithm("nope");
  ASSERT_FALSE(Plan(request, &response).ok());

  const std::string after = Scrape();
  EXPECT_EQ(MetricValue(after, R"(shardplan_rpc_requests_total{code="OK",method="Plan"})"), 2);
  EXPECT_EQ(
      MetricValue(after, R"(shardplan_rpc_requests_total{code="INVALID_ARGUMENT",method="Plan"})"),
      1);
  EXPECT_EQ(MetricValue(after, R"(shardplan_rpc_duration_seconds_count{method="Plan"})"), 3);
  EXPECT_EQ(MetricValue(after, R"(shardplan_plans_total{algorithm="neuroshard"})"), 1);
  EXPECT_EQ(
      MetricValue(after, R"(shardplan_planning_duration_seconds_count{algorithm="neuroshard"})"),
      1);
  EXPECT_EQ(MetricValue(after, "shardplan_plan_cache_hits_total"), 1);
  EXPECT_EQ(MetricValue(after, "shardplan_plan_cache_misses_total"), 1);
  EXPECT_EQ(MetricValue(after, "shardplan_plan_cache_entries"), 1);
  EXPECT_GT(MetricValue(after, "shardplan_plan_cache_bytes"), 0);

  v1::PlanRequest job;
  *job.mutable_task() = SmallTask(4, 2);
  const std::string id = Submit(job);
  AwaitState(id, v1::SUCCEEDED);
  const std::string jobs = Scrape();
  EXPECT_EQ(MetricValue(jobs, R"(shardplan_jobs_finished_total{state="SUCCEEDED"})"), 1);
  EXPECT_EQ(MetricValue(jobs, "shardplan_jobs_in_flight"), 0);
}

class RequestLogTest : public ServerTest {};

TEST_F(RequestLogTest, EveryRequestIsOneJsonLineWithItsOutcome) {
  StartServer({"--log_format", "json"});
  v1::PlanResponse planned;
  ASSERT_TRUE(Plan(QuickRequest(), &planned).ok());
  v1::PlanResponse cached;
  ASSERT_TRUE(Plan(QuickRequest(), &cached).ok());
  ASSERT_TRUE(cached.cache_hit());
  v1::PlanRequest invalid = QuickRequest();
  invalid.set_algorithm("nope");
  v1::PlanResponse refused;
  const grpc::Status refusal = Plan(invalid, &refused);
  ASSERT_EQ(refusal.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  v1::JobStatus unknown;
  ASSERT_EQ(stub_->CancelPlan(Context().get(), Job("no-such-job"), &unknown).error_code(),
            grpc::StatusCode::NOT_FOUND);
  const std::string slow = Submit(SlowRequest());
  v1::JobStatus cancelled;
  ASSERT_TRUE(stub_->CancelPlan(Context().get(), Job(slow), &cancelled).ok());
  const std::string quick = Submit(QuickRequest(7));
  const v1::JobStatus done = AwaitState(quick, v1::SUCCEEDED);

  const std::string log = server_.log();
  const std::vector<nlohmann::json> plans = RequestLines(log, "Plan");
  ASSERT_THAT(plans, SizeIs(3)) << log;
  for (const nlohmann::json& line : plans) {
    EXPECT_THAT(line.value("peer", ""), StartsWith("peer:127.0.0.1")) << line;
    EXPECT_TRUE(line.contains("ts")) << line;
    EXPECT_TRUE(line["latency_ms"].is_number()) << line;
    EXPECT_GE(line["latency_ms"].get<double>(), 0) << line;
  }
  EXPECT_EQ(plans[0]["level"], "info");
  EXPECT_EQ(plans[0]["code"], "OK");
  EXPECT_EQ(plans[0]["outcome"], "computed");
  EXPECT_EQ(plans[0]["algorithm"], planned.plan().algorithm());
  EXPECT_EQ(plans[0]["model"], planned.plan().cost_model());
  EXPECT_EQ(plans[0]["job_id"], planned.job_id());
  EXPECT_FALSE(plans[0].contains("error"));
  EXPECT_EQ(plans[1]["level"], "info");
  EXPECT_EQ(plans[1]["outcome"], "cache_hit");
  EXPECT_EQ(plans[1]["model"], planned.plan().cost_model());
  EXPECT_EQ(plans[2]["level"], "warn");
  EXPECT_EQ(plans[2]["code"], "INVALID_ARGUMENT");
  EXPECT_EQ(plans[2]["algorithm"], "nope");
  EXPECT_EQ(plans[2]["error"], refusal.error_message());

  const std::vector<nlohmann::json> cancels = RequestLines(log, "CancelPlan");
  ASSERT_THAT(cancels, SizeIs(2)) << log;
  EXPECT_EQ(cancels[0]["level"], "warn");
  EXPECT_EQ(cancels[0]["code"], "NOT_FOUND");
  EXPECT_EQ(cancels[0]["job_id"], "no-such-job");
  EXPECT_THAT(cancels[0].value("error", ""), HasSubstr("no-such-job"));
  EXPECT_EQ(cancels[1]["level"], "info");
  EXPECT_EQ(cancels[1]["job_id"], slow);
  EXPECT_EQ(cancels[1]["job_state"], v1::JobState_Name(cancelled.state()));

  const std::vector<nlohmann::json> submits = RequestLines(log, "SubmitPlan");
  ASSERT_THAT(submits, SizeIs(2)) << log;
  EXPECT_EQ(submits[1]["code"], "OK");
  EXPECT_EQ(submits[1]["job_id"], quick);
  EXPECT_THAT(submits[1].value("job_state", ""), AnyOf("QUEUED", "RUNNING", "SUCCEEDED"));
  const std::vector<nlohmann::json> gets = RequestLines(log, "GetPlan");
  ASSERT_FALSE(gets.empty()) << log;
  EXPECT_EQ(gets.back()["job_id"], quick);
  EXPECT_EQ(gets.back()["job_state"], "SUCCEEDED");
  EXPECT_EQ(gets.back()["model"], done.result().plan().cost_model());
  EXPECT_EQ(gets.back()["algorithm"], done.result().plan().algorithm());
}

TEST_F(RequestLogTest, AFloodOfOneRefusalIsBoundedCountedAndReported) {
  StartServer({"--log_format=json", "--log_repeat_limit", "3"});
  for (int i = 0; i < 20; ++i) {
    v1::JobStatus status;
    ASSERT_EQ(stub_->GetPlan(Context().get(), Job(""), &status).error_code(),
              grpc::StatusCode::INVALID_ARGUMENT);
  }
  v1::PlanResponse response;
  ASSERT_TRUE(Plan(QuickRequest(), &response).ok());  // another key still shows

  std::vector<nlohmann::json> refusals = RequestLines(server_.log(), "GetPlan");
  ASSERT_THAT(refusals, SizeIs(3));
  EXPECT_EQ(refusals[0]["error"], "job_id: required");
  EXPECT_THAT(RequestLines(server_.log(), "Plan"), SizeIs(1));
  const std::string metrics = Scrape();
  EXPECT_EQ(MetricValue(metrics, "shardplan_log_lines_suppressed_total"), 17);
  EXPECT_GE(MetricValue(metrics, R"(shardplan_log_lines_total{level="warn"})"), 3);

  // The drain reports what was held back before the server stops.
  ASSERT_TRUE(server_.Signal(SIGTERM).ok());
  ASSERT_TRUE(server_.WaitForExit(std::chrono::seconds(60)).ok());
  const std::vector<nlohmann::json> lines = JsonLines(server_.log());
  std::vector<nlohmann::json> reports;
  for (const nlohmann::json& line : lines) {
    if (line.contains("suppressed")) reports.push_back(line);
  }
  ASSERT_THAT(reports, SizeIs(1)) << server_.log();
  EXPECT_EQ(reports[0]["level"], "warn");
  EXPECT_EQ(reports[0]["suppressed"], 17);
  EXPECT_EQ(reports[0]["msg"],
            "suppressed 17 lines like: request method=GetPlan code=INVALID_ARGUMENT "
            "peer=peer:127.0.0.1");
  EXPECT_EQ(lines.back()["msg"], "stopped");
}

TEST_F(RequestLogTest, LogfmtLinesBelowTheLevelAreDropped) {
  StartServer({"--log_level", "warn", "--log_format", "logfmt"});
  v1::PlanResponse response;
  ASSERT_TRUE(Plan(QuickRequest(), &response).ok());
  v1::PlanRequest invalid = QuickRequest();
  invalid.set_algorithm("nope");
  ASSERT_FALSE(Plan(invalid, &response).ok());
  const std::string log = server_.log();
  EXPECT_THAT(log, Not(HasSubstr("code=OK")));  // info: below the level
  EXPECT_THAT(log, Not(HasSubstr("serving on")));
  EXPECT_THAT(log, HasSubstr("level=warn msg=request method=Plan peer=peer:127.0.0.1 "
                             "code=INVALID_ARGUMENT latency_ms="));
  EXPECT_THAT(log, HasSubstr("algorithm=nope error=\"algorithm: unknown algorithm"));
}

}  // namespace
}  // namespace shardplan::integration
