// Golden figures of today's five sharding types: every plan the shipped algorithms make on the
// example tasks, and hand-written plans of each type, with the cost model's and the simulator's
// per-device figures and memory in full, and the proto3 JSON, the binary proto, the CLI's tables
// and the TorchRec export byte for byte (as digests).
// The row layout (planner/domain/row_layout.h) re-expresses these types; this file pins that
// nothing a user sees moved. Recorded before the layout existed (commit "golden figures").
//
// To record again after an intended change: SHARDPLAN_UPDATE_GOLDEN=1 ./golden_tests, then read
// the diff of tests/unit/golden/plan_figures.golden.

#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/sha256.h"
#include "client/cli/plan_format.h"
#include "client/cli/torchrec_format.h"
#include "costmodels/analytic/analytic_cost_model.h"
#include "groundtruth/ground_truth.h"
#include "groundtruth/sim/sim_backend.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "planner/algorithms/builtin_algorithms.h"
#include "planner/domain/evaluation.h"
#include "planner/domain/validation.h"
#include "planner/framework/algorithm_registry.h"
#include "planner/framework/plan_task.h"
#include "tests/unit/golden/golden_plans.h"
#include "tests/unit/support/test_files.h"
#include "wire/json_io.h"
#include "wire/plan_proto.h"

namespace shardplan {
namespace {

const std::string kGoldenPath =
    std::string(SHARDPLAN_SOURCE_DIR) + "/tests/unit/golden/plan_figures.golden";

// Doubles as their shortest exact spelling, so that a changed last bit shows.
std::string Exact(double value) { return absl::StrFormat("%.17g", value); }

// An export, byte for byte, in one line: its SHA-256 and length.
std::string Digest(const std::string& bytes) {
  return absl::StrCat("sha256 ", Sha256Hex(bytes), " bytes ", bytes.size());
}

// The binary proto with its map entries in key order.
std::string DeterministicBytes(const v1::Plan& proto) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    proto.SerializeToCodedStream(&coded);
  }
  return bytes;
}

std::string Figures(const Plan& plan) {
  std::string text = absl::StrCat("cost_ms ", Exact(plan.cost_ms), " bottleneck ",
                                  plan.bottleneck_device, "\n");
  for (const DeviceCost& d : plan.devices) {
    absl::StrAppend(&text, "  device ", d.device, " memory ", d.memory_bytes, "/",
                    d.memory_capacity_bytes, " dim_sum ", d.dim_sum, " shards ", d.num_shards,
                    " compute ", Exact(d.compute_ms), " fw ", Exact(d.forward_comm_ms), " bw ",
                    Exact(d.backward_comm_ms), " total ", Exact(d.total_ms), "\n");
  }
  return text;
}

// One case: the plan's shards, its figures under analytic@1 and under the simulator, its JSON,
// its CLI text and its TorchRec export.
std::string Record(const std::string& name, const Task& task, Plan plan) {
  std::string text = absl::StrCat("=== ", name, "\n");
  plan.stats.planning_time_ms = 0;  // the one figure that varies run to run
  const absl::Status valid = ValidatePlan(task, plan);
  absl::StrAppend(&text, "valid: ", valid.ok() ? "OK" : valid.ToString(), "\n");
  const AnalyticCostModel analytic;
  Plan costed = plan;
  const absl::Status evaluated = EvaluatePlan(task, analytic, costed);
  if (!evaluated.ok()) return absl::StrCat(text, "analytic: ", evaluated.ToString(), "\n");
  absl::StrAppend(&text, "analytic ", Figures(costed));
  for (const char* profile : {"rtx2080ti", "h100-sxm"}) {
    auto backend = MakeSimBackend(profile, task.topology.num_devices());
    EXPECT_TRUE(backend.ok()) << backend.status();
    if (!backend.ok()) continue;
    Plan measured = plan;
    const absl::Status status = EvaluatePlanOnHardware(task, **backend, measured);
    absl::StrAppend(&text, "sim:", profile, " ",
                    status.ok() ? Figures(measured) : status.ToString() + "\n");
  }
  const v1::Plan proto = wire::PlanToProto(costed);
  // protobuf writes a map's JSON keys in no fixed order (the plan's parameters): the digest is
  // of the JSON with its keys sorted.
  absl::StrAppend(&text, "json ", Digest(nlohmann::json::parse(wire::PlanToJson(costed)).dump()),
                  "\n");
  absl::StrAppend(&text, "proto ", Digest(DeterministicBytes(proto)), "\n");
  absl::StrAppend(&text, "text ", Digest(cli::FormatPlanText(proto)), "\n");
  absl::StatusOr<std::string> torchrec = cli::FormatTorchRecPlan(proto, {});
  absl::StrAppend(&text, "torchrec ",
                  torchrec.ok() ? Digest(*torchrec) : torchrec.status().ToString(), "\n");
  return text;
}

std::string AllCases() {
  std::string text;
  const AlgorithmRegistry registry = BuiltinAlgorithms();
  const AnalyticCostModel analytic;
  for (const golden::ExampleTask& example : golden::ExampleTasks()) {
    for (const golden::PlannerCase& planner : golden::PlannerCases()) {
      const std::string name = absl::StrCat(example.name, " ", planner.label);
      PlanTaskOptions options;
      options.params = planner.params;
      options.seed = 7;
      absl::StatusOr<Plan> plan =
          PlanTask(**registry.Find(planner.algorithm), example.task, analytic, options);
      if (!plan.ok()) {
        absl::StrAppend(&text, "=== ", name, "\nplanning: ", plan.status().ToString(), "\n");
        continue;
      }
      absl::StrAppend(&text, Record(name, example.task, *std::move(plan)));
    }
    for (const auto& [label, plan] : golden::HandWrittenPlans(example.task)) {
      absl::StrAppend(&text, Record(absl::StrCat(example.name, " hand-written ", label),
                                    example.task, plan));
    }
  }
  return text;
}

TEST(PlanFiguresGoldenTest, TodaysFiveTypesAreUnchanged) {
  const std::string actual = AllCases();
  if (std::getenv("SHARDPLAN_UPDATE_GOLDEN") != nullptr) {
    testing_files::WriteFile(kGoldenPath, actual);
    GTEST_SKIP() << "recorded " << kGoldenPath;
  }
  const std::string expected = testing_files::ReadFile(kGoldenPath);
  ASSERT_FALSE(expected.empty()) << kGoldenPath << " is missing";
  if (actual == expected) return;
  // Name the first line that moved rather than dumping megabytes.
  size_t line = 1, at = 0;
  while (at < actual.size() && at < expected.size() && actual[at] == expected[at]) {
    if (actual[at] == '\n') ++line;
    ++at;
  }
  const auto line_of = [&](const std::string& text) {
    const size_t begin = text.rfind('\n', at == 0 ? 0 : at - 1);
    const size_t start = begin == std::string::npos ? 0 : begin + 1;
    return text.substr(start, text.find('\n', at) - start);
  };
  FAIL() << "golden line " << line << " moved\n  expected: " << line_of(expected)
         << "\n  actual:   " << line_of(actual);
}

}  // namespace
}  // namespace shardplan
