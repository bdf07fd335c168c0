#include "server/security/token_store.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

using ::testing::HasSubstr;

std::string Entry(const std::string& name, const std::string& token, const std::string& role) {
  return "{\"name\": \"" + name + "\", \"sha256\": \"" + Sha256Hex(token) + "\", \"role\": \"" +
         role + "\"}";
}

TEST(TokenStoreTest, FindsTokensByTheirHashOnly) {
  absl::StatusOr<TokenStore> store =
      TokenStore::Parse("{\"tokens\": [" + Entry("a", "secret-a", "planner") + ", " +
                        Entry("ops", "s-ops", "admin") + "]}");
  ASSERT_TRUE(store.ok()) << store.status();
  const TokenEntry* a = store->Find("secret-a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->name, "a");
  EXPECT_EQ(a->role, Role::kPlanner);
  ASSERT_NE(store->Find("s-ops"), nullptr);
  EXPECT_EQ(store->Find("s-ops")->role, Role::kAdmin);
  EXPECT_EQ(store->Find("secret-b"), nullptr);
  EXPECT_EQ(store->Find(""), nullptr);
}

TEST(TokenStoreTest, Sha256HexIsTheStandardDigest) {
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(TokenStoreTest, UpperCaseHashesAreAccepted) {
  std::string hash = Sha256Hex("t");
  for (char& c : hash) c = static_cast<char>(std::toupper(c));
  absl::StatusOr<TokenStore> store = TokenStore::Parse(
      "{\"tokens\": [{\"name\": \"x\", \"sha256\": \"" + hash + "\", \"role\": \"planner\"}]}");
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_NE(store->Find("t"), nullptr);
}

TEST(TokenStoreTest, MalformedFilesAreRefusedNamingTheField) {
  const std::string good = Entry("a", "t", "planner");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", "invalid JSON"},
      // nlohmann kept the last of two: the token would have been an admin's.
      {"{\"tokens\": [{\"name\": \"a\", \"sha256\": \"" + Sha256Hex("t") +
           "\", \"role\": \"planner\", \"role\": \"admin\"}]}",
       "tokens[0].role: given twice in one object; give each field once"},
      {"[]", "expected a JSON object"},
      {"{}", "tokens: required"},
      {"{\"tokens\": []}", "tokens: lists no token"},
      {"{\"tokens\": [], \"extra\": 1}", "unknown key \"extra\""},
      {"{\"tokens\": [1]}", "tokens[0]: expected an object"},
      {"{\"tokens\": [{\"sha256\": \"" + Sha256Hex("t") + "\", \"role\": \"admin\"}]}",
       "tokens[0].name: required"},
      {"{\"tokens\": [{\"name\": \"a\", \"sha256\": \"abc\", \"role\": "
       "\"admin\"}]}",
       "tokens[0].sha256: required, the 64 hex digits"},
      {"{\"tokens\": [{\"name\": \"a\", \"sha256\": \"" + Sha256Hex("t") +
           "\", \"role\": \"root\"}]}",
       "tokens[0].role: required, \"planner\" or \"admin\""},
      {"{\"tokens\": [{\"name\": \"a\", \"token\": \"plain\"}]}", "tokens[0]: unknown key"},
      {"{\"tokens\": [{\"name\": \"a\", \"sha256\": \"" + Sha256Hex("t") +
           "\", \"role\": \"planner\", \"scopes\": \"measurements\"}]}",
       "tokens[0].scopes: expected an array of scopes"},
      {"{\"tokens\": [{\"name\": \"a\", \"sha256\": \"" + Sha256Hex("t") +
           "\", \"role\": \"planner\", \"scopes\": [\"measurements\", \"root\"]}]}",
       "tokens[0].scopes[1]: unknown scope \"root\" (known: \"measurements\")"},
      {"{\"tokens\": [" + good + ", " + Entry("a", "u", "admin") + "]}",
       "tokens[1].name: duplicate name \"a\""},
      {"{\"tokens\": [" + good + ", " + Entry("b", "t", "admin") + "]}",
       "tokens[1].sha256: the same hash"},
  };
  for (const auto& [json, expected] : cases) {
    absl::StatusOr<TokenStore> store = TokenStore::Parse(json);
    EXPECT_FALSE(store.ok()) << json;
    EXPECT_EQ(store.status().code(), absl::StatusCode::kInvalidArgument) << json;
    EXPECT_THAT(std::string(store.status().message()), HasSubstr(expected)) << json;
  }
}

TEST(TokenStoreTest, LoadNamesTheSettingAndPath) {
  absl::StatusOr<std::shared_ptr<const TokenStore>> missing =
      TokenStore::Load("/nonexistent/tokens.json");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("auth_tokens_file \"/nonexistent/tokens.json\": cannot read"));
}

}  // namespace
}  // namespace shardplan
