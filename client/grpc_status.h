#ifndef SHARDPLAN_CLIENT_GRPC_STATUS_H_
#define SHARDPLAN_CLIENT_GRPC_STATUS_H_

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace shardplan::client {

// The same code (gRPC and absl number their codes identically) and the message unchanged.
absl::Status ToAbslStatus(const grpc::Status& status);

}  // namespace shardplan::client

#endif  // SHARDPLAN_CLIENT_GRPC_STATUS_H_
