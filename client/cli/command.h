#ifndef SHARDPLAN_CLIENT_CLI_COMMAND_H_
#define SHARDPLAN_CLIENT_CLI_COMMAND_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "base/command_line.h"
#include "client/shardplan_client.h"

namespace shardplan::cli {

// How the CLI authenticates the server and itself (client/cli/connection_security.h). Paths
// as given; the files are read when the client is built.
struct SecurityOptions {
  bool tls = false;             // --tls: TLS with the system's roots
  std::string ca_file;          // --tls-ca
  std::string cert_file;        // --tls-cert (mutual TLS, with --tls-key)
  std::string key_file;         // --tls-key
  std::string server_name;      // --tls-server-name: the name checked against the certificate
  std::string token_file;       // --token-file; else $SHARDPLAN_TOKEN
};

// Options every command accepts, before or after the command name.
struct GlobalOptions {
  std::string server;                     // --server, $SHARDPLAN_SERVER, or 127.0.0.1:50051
  std::optional<absl::Duration> timeout;  // --timeout: every call's deadline, watch included
  bool json = false;                      // --json
  // --max-attempts: tries on UNAVAILABLE; 0: until the deadline. A person waits at the
  // terminal, so the CLI keeps a count where a job's client waits for its deadline.
  int max_attempts = 4;
  SecurityOptions security;               // --tls*, --token-file
};

// One parsed command line, as a command's Run sees it.
struct Invocation {
  GlobalOptions global;
  OptionValues flags;  // the command's options and its positional arguments
  // The server at global.server. Connecting is lazy: nothing reaches the server before a call.
  client::PlannerClient* client = nullptr;

  const std::vector<std::string>& args() const { return flags.positionals(); }
};

// A subcommand of the tool: `shardplan NAME [options] ARGS`.
struct Command {
  std::string name;
  std::string arguments;    // "TASK", shown in the usage line
  std::string summary;      // one line, for the tool's --help
  std::string description;  // the command's --help body
  std::vector<OptionSpec> flags;
  size_t min_args = 0;
  size_t max_args = 0;
  // Prints the result and returns OK, or the error that sets the exit code (base/exit_codes.h).
  std::function<absl::Status(const Invocation&)> run;
};

}  // namespace shardplan::cli

#endif  // SHARDPLAN_CLIENT_CLI_COMMAND_H_
