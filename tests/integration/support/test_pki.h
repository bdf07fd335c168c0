#ifndef SHARDPLAN_TESTS_INTEGRATION_SUPPORT_TEST_PKI_H_
#define SHARDPLAN_TESTS_INTEGRATION_SUPPORT_TEST_PKI_H_

#include <string>

#include "absl/status/statusor.h"

namespace shardplan::testing {

// A throw-away PKI from scripts/make_test_certs.sh in a fresh temporary directory, removed by
// the destructor: ca.pem, server.pem/key (127.0.0.1, localhost), client.pem/key (from ca),
// rogue_client.pem/key (from another CA).
class TestPki {
 public:
  static absl::StatusOr<TestPki> Create();
  TestPki(TestPki&& other) noexcept : dir_(std::move(other.dir_)) { other.dir_.clear(); }
  TestPki& operator=(TestPki&&) = delete;
  ~TestPki();

  std::string File(const std::string& name) const { return dir_ + "/" + name; }

 private:
  explicit TestPki(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
};

// Lower-case hex SHA-256, as auth_tokens_file holds tokens.
std::string Sha256Hex(const std::string& text);

}  // namespace shardplan::testing

#endif  // SHARDPLAN_TESTS_INTEGRATION_SUPPORT_TEST_PKI_H_
