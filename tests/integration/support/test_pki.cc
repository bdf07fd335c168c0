#include "tests/integration/support/test_pki.h"

#include <openssl/sha.h>
#include <stdlib.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace shardplan::testing {

absl::StatusOr<TestPki> TestPki::Create() {
  char pattern[] = "/tmp/shardplan_pki_XXXXXX";
  if (mkdtemp(pattern) == nullptr) return absl::InternalError("mkdtemp failed");
  TestPki pki(pattern);
  const std::string command = absl::StrCat(SHARDPLAN_SOURCE_DIR, "/scripts/make_test_certs.sh ",
                                           pattern, " >/dev/null 2>&1");
  if (std::system(command.c_str()) != 0) {
    return absl::InternalError(absl::StrCat("failed: ", command));
  }
  return pki;
}

TestPki::~TestPki() {
  if (!dir_.empty()) std::system(absl::StrCat("rm -rf '", dir_, "'").c_str());
}

std::string Sha256Hex(const std::string& text) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), sizeof(digest)));
}

}  // namespace shardplan::testing
