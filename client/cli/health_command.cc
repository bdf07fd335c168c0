// `shardplan health`: the standard grpc.health.v1 check, for scripts and probes.
#include "absl/strings/str_cat.h"
#include "client/cli/command_support.h"
#include "client/cli/commands.h"
#include "client/cli/output.h"

namespace shardplan::cli {
namespace {

absl::Status RunHealth(const Invocation& invocation) {
  const std::string service = invocation.flags.Get("service");
  absl::StatusOr<client::HealthStatus> health = invocation.client->Health(service);
  if (!health.ok()) return health.status();
  const absl::string_view name = client::HealthStatusName(*health);
  const std::string text = invocation.global.json ? absl::StrCat("{\"status\": \"", name, "\"}\n")
                                                  : absl::StrCat(name, "\n");
  if (absl::Status written = WriteOutput(text, ""); !written.ok()) return written;
  if (*health != client::HealthStatus::kServing) {
    return absl::UnavailableError(absl::StrCat("server ", invocation.global.server,
                                               service.empty() ? "" : " service " + service, " is ",
                                               name));
  }
  return absl::OkStatus();
}

}  // namespace

Command HealthCommand() {
  Command command;
  command.name = "health";
  command.summary = "check that the server is serving";
  command.description =
      "Calls grpc.health.v1.Health/Check and prints SERVING, NOT_SERVING or UNKNOWN.\n"
      "Exits 0 when SERVING, 6 when not (or when the server cannot be reached), 5 for an\n"
      "unknown --service.\n";
  command.flags = {OptionSpec::Value("service", "NAME",
                                     "service to check (default: the server as a whole), e.g. "
                                     "shardplan.v1.PlannerService")};
  command.run = RunHealth;
  return command;
}

}  // namespace shardplan::cli
