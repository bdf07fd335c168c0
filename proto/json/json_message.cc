#include "proto/json/json_message.h"

#include <map>
#include <regex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/json_util.h"
#include "nlohmann/json.hpp"
#include "proto/json/json_document.h"

namespace shardplan::proto_json {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::DescriptorPool;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;
using nlohmann::json;

absl::Status FieldError(const std::string& path, absl::string_view reason) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", reason));
}

std::string Join(const std::string& path, absl::string_view name) {
  return path.empty() ? std::string(name) : absl::StrCat(path, ".", name);
}

// What a value is, for messages: "an object", "an array", or the value itself (cut short).
std::string Shown(const json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  constexpr size_t kMaxShown = 40;
  if (text.size() > kMaxShown) text = text.substr(0, kMaxShown) + "...";
  return text;
}

std::vector<std::string> EnumNames(const EnumDescriptor& type) {
  std::vector<std::string> names;
  for (int i = 0; i < type.value_count(); ++i) names.push_back(type.value(i)->name());
  return names;
}

// What one value of `field` must be, for messages: "an integer", "a ShardingType name or number".
std::string ExpectedValue(const FieldDescriptor& field) {
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_INT64:
      return "an integer";
    case FieldDescriptor::CPPTYPE_UINT32:
    case FieldDescriptor::CPPTYPE_UINT64:
      return "an unsigned integer";
    case FieldDescriptor::CPPTYPE_FLOAT:
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return "a number";
    case FieldDescriptor::CPPTYPE_BOOL:
      return "true or false";
    case FieldDescriptor::CPPTYPE_STRING:
      return "a string";
    case FieldDescriptor::CPPTYPE_ENUM:
      return absl::StrCat("a ", field.enum_type()->name(), " name or number");
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return "an object";
  }
  return "a value";
}

// Messages with a JSON form of their own (google.protobuf.*) are left to protobuf.
bool HasPlainJsonShape(const Descriptor& type) {
  return type.file()->package() != "google.protobuf";
}

absl::Status CheckObject(const json& object, const Descriptor& type, const std::string& path);

// The field a JSON key names: its proto name or its lowerCamelCase JSON name.
const FieldDescriptor* FieldNamed(const Descriptor& type, const std::string& key) {
  if (const FieldDescriptor* field = type.FindFieldByName(key)) return field;
  for (int i = 0; i < type.field_count(); ++i) {
    if (type.field(i)->json_name() == key) return type.field(i);
  }
  return nullptr;
}

// One element of `field`: a repeated field's element, a map's value, or a singular value.
absl::Status CheckValue(const json& value, const FieldDescriptor& field, const std::string& path) {
  if (value.is_null()) return absl::OkStatus();  // the default; protobuf decides where it may go
  if (field.cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE &&
      HasPlainJsonShape(*field.message_type())) {
    if (!value.is_object()) {
      return FieldError(path, absl::StrCat("expected an object, got ", Shown(value)));
    }
    return CheckObject(value, *field.message_type(), path);
  }
  // A string field takes a JSON string only: said here, where a map value's path is its key
  // (protobuf would say "parameters[0].value").
  if (value.is_object() || value.is_array() ||
      (field.cpp_type() == FieldDescriptor::CPPTYPE_STRING && !value.is_string())) {
    return FieldError(path,
                      absl::StrCat("expected ", ExpectedValue(field), ", got ", Shown(value)));
  }
  return absl::OkStatus();  // another scalar: protobuf converts it, or says why not
}

absl::Status CheckField(const json& value, const FieldDescriptor& field, const std::string& path) {
  if (value.is_null()) return absl::OkStatus();
  if (field.is_map()) {
    if (!value.is_object()) {
      return FieldError(path, absl::StrCat("expected an object, got ", Shown(value)));
    }
    const FieldDescriptor& map_value = *field.message_type()->map_value();
    for (const auto& [key, element] : value.items()) {
      if (absl::Status status = CheckValue(element, map_value, Join(path, key)); !status.ok()) {
        return status;
      }
    }
    return absl::OkStatus();
  }
  if (field.is_repeated()) {
    if (!value.is_array()) {
      return FieldError(path, absl::StrCat("expected an array, got ", Shown(value)));
    }
    for (size_t i = 0; i < value.size(); ++i) {
      absl::Status status = CheckValue(value[i], field, absl::StrCat(path, "[", i, "]"));
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }
  return CheckValue(value, field, path);
}

// Every key names a field of `type`, in one spelling only, with a value of the right shape.
absl::Status CheckObject(const json& object, const Descriptor& type, const std::string& path) {
  std::map<const FieldDescriptor*, std::string> spelling;
  for (const auto& [key, value] : object.items()) {
    const FieldDescriptor* field = FieldNamed(type, key);
    if (field == nullptr) {
      std::vector<std::string> known;
      for (int i = 0; i < type.field_count(); ++i) known.push_back(type.field(i)->name());
      return FieldError(Join(path, key),
                        absl::StrCat("unknown field (known: ", absl::StrJoin(known, ", "), ")"));
    }
    const std::string field_path = Join(path, field->name());
    if (const auto seen = spelling.find(field); seen != spelling.end()) {
      return FieldError(
          field_path, absl::StrCat("given twice, as \"", seen->second, "\" and as \"", key, "\""));
    }
    spelling.emplace(field, key);
    if (absl::Status status = CheckField(value, *field, field_path); !status.ok()) return status;
  }
  return absl::OkStatus();
}

// protobuf's conversion errors, "(tables[2].rows): invalid value \"ten\" for type TYPE_INT64",
// in the form of the rest: "tables[2].rows: expected an integer, got \"ten\"".
std::string Rephrase(const std::string& message) {
  static const std::regex kInvalidValue(R"(^\(([^)]*)\): invalid value (.*) for type (\S+)$)");
  static const std::regex kInteger(R"(^"?-?[0-9]+"?$)");
  static const std::regex kNegative(R"(^"?-[0-9]+"?$)");
  std::smatch match;
  if (!std::regex_match(message, match, kInvalidValue)) return message;
  const std::string path = match[1], value = match[2], type = match[3];
  const bool integral = std::regex_match(value, kInteger);
  const auto expected = [&](absl::string_view what) {
    return absl::StrCat(path, ": expected ", what, ", got ", value);
  };
  const auto out_of_range = [&](absl::string_view range) {
    return absl::StrCat(path, ": ", value, " is out of range ", range);
  };
  if (type == "TYPE_INT32" || type == "TYPE_SINT32" || type == "TYPE_SFIXED32") {
    return integral ? out_of_range("[-2147483648, 2147483647]") : expected("an integer");
  }
  if (type == "TYPE_INT64" || type == "TYPE_SINT64" || type == "TYPE_SFIXED64") {
    return integral ? out_of_range("[-9223372036854775808, 9223372036854775807]")
                    : expected("an integer");
  }
  if (type == "TYPE_UINT32" || type == "TYPE_FIXED32" || type == "TYPE_UINT64" ||
      type == "TYPE_FIXED64") {
    if (std::regex_match(value, kNegative)) {
      return absl::StrCat(path, ": must not be negative, got ", value);
    }
    if (!integral) return expected("an unsigned integer");
    return out_of_range(type == "TYPE_UINT32" || type == "TYPE_FIXED32"
                            ? "[0, 4294967295]"
                            : "[0, 18446744073709551615]");
  }
  if (type == "TYPE_DOUBLE" || type == "TYPE_FLOAT") return expected("a number");
  if (type == "TYPE_BOOL") return expected("true or false");
  if (type == "TYPE_STRING") return expected("a string");
  constexpr absl::string_view kTypeUrl = "type.googleapis.com/";
  if (absl::string_view(type).substr(0, kTypeUrl.size()) == kTypeUrl) {
    const std::string name = type.substr(kTypeUrl.size());
    if (const EnumDescriptor* e = DescriptorPool::generated_pool()->FindEnumTypeByName(name)) {
      return absl::StrCat(path, ": unknown ", e->name(), " ", value, " (expected one of ",
                          absl::StrJoin(EnumNames(*e), ", "), ")");
    }
    return expected("an object");
  }
  return message;
}

}  // namespace

absl::Status ParseJsonMessage(absl::string_view text, google::protobuf::Message& message) {
  message.Clear();
  absl::StatusOr<json> parsed = ParseJsonDocument(text);
  if (!parsed.ok()) return parsed.status();
  const json& document = *parsed;
  if (!document.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("JSON document: expected an object, got ", Shown(document)));
  }
  if (absl::Status shape = CheckObject(document, *message.GetDescriptor(), ""); !shape.ok()) {
    return shape;
  }
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(text.data(), text.size()), &message, options);
  if (status.ok()) return absl::OkStatus();
  message.Clear();
  return absl::InvalidArgumentError(Rephrase(std::string(status.message())));
}

std::string WriteJsonMessage(const google::protobuf::Message& message,
                             const JsonWriteOptions& options) {
  google::protobuf::util::JsonPrintOptions print;
  print.preserve_proto_field_names = true;
  print.add_whitespace = options.pretty;
  print.always_print_primitive_fields = options.with_defaults;
  std::string out;
  // Printing a valid message cannot fail (a string field holding invalid UTF-8 is printed
  // with replacement characters).
  (void)google::protobuf::util::MessageToJsonString(message, &out, print);
  return out;
}

}  // namespace shardplan::proto_json
