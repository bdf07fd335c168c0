#ifndef SHARDPLAN_CLIENT_CLIENT_OPTIONS_H_
#define SHARDPLAN_CLIENT_CLIENT_OPTIONS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "grpcpp/security/credentials.h"

namespace shardplan::client {

// What the client tells `ClientOptions::on_retry` before it sleeps and tries a call again.
struct RetryEvent {
  std::string method;      // e.g. "Plan", "WatchPlan"
  int attempt = 0;         // the attempt that just failed, 1-based
  absl::Status status;     // its error: UNAVAILABLE, or a transient RESOURCE_EXHAUSTED
  absl::Duration backoff;  // how long the client sleeps before the next attempt
};

// Options of a PlannerClient. Every default is what a training job wants at launch.
struct ClientOptions {
  // Deadline of every unary call that does not set its own (CallOptions::timeout). The deadline
  // covers all attempts of a retried call, backoff sleeps included.
  absl::Duration default_timeout = absl::Seconds(30);
  // Deadline of WatchPlan streams that do not set their own: jobs may legitimately run long.
  absl::Duration watch_timeout = absl::InfiniteDuration();

  // Retries: a call that fails with UNAVAILABLE (server down, restarting, connection refused),
  // or with a RESOURCE_EXHAUSTED the server marks as transient (all planning slots or the job
  // queue busy, the caller's own requests at their limit; not a task over the server's limits),
  // is tried again until its deadline, sleeping initial_backoff, then x multiplier per attempt
  // up to max_backoff (or the server's retry-after hint if longer), each sleep scaled by a
  // random factor in [1 - jitter, 1 + jitter] so that many trainers starting together do not
  // retry in lockstep. So a job launched while its server (re)starts waits for it, for as long
  // as its deadline allows. The last sleep is cut short to leave the last attempt at least
  // initial_backoff before the deadline; a call whose deadline leaves less makes no further
  // attempt and returns the last error. No other code is retried. A call without a deadline
  // (WatchPlan by default) retries until the server answers.
  // max_attempts > 0 caps the attempts of a call in all (1 disables retries); 0, the default,
  // leaves it to the deadline.
  int max_attempts = 0;
  absl::Duration initial_backoff = absl::Milliseconds(200);
  absl::Duration max_backoff = absl::Seconds(5);
  double backoff_multiplier = 2.0;
  double jitter = 0.2;

  // Called before each retry sleep (from the calling thread); for logging. May be empty.
  std::function<void(const RetryEvent&)> on_retry;

  // Channel credentials; null means insecure (plaintext), the server's default. For TLS and
  // mutual TLS see TlsChannelCredentials (client/tls_credentials.h).
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  // With TLS: the name checked against the server's certificate instead of the target's host
  // (e.g. connecting by an IP address the certificate does not list). "": the target's host.
  std::string tls_server_name;

  // Sent as "authorization: Bearer <token>" on every call when not empty (servers with
  // auth_tokens_file need it). Works over TLS and plaintext alike; over plaintext only use it on
  // loopback, as the token is readable on the wire.
  std::string bearer_token;

  // Largest response accepted. Plans of tens of thousands of tables exceed gRPC's 4 MiB default.
  int max_receive_message_bytes = 256 * 1024 * 1024;
};

// Per-call overrides.
struct CallOptions {
  // Deadline of this call (all attempts). Unset: ClientOptions::default_timeout, or
  // watch_timeout for WatchPlan. absl::InfiniteDuration() means no deadline.
  std::optional<absl::Duration> timeout;
};

}  // namespace shardplan::client

#endif  // SHARDPLAN_CLIENT_CLIENT_OPTIONS_H_
