#ifndef SHARDPLAN_SERVER_GRPC_RPC_HANDLER_H_
#define SHARDPLAN_SERVER_GRPC_RPC_HANDLER_H_

#include <chrono>
#include <cstdint>
#include <exception>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "grpcpp/grpcpp.h"
#include "server/metrics.h"
#include "server/grpc/status_conversion.h"

namespace shardplan {

// Runs `handler` (returning absl::Status) as the RPC `method` of `context`: records
// shardplan_rpc_* and turns a stray exception into INTERNAL, so nothing crosses the gRPC
// boundary; a refusal marked WithRetryAfter tells the client when to retry
// (kRetryAfterMetadataKey). Every service's handlers go through it.
template <typename Handler>
grpc::Status HandleRpc(ServerMetrics& metrics, grpc::ServerContextBase& context,
                       absl::string_view method, Handler&& handler) {
  const auto start = std::chrono::steady_clock::now();
  metrics.RecordRpcStart(method);
  absl::Status status;
  try {
    status = handler();
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
  metrics.RecordRpc(method, GrpcCodeName(result.error_code()),
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                        .count());
  return result;
}

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_GRPC_RPC_HANDLER_H_
