#ifndef SHARDPLAN_CLIENT_CLI_CONNECTION_SECURITY_H_
#define SHARDPLAN_CLIENT_CLI_CONNECTION_SECURITY_H_

// The CLI's TLS and bearer-token options (docs/cli.md, "Secured servers").

#include <vector>

#include "absl/status/status.h"
#include "base/command_line.h"
#include "client/cli/command.h"
#include "client/client_options.h"

namespace shardplan::cli {

// --tls, --tls-ca, --tls-cert, --tls-key, --tls-server-name, --token-file.
std::vector<OptionSpec> SecurityFlags();

// Copies those flags into `security` (a later command line part overrides an earlier one).
void ReadSecurityFlags(const OptionValues& flags, SecurityOptions& security);

// Sets options.credentials, tls_server_name and bearer_token from `security` and
// $SHARDPLAN_TOKEN (--token-file wins). Usage errors for inconsistent options (--tls-cert
// without --tls-key, --tls-server-name without TLS); INVALID_ARGUMENT naming the option and path
// for an unreadable, empty or non-PEM file, or a token that cannot travel in a header.
absl::Status ApplySecurity(const SecurityOptions& security, client::ClientOptions& options);

}  // namespace shardplan::cli

#endif  // SHARDPLAN_CLIENT_CLI_CONNECTION_SECURITY_H_
