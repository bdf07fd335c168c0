#ifndef SHARDPLAN_SERVER_GRPC_GRPC_CORE_LOG_H_
#define SHARDPLAN_SERVER_GRPC_GRPC_CORE_LOG_H_

namespace shardplan {

// Routes gRPC core's own log lines (gpr_log: failed TLS handshakes, broken connections) through
// the server's log, so that they take its format and level, count in shardplan_log_lines_total,
// and fall under its repeat limit keyed by their source line: a flood of failed handshakes
// wrote one unbounded line each before (issue 18). Process-wide; call once at start-up.
void RouteGrpcCoreLogs();

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_GRPC_GRPC_CORE_LOG_H_
