#ifndef SHARDPLAN_SERVER_GRPC_RPC_HANDLER_H_
#define SHARDPLAN_SERVER_GRPC_RPC_HANDLER_H_

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "grpcpp/grpcpp.h"
#include "server/grpc/client_identity.h"
#include "server/grpc/status_conversion.h"
#include "server/logging.h"
#include "server/metrics.h"
#include "server/request_log.h"

namespace shardplan {

// Names the caller of a call, for per-client limits and the request log (ClientIdentity).
using IdentifyCaller = std::function<std::string(const grpc::ServerContext&)>;

// Runs `handler` (returning absl::Status) as the RPC `method` of `context`: records
// shardplan_rpc_*, writes the request's log line (LogRequest: method, caller, code, latency and
// what the handler noted) and turns a stray exception into INTERNAL, so nothing crosses the
// gRPC boundary; a refusal marked WithRetryAfter tells the client when to retry
// (kRetryAfterMetadataKey). A handler that takes a RequestLog& fills the line's fields
// (algorithm, model, job, outcome). `identify` names the caller; null: "peer:<host>". Every
// service's handlers go through it.
template <typename Handler>
grpc::Status HandleRpc(ServerMetrics& metrics, grpc::ServerContext& context,
                       absl::string_view method, Handler&& handler,
                       const IdentifyCaller& identify = nullptr) {
  const auto start = std::chrono::steady_clock::now();
  metrics.RecordRpcStart(method);
  absl::Status status;
  RequestLog log;
  try {
    if constexpr (std::is_invocable_v<Handler&, RequestLog&>) {
      status = handler(log);
    } else {
      status = handler();
    }
  } catch (const std::exception& e) {
    // Nothing of ours throws; this keeps a library bug from crossing the gRPC boundary.
    status = absl::InternalError(absl::StrCat("internal error: ", e.what()));
  } catch (...) {
    status = absl::InternalError("internal error");
  }
  if (const std::optional<int64_t> retry_after_ms = RetryAfterMs(status)) {
    context.AddTrailingMetadata(kRetryAfterMetadataKey, absl::StrCat(*retry_after_ms));
  }
  grpc::Status result = ToGrpcStatus(status);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  metrics.RecordRpc(method, GrpcCodeName(result.error_code()), seconds);
  // The code the client sees (codes outside gRPC's range are UNKNOWN), with the full message.
  const absl::Status answered(static_cast<absl::StatusCode>(result.error_code()), status.message());
  if (LogEnabled(RequestLogLevel(answered.code()))) {
    try {  // a log line never fails the call it describes
      LogRequest(method,
                 identify ? identify(context) : absl::StrCat("peer:", PeerHost(context.peer())),
                 answered, seconds * 1000, log);
    } catch (...) {
    }
  }
  return result;
}

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_GRPC_RPC_HANDLER_H_
