#ifndef SHARDPLAN_CLIENT_TLS_CREDENTIALS_H_
#define SHARDPLAN_CLIENT_TLS_CREDENTIALS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/security/credentials.h"

namespace shardplan::client {

// PEM files for a TLS channel to shardplan-server.
struct TlsFiles {
  std::string ca_file;    // CA that signed the server's certificate; "": the
                          // system's roots
  std::string cert_file;  // client certificate chain for mutual TLS; "": none
  std::string key_file;   // its private key; set with cert_file
};

// TLS (or, with cert_file and key_file, mutual TLS) channel credentials.
// NOT_FOUND naming the option and path for an unreadable file, INVALID_ARGUMENT
// when only one of cert_file and key_file is set.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> TlsChannelCredentials(
    const TlsFiles& files);

}  // namespace shardplan::client

#endif  // SHARDPLAN_CLIENT_TLS_CREDENTIALS_H_
