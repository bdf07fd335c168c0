// Arbitrary bytes -> shardplan.v1.PlanRequest -> PlanningRequestFromProto ->
// PlanningEngine:: Prepare, with the server's algorithms, its built-in models
// and its default limits (what a Plan or SubmitPlan call goes through before
// planning). Properties: no crash; every error has a message and one of the
// codes the API documents; a prepared request has an algorithm, a model, a task
// that validates and a cache key. It never plans (too slow to fuzz).

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "costmodels/model_registry.h"
#include "google/protobuf/stubs/logging.h"
#include "planner/algorithms/builtin_algorithms.h"
#include "planner/domain/validation.h"
#include "planner/framework/algorithm_registry.h"
#include "server/planning_engine.h"
#include "server/request_proto.h"
#include "server/server_config.h"
#include "shardplan/v1/planner.pb.h"
#include "tests/fuzz/fuzz_check.h"

namespace shardplan::fuzz {
namespace {

constexpr std::initializer_list<absl::StatusCode> kDocumentedCodes = {
    absl::StatusCode::kInvalidArgument, absl::StatusCode::kResourceExhausted,
    absl::StatusCode::kNotFound, absl::StatusCode::kFailedPrecondition};

// What ShardplanServer::Start builds, without the network, the cache and the
// metrics.
struct Server {
  ServerConfig config;  // the defaults: limits, default algorithm and model
  AlgorithmRegistry algorithms = BuiltinAlgorithms();
  ModelRegistry models;
  std::unique_ptr<PlanningEngine> engine;

  Server() {
    // ParseFromArray logs every invalid UTF-8 string it refuses; the fuzzer makes millions.
    google::protobuf::SetLogHandler(nullptr);
    if (absl::Status added = RegisterBuiltinModels(models); !added.ok()) {
      Fail("RegisterBuiltinModels", added.ToString());
    }
    if (absl::Status chosen = models.SetDefault(config.registry_default_model()); !chosen.ok()) {
      Fail("SetDefault", chosen.ToString());
    }
    PlanningEngineOptions options;
    options.default_algorithm = config.default_algorithm;
    options.default_model = config.default_model;
    options.limits = config.task_limits();
    engine = std::make_unique<PlanningEngine>(&algorithms, &models,
                                              /*cache=*/nullptr,
                                              /*metrics=*/nullptr, options);
  }
};

void CheckRequest(const Server &server, const v1::PlanRequest &proto) {
  absl::StatusOr<PlanningRequest> request =
      PlanningRequestFromProto(proto, server.engine->options().limits);
  if (!request.ok()) {
    CheckError(request.status(), "PlanningRequestFromProto", kDocumentedCodes);
    return;
  }
  absl::StatusOr<PreparedRequest> prepared = server.engine->Prepare(*std::move(request));
  if (!prepared.ok()) {
    CheckError(prepared.status(), "PlanningEngine::Prepare", kDocumentedCodes);
    return;
  }
  if (prepared->planning.algorithm == nullptr) Fail("Prepare", "no algorithm");
  if (prepared->model.model == nullptr) Fail("Prepare", "no model");
  if (prepared->cache_key.empty()) Fail("Prepare", "no cache key");
  if (absl::Status valid = ValidateTask(prepared->task, server.engine->options().limits);
      !valid.ok()) {
    Fail("Prepare accepted a task that does not validate", valid.ToString());
  }
}

}  // namespace
}  // namespace shardplan::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using shardplan::fuzz::Server;
  if (size > shardplan::fuzz::kMaxInputBytes) return -1;  // -1: not added to the corpus
  static const Server *const server = new Server();
  shardplan::v1::PlanRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return 0;
  shardplan::fuzz::CheckRequest(*server, request);
  return 0;
}
