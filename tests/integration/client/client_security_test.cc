// The C++ client's bearer token and TLS / mutual-TLS credentials against a real
// server with auth_tokens_file and mutual TLS on. Certificates:
// scripts/make_test_certs.sh.
#include <fstream>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "client/shardplan_client.h"
#include "client/tls_credentials.h"
#include "gtest/gtest.h"
#include "tests/integration/support/server_process.h"
#include "tests/integration/support/test_pki.h"

namespace shardplan::client {
namespace {

using testing::Sha256Hex;

class ClientSecurityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<testing::TestPki> pki = testing::TestPki::Create();
    ASSERT_TRUE(pki.ok()) << pki.status();
    pki_.emplace(*std::move(pki));
    std::ofstream(File("tokens.json"))
        << R"({"tokens": [{"name": "trainer", "sha256": ")" << Sha256Hex("planner-token")
        << R"(", "role": "planner"}]})";
    absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
        TlsChannelCredentials({File("ca.pem"), File("client.pem"), File("client.key")});
    ASSERT_TRUE(credentials.ok()) << credentials.status();
    credentials_ = *credentials;
    server_.SetChannelCredentials(credentials_);
    absl::Status started = server_.Start(
        {"--tls_cert_file", File("server.pem"), "--tls_key_file", File("server.key"),
         "--tls_client_ca_file", File("ca.pem"), "--auth_tokens_file", File("tokens.json")});
    ASSERT_TRUE(started.ok()) << started;
  }
  std::string File(const std::string& name) const { return pki_->File(name); }

  std::unique_ptr<PlannerClient> Client(const std::string& token) {
    ClientOptions options;
    options.credentials = credentials_;
    options.bearer_token = token;
    options.max_attempts = 1;
    absl::StatusOr<std::unique_ptr<PlannerClient>> client =
        PlannerClient::Connect(server_.target(), options);
    EXPECT_TRUE(client.ok()) << client.status();
    return *std::move(client);
  }

  std::optional<testing::TestPki> pki_;
  std::shared_ptr<grpc::ChannelCredentials> credentials_;
  testing::ServerProcess server_;
};

TEST_F(ClientSecurityTest, BearerTokenOverMutualTlsIsSentOnEveryCall) {
  EXPECT_TRUE(Client("planner-token")->ListAlgorithms().ok());
  absl::StatusOr<v1::ListAlgorithmsResponse> refused = Client("")->ListAlgorithms();
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnauthenticated);
  absl::StatusOr<v1::ReloadModelsResponse> denied = Client("planner-token")->ReloadModels();
  EXPECT_EQ(denied.status().code(), absl::StatusCode::kPermissionDenied);
}

TEST_F(ClientSecurityTest, TlsCredentialsNameUnreadableFiles) {
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> missing =
      TlsChannelCredentials({File("nope.pem"), "", ""});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(),
            absl::StrCat("ca_file: cannot read \"", File("nope.pem"), "\""));
  EXPECT_EQ(TlsChannelCredentials({"", File("client.pem"), ""}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace shardplan::client
