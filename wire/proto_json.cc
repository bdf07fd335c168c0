#include "wire/proto_json.h"

#include <cctype>
#include <cmath>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shardplan::proto_json {
namespace {

using nlohmann::json;

// How a value reads in an error message: strings quoted (and cut short), others by kind.
std::string Describe(const json& value) {
  switch (value.type()) {
    case json::value_t::string: {
      const std::string& text = value.get_ref<const std::string&>();
      constexpr size_t kMaxShown = 40;
      if (text.size() > kMaxShown) {
        return absl::StrCat("\"", absl::CEscape(text.substr(0, kMaxShown)), "...\"");
      }
      return absl::StrCat("\"", absl::CEscape(text), "\"");
    }
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::null:
      return "null";
    default:
      return value.dump();  // numbers and booleans
  }
}

absl::Status Expected(const std::string& path, absl::string_view what, const json& got) {
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": expected ", what, ", got ", Describe(got)));
}

absl::Status OutOfRange(const std::string& path, absl::string_view value, int64_t min_value,
                        int64_t max_value) {
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": ", value, " is out of range [", min_value, ", ", max_value, "]"));
}

// 2^63 as a double: the first value past int64's range.
constexpr double kTwoPow63 = 9223372036854775808.0;

}  // namespace

std::string LowerCamel(absl::string_view snake_name) {
  std::string camel;
  camel.reserve(snake_name.size());
  bool upper_next = false;
  for (char c : snake_name) {
    if (c == '_') {
      upper_next = true;
      continue;
    }
    camel.push_back(upper_next ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                               : c);
    upper_next = false;
  }
  return camel;
}

std::string Join(absl::string_view path, absl::string_view field) {
  return path.empty() ? std::string(field) : absl::StrCat(path, ".", field);
}

std::string Index(absl::string_view path, size_t index) {
  return absl::StrCat(path, "[", index, "]");
}

absl::StatusOr<ObjectFields> ObjectFields::Read(const json& value, std::string path,
                                                std::initializer_list<absl::string_view> known) {
  ObjectFields fields;
  fields.path_ = std::move(path);
  if (value.is_null()) return fields;
  if (!value.is_object()) {
    return Expected(fields.path_.empty() ? std::string("JSON document") : fields.path_, "an object",
                    value);
  }
  std::map<std::string, absl::string_view, std::less<>> canonical;  // spelling -> snake name
  for (absl::string_view name : known) {
    canonical.emplace(std::string(name), name);
    canonical.emplace(LowerCamel(name), name);
  }
  std::map<absl::string_view, absl::string_view> spelled_as;  // snake name -> key used
  for (const auto& [key, field_value] : value.items()) {
    auto it = canonical.find(key);
    if (it == canonical.end()) {
      std::vector<std::string> names(known.begin(), known.end());
      return absl::InvalidArgumentError(absl::StrCat(
          fields.PathOf(key), ": unknown field (known: ", absl::StrJoin(names, ", "), ")"));
    }
    auto [previous, inserted] = spelled_as.emplace(it->second, it->first);
    if (!inserted) {
      return absl::InvalidArgumentError(absl::StrCat(fields.PathOf(it->second),
                                                     ": given twice, as \"", previous->second,
                                                     "\" and as \"", key, "\""));
    }
    if (!field_value.is_null()) fields.fields_.emplace(std::string(it->second), &field_value);
  }
  return fields;
}

const json* ObjectFields::Find(absl::string_view name) const {
  auto it = fields_.find(name);
  return it == fields_.end() ? nullptr : it->second;
}

absl::StatusOr<int64_t> ReadInt(const json& value, const std::string& path, int64_t min_value,
                                int64_t max_value) {
  int64_t result = 0;
  switch (value.type()) {
    case json::value_t::number_integer:
      result = value.get<int64_t>();
      break;
    case json::value_t::number_unsigned: {
      const uint64_t unsigned_value = value.get<uint64_t>();
      if (unsigned_value > static_cast<uint64_t>(max_value)) {
        return OutOfRange(path, value.dump(), min_value, max_value);
      }
      result = static_cast<int64_t>(unsigned_value);
      break;
    }
    case json::value_t::number_float: {
      // 1e3 or 5.0 are integers written as floats; 2.5 is not.
      const double number = value.get<double>();
      if (!std::isfinite(number) || std::trunc(number) != number) {
        return Expected(path, "an integer", value);
      }
      if (number < -kTwoPow63 || number >= kTwoPow63) {
        return OutOfRange(path, value.dump(), min_value, max_value);
      }
      result = static_cast<int64_t>(number);
      break;
    }
    case json::value_t::string: {
      // int64 values travel as decimal strings in proto3 JSON.
      const std::string& text = value.get_ref<const std::string&>();
      if (!absl::SimpleAtoi(text, &result)) {
        uint64_t too_big = 0;
        if (absl::SimpleAtoi(text, &too_big)) {
          return OutOfRange(path, text, min_value, max_value);
        }
        return Expected(path, "an integer", value);
      }
      break;
    }
    default:
      return Expected(path, "an integer", value);
  }
  if (result < min_value || result > max_value) {
    return OutOfRange(path, absl::StrCat(result), min_value, max_value);
  }
  return result;
}

absl::StatusOr<int64_t> ReadInt64(const json& value, const std::string& path) {
  return ReadInt(value, path, std::numeric_limits<int64_t>::min(),
                 std::numeric_limits<int64_t>::max());
}

absl::StatusOr<int32_t> ReadInt32(const json& value, const std::string& path) {
  absl::StatusOr<int64_t> result = ReadInt(value, path, std::numeric_limits<int32_t>::min(),
                                           std::numeric_limits<int32_t>::max());
  if (!result.ok()) return result.status();
  return static_cast<int32_t>(*result);
}

absl::StatusOr<uint64_t> ReadUint64(const json& value, const std::string& path) {
  switch (value.type()) {
    case json::value_t::number_unsigned:
      return value.get<uint64_t>();
    case json::value_t::number_integer:
      // nlohmann stores non-negative literals as unsigned, so this one is negative.
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": must not be negative, got ", value.dump()));
    case json::value_t::number_float: {
      const double number = value.get<double>();
      if (!std::isfinite(number) || std::trunc(number) != number) {
        return Expected(path, "an unsigned integer", value);
      }
      if (number < 0 || number >= 2 * kTwoPow63) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ": ", value.dump(), " is out of range for uint64"));
      }
      return static_cast<uint64_t>(number);
    }
    case json::value_t::string: {
      const std::string& text = value.get_ref<const std::string&>();
      uint64_t result = 0;
      if (!absl::SimpleAtoi(text, &result)) return Expected(path, "an unsigned integer", value);
      return result;
    }
    default:
      return Expected(path, "an unsigned integer", value);
  }
}

absl::StatusOr<double> ReadDouble(const json& value, const std::string& path) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (text == "Infinity") return std::numeric_limits<double>::infinity();
    if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
    double result = 0;
    if (absl::SimpleAtod(text, &result)) return result;
  }
  return Expected(path, "a number", value);
}

absl::StatusOr<bool> ReadBool(const json& value, const std::string& path) {
  if (value.is_boolean()) return value.get<bool>();
  return Expected(path, "true or false", value);
}

absl::StatusOr<std::string> ReadString(const json& value, const std::string& path) {
  if (value.is_string()) return value.get<std::string>();
  return Expected(path, "a string", value);
}

absl::StatusOr<std::vector<const json*>> ReadArray(const json& value, const std::string& path) {
  std::vector<const json*> elements;
  if (value.is_null()) return elements;
  if (!value.is_array()) return Expected(path, "an array", value);
  elements.reserve(value.size());
  for (const json& element : value) elements.push_back(&element);
  return elements;
}

absl::StatusOr<int> ReadEnum(const json& value, const std::string& path,
                             absl::string_view type_name,
                             const std::vector<std::pair<absl::string_view, int>>& values) {
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    for (const auto& [name, number] : values) {
      if (text == name) return number;
    }
  } else if (value.is_number_integer()) {
    const int64_t number = value.get<int64_t>();
    for (const auto& [name, known_number] : values) {
      if (number == known_number) return known_number;
    }
  } else {
    return Expected(path, absl::StrCat("a ", type_name, " name or number"), value);
  }
  std::vector<absl::string_view> names;
  for (const auto& [name, number] : values) names.push_back(name);
  return absl::InvalidArgumentError(absl::StrCat(path, ": unknown ", type_name, " ",
                                                 Describe(value), " (expected one of ",
                                                 absl::StrJoin(names, ", "), ")"));
}

json WriteDouble(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  return value;
}

}  // namespace shardplan::proto_json
