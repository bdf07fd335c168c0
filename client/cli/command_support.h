#ifndef SHARDPLAN_CLIENT_CLI_COMMAND_SUPPORT_H_
#define SHARDPLAN_CLIENT_CLI_COMMAND_SUPPORT_H_

// What several commands share: connecting, the plan-request and plan-output options.

#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client/cli/command.h"
#include "client/shardplan_client.h"
#include "google/protobuf/message.h"
#include "shardplan/v1/planner.pb.h"

namespace shardplan::cli {

// --server, --timeout, --json, --max-attempts, --help, and the TLS and token options.
std::vector<OptionSpec> GlobalFlags();
// Fills `global` from parsed flags and the environment; usage errors for bad values.
absl::Status ReadGlobalOptions(const OptionValues& flags, GlobalOptions& global);

// A client for --server with --timeout, --max-attempts, TLS and token; retries are reported on
// stderr.
absl::StatusOr<std::unique_ptr<client::PlannerClient>> ConnectClient(const GlobalOptions& global);

// --algorithm, --param, --seed, --model, --no-cache.
std::vector<OptionSpec> PlanRequestFlags();
// The request for `task` under those options; usage errors for malformed values.
absl::StatusOr<shardplan::v1::PlanRequest> BuildPlanRequest(const Invocation& invocation,
                                                            shardplan::v1::Task task);

// -o, --output FILE.
OptionSpec OutputFlag();
// --format, -o, --torchrec-module, --local-world-size.
std::vector<OptionSpec> PlanOutputFlags();

enum class OutputFormat { kText, kJson, kTorchRec };
// --format (text, json, torchrec) and --json; a usage error when they disagree.
absl::StatusOr<OutputFormat> ResolveOutputFormat(const Invocation& invocation);

// How a job ended, as the exit status of get, watch and plot: OK while queued or running and
// once it succeeded, CANCELLED, or JobFailedError (exit 10) with the job's code and message.
absl::Status JobOutcome(const shardplan::v1::JobStatus& status);

// Writes a plan result to stdout or -o: text (FormatPlanText), `json_message` as proto JSON, or
// the TorchRec shape (placements per --local-world-size, else the plan's local_world_size).
// `task`, when known, names the SEQUENCE tables that the TorchRec format puts under the
// EmbeddingCollection's module.
absl::Status EmitPlan(const Invocation& invocation, const shardplan::v1::Plan& plan,
                      std::optional<bool> cache_hit, const google::protobuf::Message& json_message,
                      const shardplan::v1::Task* task = nullptr);

}  // namespace shardplan::cli

#endif  // SHARDPLAN_CLIENT_CLI_COMMAND_SUPPORT_H_
