#include "server/grpc/server_credentials.h"

#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"

namespace shardplan {
namespace {

absl::StatusOr<std::string> ReadPem(absl::string_view setting, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(setting, ": cannot read \"", path, "\""));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct BioDeleter {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct X509Deleter {
  void operator()(X509* cert) const { X509_free(cert); }
};
struct KeyDeleter {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};

std::unique_ptr<BIO, BioDeleter> Bio(const std::string& pem) {
  return std::unique_ptr<BIO, BioDeleter>(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

std::unique_ptr<X509, X509Deleter> FirstCertificate(const std::string& pem) {
  return std::unique_ptr<X509, X509Deleter>(
      PEM_read_bio_X509(Bio(pem).get(), nullptr, nullptr, nullptr));
}

// gRPC only reports bad PEM as "cannot listen"; checking here names the file
// instead.
absl::Status CheckKeyPair(const TlsFiles& files, const std::string& cert_pem,
                          const std::string& key_pem) {
  std::unique_ptr<X509, X509Deleter> cert = FirstCertificate(cert_pem);
  if (cert == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("tls_cert_file: \"", files.cert_file, "\" holds no PEM certificate"));
  }
  std::unique_ptr<EVP_PKEY, KeyDeleter> key(
      PEM_read_bio_PrivateKey(Bio(key_pem).get(), nullptr, nullptr, nullptr));
  if (key == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("tls_key_file: \"", files.key_file,
                                                   "\" holds no unencrypted PEM private key"));
  }
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    return absl::InvalidArgumentError(absl::StrCat("tls_key_file: \"", files.key_file,
                                                   "\" is not the key of tls_cert_file \"",
                                                   files.cert_file, "\""));
  }
  return absl::OkStatus();
}

// gRPC's C++ InsecureServerCredentials refuses an AuthMetadataProcessor, but
// the core's insecure credentials run one like any other: this binds the two,
// so that a plaintext port checks tokens on exactly the same path as a TLS one.
class PlaintextWithProcessor final : public grpc::ServerCredentials {
 public:
  explicit PlaintextWithProcessor(std::shared_ptr<grpc::AuthMetadataProcessor> processor)
      : core_(grpc_insecure_server_credentials_create()), processor_(std::move(processor)) {
    grpc_server_credentials_set_auth_metadata_processor(
        core_, grpc_auth_metadata_processor{&Process, nullptr, processor_.get()});
  }
  ~PlaintextWithProcessor() override { grpc_server_credentials_release(core_); }

  void SetAuthMetadataProcessor(
      const std::shared_ptr<grpc::AuthMetadataProcessor>& /*processor*/) override {}

 private:
  int AddPortToServer(const std::string& addr, grpc_server* server) override {
    return grpc_server_add_http2_port(server, addr.c_str(), core_);
  }

  static void Process(void* state, grpc_auth_context* /*context*/, const grpc_metadata* md,
                      size_t num_md, grpc_process_auth_metadata_done_cb done, void* user_data) {
    grpc::AuthMetadataProcessor::InputMetadata metadata;
    for (size_t i = 0; i < num_md; ++i) {
      metadata.insert(std::make_pair(
          grpc::string_ref(reinterpret_cast<const char*>(GRPC_SLICE_START_PTR(md[i].key)),
                           GRPC_SLICE_LENGTH(md[i].key)),
          grpc::string_ref(reinterpret_cast<const char*>(GRPC_SLICE_START_PTR(md[i].value)),
                           GRPC_SLICE_LENGTH(md[i].value))));
    }
    grpc::AuthMetadataProcessor::OutputMetadata unused;
    const grpc::Status status = static_cast<grpc::AuthMetadataProcessor*>(state)->Process(
        metadata, nullptr, &unused, &unused);
    done(user_data, nullptr, 0, nullptr, 0, static_cast<grpc_status_code>(status.error_code()),
         status.ok() ? nullptr : status.error_message().c_str());
  }

  grpc_server_credentials* const core_;
  const std::shared_ptr<grpc::AuthMetadataProcessor> processor_;  // outlives core_'s use
};

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const TlsFiles& files, std::shared_ptr<grpc::AuthMetadataProcessor> processor) {
  if (files.cert_file.empty() && files.key_file.empty()) {
    if (!files.client_ca_file.empty()) {
      return absl::InvalidArgumentError(
          "tls_client_ca_file: needs TLS (tls_cert_file and tls_key_file)");
    }
    if (processor == nullptr) return grpc::InsecureServerCredentials();
    return std::shared_ptr<grpc::ServerCredentials>(
        std::make_shared<PlaintextWithProcessor>(std::move(processor)));
  }
  if (files.cert_file.empty() || files.key_file.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        files.cert_file.empty() ? "tls_cert_file" : "tls_key_file", ": must be set with ",
        files.cert_file.empty() ? "tls_key_file" : "tls_cert_file"));
  }
  absl::StatusOr<std::string> cert = ReadPem("tls_cert_file", files.cert_file);
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadPem("tls_key_file", files.key_file);
  if (!key.ok()) return key.status();
  if (absl::Status pair = CheckKeyPair(files, *cert, *key); !pair.ok()) return pair;

  grpc::SslServerCredentialsOptions options;
  options.pem_key_cert_pairs.push_back({*key, *cert});
  if (!files.client_ca_file.empty()) {
    absl::StatusOr<std::string> ca = ReadPem("tls_client_ca_file", files.client_ca_file);
    if (!ca.ok()) return ca.status();
    if (FirstCertificate(*ca) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("tls_client_ca_file: \"", files.client_ca_file,
                                                     "\" holds no PEM certificate"));
    }
    options.pem_root_certs = *ca;
    options.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::SslServerCredentials(options);
  if (processor != nullptr) credentials->SetAuthMetadataProcessor(std::move(processor));
  return credentials;
}

}  // namespace shardplan
