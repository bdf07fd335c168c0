#ifndef SHARDPLAN_SERVER_PORT_FILE_H_
#define SHARDPLAN_SERVER_PORT_FILE_H_

#include <string>

#include "absl/status/status.h"

namespace shardplan {

// Writes {"grpc_port": N, "metrics_port": M, "health_port": H} to `path` atomically (a
// temporary file in the same directory, renamed into place), so a reader never sees a partial
// file. A disabled endpoint's port is 0.
absl::Status WritePortFile(const std::string& path, int grpc_port, int metrics_port,
                           int health_port = 0);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_PORT_FILE_H_
