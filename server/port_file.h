#ifndef SHARDPLAN_SERVER_PORT_FILE_H_
#define SHARDPLAN_SERVER_PORT_FILE_H_

#include <string>

#include "absl/status/status.h"

namespace shardplan {

// Writes {"grpc_port": N, "metrics_port": M} to `path` atomically (a temporary file in the
// same directory, renamed into place), so a reader never sees a partial file.
absl::Status WritePortFile(const std::string& path, int grpc_port, int metrics_port);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_PORT_FILE_H_
