#include "client/grpc_status.h"

namespace shardplan::client {

absl::Status ToAbslStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

}  // namespace shardplan::client
