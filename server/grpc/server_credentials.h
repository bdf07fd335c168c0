#ifndef SHARDPLAN_SERVER_GRPC_SERVER_CREDENTIALS_H_
#define SHARDPLAN_SERVER_GRPC_SERVER_CREDENTIALS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/security/auth_metadata_processor.h"
#include "grpcpp/security/server_credentials.h"

namespace shardplan {

// The PEM files of the gRPC port (ServerConfig's tls_* settings); all empty:
// plaintext.
struct TlsFiles {
  std::string cert_file;       // tls_cert_file: certificate chain
  std::string key_file;        // tls_key_file: its private key
  std::string client_ca_file;  // tls_client_ca_file: mutual TLS, clients need a
                               // cert it signed
};

// Credentials for the gRPC port: TLS (mutual when client_ca_file is set) or
// plaintext, with `processor` (may be null) checking every call's metadata in
// both cases. Errors name the setting and the path: NOT_FOUND for an unreadable
// file, INVALID_ARGUMENT for a file that holds no PEM certificate / key or a
// key that does not belong to the certificate.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const TlsFiles& files, std::shared_ptr<grpc::AuthMetadataProcessor> processor);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_GRPC_SERVER_CREDENTIALS_H_
