#include "client/tls_credentials.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace shardplan::client {
namespace {

absl::Status ReadFile(absl::string_view option, const std::string& path, std::string* text) {
  if (path.empty()) return absl::OkStatus();
  std::ifstream in(path, std::ios::binary);
  std::stringstream content;
  if (in) content << in.rdbuf();
  if (!in || content.str().empty()) {
    return absl::NotFoundError(absl::StrCat(option, ": cannot read \"", path, "\""));
  }
  *text = content.str();
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> TlsChannelCredentials(
    const TlsFiles& files) {
  if (files.cert_file.empty() != files.key_file.empty()) {
    return absl::InvalidArgumentError(
        "tls cert_file and key_file: mutual TLS "
        "needs both the certificate and its key");
  }
  grpc::SslCredentialsOptions options;
  for (absl::Status read : {ReadFile("ca_file", files.ca_file, &options.pem_root_certs),
                            ReadFile("cert_file", files.cert_file, &options.pem_cert_chain),
                            ReadFile("key_file", files.key_file, &options.pem_private_key)}) {
    if (!read.ok()) return read;
  }
  return grpc::SslCredentials(options);
}

}  // namespace shardplan::client
