#include "server/grpc/grpc_core_log.h"

#include <grpc/support/log.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "server/logging.h"

namespace shardplan {
namespace {

LogLevel LevelOf(gpr_log_severity severity) {
  switch (severity) {
    case GPR_LOG_SEVERITY_DEBUG:
      return LogLevel::kDebug;
    case GPR_LOG_SEVERITY_INFO:
      return LogLevel::kInfo;
    case GPR_LOG_SEVERITY_ERROR:
      return LogLevel::kError;
  }
  return LogLevel::kError;
}

void Forward(gpr_log_func_args* args) {
  if (args == nullptr) return;
  const LogLevel level = LevelOf(args->severity);
  if (!LogEnabled(level)) return;
  const std::string at = absl::StrCat(args->file != nullptr ? args->file : "?", ":", args->line);
  Log(level, absl::StrCat("grpc: ", args->message != nullptr ? args->message : ""), {{"at", at}},
      absl::StrCat("grpc ", at));
}

}  // namespace

void RouteGrpcCoreLogs() { gpr_set_log_function(Forward); }

}  // namespace shardplan
