#ifndef SHARDPLAN_WIRE_PROTO_JSON_H_
#define SHARDPLAN_WIRE_PROTO_JSON_H_

// Readers and writers for the proto3 JSON mapping (json_io.cc's building blocks): field-name
// spellings, int64 as number or string, enums by name or number, and error messages that carry
// the field path ("tables[2].rows: expected an integer, got \"ten\"").

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace shardplan::proto_json {

// "pooling_factor" -> "poolingFactor", the other spelling proto3 JSON parsers accept.
std::string LowerCamel(absl::string_view snake_name);

// "tables[2]" + "rows" -> "tables[2].rows"; "" + "rows" -> "rows".
std::string Join(absl::string_view path, absl::string_view field);
// "tables" + 2 -> "tables[2]".
std::string Index(absl::string_view path, size_t index);

// The fields of one JSON object, keyed by their snake_case names. Unknown names (in either
// spelling) and a field given in both spellings are errors naming the path.
class ObjectFields {
 public:
  // `json` must be an object (null reads as an empty object: the proto default).
  static absl::StatusOr<ObjectFields> Read(const nlohmann::json& json, std::string path,
                                           std::initializer_list<absl::string_view> known);

  // The value of a known field, or null when it is absent or JSON null (the proto default).
  const nlohmann::json* Find(absl::string_view name) const;
  // Path of a field of this object.
  std::string PathOf(absl::string_view name) const { return Join(path_, name); }

 private:
  std::string path_;
  std::map<std::string, const nlohmann::json*, std::less<>> fields_;
};

// Scalars. `path` names the value in errors.
absl::StatusOr<int64_t> ReadInt(const nlohmann::json& json, const std::string& path,
                                int64_t min_value, int64_t max_value);
absl::StatusOr<int64_t> ReadInt64(const nlohmann::json& json, const std::string& path);
absl::StatusOr<int32_t> ReadInt32(const nlohmann::json& json, const std::string& path);
absl::StatusOr<uint64_t> ReadUint64(const nlohmann::json& json, const std::string& path);
absl::StatusOr<double> ReadDouble(const nlohmann::json& json, const std::string& path);
absl::StatusOr<bool> ReadBool(const nlohmann::json& json, const std::string& path);
absl::StatusOr<std::string> ReadString(const nlohmann::json& json, const std::string& path);

// The elements of a repeated field (null reads as empty).
absl::StatusOr<std::vector<const nlohmann::json*>> ReadArray(const nlohmann::json& json,
                                                             const std::string& path);

// An enum value from its name or number; `values` lists (name, number) pairs and
// `type_name` names the enum in errors. Returns the number.
absl::StatusOr<int> ReadEnum(const nlohmann::json& json, const std::string& path,
                             absl::string_view type_name,
                             const std::vector<std::pair<absl::string_view, int>>& values);

// A double as proto3 JSON writes it: a number, or "NaN", "Infinity", "-Infinity".
nlohmann::json WriteDouble(double value);

}  // namespace shardplan::proto_json

#endif  // SHARDPLAN_WIRE_PROTO_JSON_H_
