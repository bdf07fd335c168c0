#include "server/security/token_store.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "proto/json/json_document.h"

namespace shardplan {
namespace {

std::array<uint8_t, 32> Sha256(absl::string_view text) {
  std::array<uint8_t, 32> digest{};
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest.data());
  return digest;
}

absl::Status EntryError(size_t index, absl::string_view field, absl::string_view reason) {
  return absl::InvalidArgumentError(absl::StrCat("tokens[", index, "]", field, ": ", reason));
}

absl::StatusOr<TokenEntry> ParseEntry(const nlohmann::json& json, size_t index) {
  if (!json.is_object()) return EntryError(index, "", "expected an object");
  for (const auto& [key, value] : json.items()) {
    if (key != "name" && key != "sha256" && key != "role" && key != "scopes") {
      return EntryError(index, "", absl::StrCat("unknown key \"", key, "\""));
    }
  }
  TokenEntry entry;
  const auto name = json.find("name");
  if (name == json.end() || !name->is_string() || name->get<std::string>().empty()) {
    return EntryError(index, ".name", "required, a non-empty string");
  }
  entry.name = name->get<std::string>();
  const auto hash = json.find("sha256");
  std::string hex = hash != json.end() && hash->is_string() ? hash->get<std::string>() : "";
  for (char& c : hex) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (hex.size() != 64 || hex.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return EntryError(index, ".sha256",
                      "required, the 64 hex digits of the token's SHA-256 (sha256sum)");
  }
  const std::string bytes = absl::HexStringToBytes(hex);
  std::copy(bytes.begin(), bytes.end(), entry.sha256.begin());
  const auto role = json.find("role");
  const std::string role_name =
      role != json.end() && role->is_string() ? role->get<std::string>() : "";
  if (role_name == "planner") {
    entry.role = Role::kPlanner;
  } else if (role_name == "admin") {
    entry.role = Role::kAdmin;
  } else {
    return EntryError(index, ".role", "required, \"planner\" or \"admin\"");
  }
  entry.may_report_measurements = entry.role == Role::kAdmin;
  if (const auto scopes = json.find("scopes"); scopes != json.end()) {
    if (!scopes->is_array()) {
      return EntryError(index, ".scopes",
                        absl::StrCat("expected an array of scopes (\"", kMeasurementsScope, "\")"));
    }
    for (size_t s = 0; s < scopes->size(); ++s) {
      const nlohmann::json& scope = (*scopes)[s];
      if (!scope.is_string() || scope.get<std::string>() != kMeasurementsScope) {
        return EntryError(
            index, absl::StrCat(".scopes[", s, "]"),
            absl::StrCat("unknown scope ", scope.dump(), " (known: \"", kMeasurementsScope, "\")"));
      }
      entry.may_report_measurements = true;
    }
  }
  return entry;
}

}  // namespace

const char* RoleName(Role role) { return role == Role::kAdmin ? "admin" : "planner"; }

std::string Sha256Hex(absl::string_view text) {
  const std::array<uint8_t, 32> digest = Sha256(text);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
}

absl::StatusOr<TokenStore> TokenStore::Parse(absl::string_view json_text) {
  // A key given twice ("role", "scopes") is refused: a token's rights are not for a JSON parser
  // to choose silently between two values.
  absl::StatusOr<nlohmann::json> parsed = proto_json::ParseJsonDocument(json_text);
  if (!parsed.ok()) return parsed.status();
  const nlohmann::json& json = *parsed;
  if (!json.is_object()) return absl::InvalidArgumentError("expected a JSON object");
  for (const auto& [key, value] : json.items()) {
    if (key != "tokens")
      return absl::InvalidArgumentError(absl::StrCat("unknown key \"", key, "\""));
  }
  const auto tokens = json.find("tokens");
  if (tokens == json.end() || !tokens->is_array()) {
    return absl::InvalidArgumentError("tokens: required, an array");
  }
  // An empty list would lock every client out: almost certainly a mistake.
  if (tokens->empty()) return absl::InvalidArgumentError("tokens: lists no token");
  TokenStore store;
  std::set<std::string> names;
  std::set<std::array<uint8_t, 32>> hashes;
  for (size_t i = 0; i < tokens->size(); ++i) {
    absl::StatusOr<TokenEntry> entry = ParseEntry((*tokens)[i], i);
    if (!entry.ok()) return entry.status();
    if (!names.insert(entry->name).second) {
      return EntryError(i, ".name", absl::StrCat("duplicate name \"", entry->name, "\""));
    }
    // Two names for one token would make the identity ambiguous.
    if (!hashes.insert(entry->sha256).second) {
      return EntryError(i, ".sha256", "the same hash as an earlier entry");
    }
    store.entries_.push_back(*std::move(entry));
  }
  return store;
}

absl::StatusOr<std::shared_ptr<const TokenStore>> TokenStore::Load(const std::string& path) {
  const std::string prefix = absl::StrCat("auth_tokens_file \"", path, "\": ");
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(prefix, "cannot read the file"));
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<TokenStore> store = Parse(text.str());
  if (!store.ok()) {
    return absl::Status(store.status().code(), absl::StrCat(prefix, store.status().message()));
  }
  return std::make_shared<const TokenStore>(*std::move(store));
}

const TokenEntry* TokenStore::Find(absl::string_view token) const {
  const std::array<uint8_t, 32> digest = Sha256(token);
  const TokenEntry* found = nullptr;
  // No early exit: every entry is compared whatever matched.
  for (const TokenEntry& entry : entries_) {
    if (CRYPTO_memcmp(entry.sha256.data(), digest.data(), digest.size()) == 0) found = &entry;
  }
  return found;
}

}  // namespace shardplan
