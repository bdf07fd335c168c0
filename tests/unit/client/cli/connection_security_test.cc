// The CLI's TLS and token options: which combinations are usage errors, how files and
// $SHARDPLAN_TOKEN become the client's credentials and token. Handshakes against a real TLS
// server are tests/integration/cli (SecuredServerTest).

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/command_line.h"
#include "base/exit_codes.h"
#include "client/cli/command_support.h"
#include "client/cli/connection_security.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan::cli {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kPem[] = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

class ConnectionSecurityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* value = std::getenv("SHARDPLAN_TOKEN")) saved_token_ = value;
    unsetenv("SHARDPLAN_TOKEN");
  }
  void TearDown() override {
    if (saved_token_.has_value()) {
      setenv("SHARDPLAN_TOKEN", saved_token_->c_str(), 1);
    } else {
      unsetenv("SHARDPLAN_TOKEN");
    }
    for (const std::string& path : files_) std::remove(path.c_str());
  }

  std::string WriteFile(const std::string& name, const std::string& text) {
    const std::string path = absl::StrCat(::testing::TempDir(), "/cli_security_", name);
    std::ofstream(path, std::ios::binary) << text;
    files_.push_back(path);
    return path;
  }

  // The security options of a command line of global flags.
  static SecurityOptions Parse(const std::vector<std::string>& args) {
    absl::StatusOr<OptionValues> flags = ParseOptions(GlobalFlags(), args);
    EXPECT_TRUE(flags.ok()) << flags.status();
    GlobalOptions global;
    EXPECT_TRUE(ReadGlobalOptions(flags.ok() ? *flags : OptionValues(), global).ok());
    return global.security;
  }

  static absl::Status Apply(const std::vector<std::string>& args,
                            client::ClientOptions* options = nullptr) {
    client::ClientOptions scratch;
    return ApplySecurity(Parse(args), options != nullptr ? *options : scratch);
  }

 private:
  std::optional<std::string> saved_token_;
  std::vector<std::string> files_;
};

TEST_F(ConnectionSecurityTest, NothingGivenIsPlaintextWithoutToken) {
  client::ClientOptions options;
  ASSERT_TRUE(Apply({}, &options).ok());
  EXPECT_EQ(options.credentials, nullptr);
  EXPECT_EQ(options.bearer_token, "");
}

TEST_F(ConnectionSecurityTest, TlsFlagsMakeTlsCredentials) {
  const std::string pem = WriteFile("ca.pem", kPem);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--tls"},
        {"--tls-ca", pem},
        {"--tls-cert", pem, "--tls-key", pem},
        {"--tls-ca", pem, "--tls-server-name", "planner.internal"}}) {
    client::ClientOptions options;
    ASSERT_TRUE(Apply(args, &options).ok()) << args[0];
    EXPECT_NE(options.credentials, nullptr) << args[0];
  }
  client::ClientOptions options;
  ASSERT_TRUE(Apply({"--tls-ca", pem, "--tls-server-name", "planner.internal"}, &options).ok());
  EXPECT_EQ(options.tls_server_name, "planner.internal");
}

TEST_F(ConnectionSecurityTest, InconsistentOptionsAreUsageErrors) {
  const std::string pem = WriteFile("cert.pem", kPem);
  const absl::Status cert_only = Apply({"--tls-ca", pem, "--tls-cert", pem});
  EXPECT_TRUE(IsUsageError(cert_only)) << cert_only;
  EXPECT_THAT(cert_only.message(), AllOf(HasSubstr("--tls-cert"), HasSubstr("--tls-key")));
  EXPECT_TRUE(IsUsageError(Apply({"--tls-key", pem})));
  const absl::Status name_only = Apply({"--tls-server-name", "planner.internal"});
  EXPECT_TRUE(IsUsageError(name_only)) << name_only;
  EXPECT_THAT(name_only.message(), HasSubstr("--tls-server-name"));
}

TEST_F(ConnectionSecurityTest, BadFilesNameTheOptionAndPath) {
  const std::string missing = absl::StrCat(::testing::TempDir(), "/cli_security_missing.pem");
  const std::string not_pem = WriteFile("not.pem", "just text\n");
  const std::string empty = WriteFile("empty_token", "\n  \n");
  struct Case {
    std::vector<std::string> args;
    std::string flag;
    std::string path;
  };
  for (const Case& c : {Case{{"--tls-ca", missing}, "--tls-ca", missing},
                        Case{{"--tls-ca", not_pem}, "--tls-ca", not_pem},
                        Case{{"--tls-cert", not_pem, "--tls-key", not_pem}, "--tls-cert", not_pem},
                        Case{{"--token-file", missing}, "--token-file", missing},
                        Case{{"--token-file", empty}, "--token-file", empty}}) {
    const absl::Status status = Apply(c.args);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    EXPECT_FALSE(IsUsageError(status));
    EXPECT_EQ(ExitCodeFor(status), kExitInvalidArgument);
    EXPECT_THAT(status.message(), AllOf(HasSubstr(c.flag), HasSubstr(c.path)));
  }
}

TEST_F(ConnectionSecurityTest, TokenIsTheFilesFirstLineTrimmed) {
  const std::string file = WriteFile("token", "  s3cret-token \t\nsecond line\n");
  client::ClientOptions options;
  ASSERT_TRUE(Apply({"--token-file", file}, &options).ok());
  EXPECT_EQ(options.bearer_token, "s3cret-token");
}

TEST_F(ConnectionSecurityTest, TokenFromEnvironmentUnlessTheFlagIsGiven) {
  setenv("SHARDPLAN_TOKEN", " env-token\n", 1);
  client::ClientOptions from_env;
  ASSERT_TRUE(Apply({}, &from_env).ok());
  EXPECT_EQ(from_env.bearer_token, "env-token");

  const std::string file = WriteFile("flag_token", "flag-token\n");
  client::ClientOptions from_flag;
  ASSERT_TRUE(Apply({"--token-file", file}, &from_flag).ok());
  EXPECT_EQ(from_flag.bearer_token, "flag-token");
}

TEST_F(ConnectionSecurityTest, TokenThatCannotBeAHeaderIsRefused) {
  const std::string file = WriteFile("spaced_token", "two words\n");
  const absl::Status status = Apply({"--token-file", file});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), HasSubstr("--token-file"));
  setenv("SHARDPLAN_TOKEN", "caf\xc3\xa9", 1);
  const absl::Status env = Apply({});
  EXPECT_THAT(env.message(), HasSubstr("$SHARDPLAN_TOKEN"));
}

}  // namespace
}  // namespace shardplan::cli
