#include "client/cli/connection_security.h"

#include <cstdlib>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/exit_codes.h"
#include "client/cli/input_files.h"
#include "grpcpp/security/credentials.h"

namespace shardplan::cli {
namespace {

constexpr char kTokenEnv[] = "SHARDPLAN_TOKEN";

// The file behind `flag`, which must hold at least one PEM block; "" stays "".
absl::Status ReadPem(absl::string_view flag, const std::string& path, std::string& pem) {
  if (path.empty()) return absl::OkStatus();
  absl::StatusOr<std::string> text = ReadInput(path);
  if (!text.ok())
    return absl::InvalidArgumentError(absl::StrCat(flag, ": ", text.status().message()));
  if (!absl::StrContains(*text, "-----BEGIN ")) {
    return absl::InvalidArgumentError(absl::StrCat(flag, ": ", path, ": holds no PEM block"));
  }
  pem = *std::move(text);
  return absl::OkStatus();
}

// gRPC refuses header values outside printable ASCII; catch that here with a clear message.
absl::Status CheckToken(absl::string_view token, absl::string_view source) {
  if (token.empty())
    return absl::InvalidArgumentError(absl::StrCat(source, ": the token is empty"));
  for (const char c : token) {
    if (c < 0x21 || c > 0x7e) {
      return absl::InvalidArgumentError(
          absl::StrCat(source,
                       ": the token holds a space or a character outside printable "
                       "ASCII, which cannot travel in the authorization header"));
    }
  }
  return absl::OkStatus();
}

// --token-file (its first line), else $SHARDPLAN_TOKEN; "" when neither is given.
absl::Status ReadToken(const SecurityOptions& security, std::string& token) {
  if (!security.token_file.empty()) {
    absl::StatusOr<std::string> text = ReadInput(security.token_file);
    if (!text.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--token-file: ", text.status().message()));
    }
    const absl::string_view first_line = absl::string_view(*text).substr(0, text->find('\n'));
    token = std::string(absl::StripAsciiWhitespace(first_line));
    return CheckToken(token, absl::StrCat("--token-file ", security.token_file));
  }
  const char* env = std::getenv(kTokenEnv);
  if (env == nullptr || *env == '\0') return absl::OkStatus();
  token = std::string(absl::StripAsciiWhitespace(env));
  return CheckToken(token, absl::StrCat("$", kTokenEnv));
}

}  // namespace

std::vector<OptionSpec> SecurityFlags() {
  return {
      OptionSpec::Switch("tls", "connect with TLS, verifying the server against the system's CAs"),
      OptionSpec::Value("tls-ca", "FILE", "connect with TLS, verifying the server against this CA"),
      OptionSpec::Value("tls-cert", "FILE",
                        "client certificate for mutual TLS (with --tls-key; implies --tls)"),
      OptionSpec::Value("tls-key", "FILE", "private key of --tls-cert"),
      OptionSpec::Value("tls-server-name", "NAME",
                        "name to check the server's certificate for (default: the --server host)"),
      OptionSpec::Value("token-file", "FILE",
                        "bearer token: the file's first line (default: $SHARDPLAN_TOKEN)"),
  };
}

void ReadSecurityFlags(const OptionValues& flags, SecurityOptions& security) {
  if (flags.Has("tls")) security.tls = true;
  const auto copy = [&flags](absl::string_view name, std::string& field) {
    if (flags.Has(name)) field = flags.Get(name);
  };
  copy("tls-ca", security.ca_file);
  copy("tls-cert", security.cert_file);
  copy("tls-key", security.key_file);
  copy("tls-server-name", security.server_name);
  copy("token-file", security.token_file);
}

absl::Status ApplySecurity(const SecurityOptions& security, client::ClientOptions& options) {
  if (security.cert_file.empty() != security.key_file.empty()) {
    return UsageError(
        "--tls-cert and --tls-key go together: mutual TLS needs the certificate "
        "and its private key");
  }
  const bool tls = security.tls || !security.ca_file.empty() || !security.cert_file.empty();
  if (!security.server_name.empty() && !tls) {
    return UsageError("--tls-server-name needs TLS (--tls, --tls-ca or --tls-cert)");
  }
  if (tls) {
    grpc::SslCredentialsOptions ssl;  // empty pem_root_certs: the system's roots
    for (absl::Status read : {ReadPem("--tls-ca", security.ca_file, ssl.pem_root_certs),
                              ReadPem("--tls-cert", security.cert_file, ssl.pem_cert_chain),
                              ReadPem("--tls-key", security.key_file, ssl.pem_private_key)}) {
      if (!read.ok()) return read;
    }
    options.credentials = grpc::SslCredentials(ssl);
    options.tls_server_name = security.server_name;
  }
  return ReadToken(security, options.bearer_token);
}

}  // namespace shardplan::cli
