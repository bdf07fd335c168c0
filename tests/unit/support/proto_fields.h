#ifndef SHARDPLAN_TESTS_UNIT_SUPPORT_PROTO_FIELDS_H_
#define SHARDPLAN_TESTS_UNIT_SUPPORT_PROTO_FIELDS_H_

// Every field of an API message, found through its descriptor, so that a conversion test covers
// the fields added after it was written: a field the conversion forgets fails it by name.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/text_format.h"

namespace shardplan::test_support {

// A leaf field (a scalar, enum, repeated scalar or map) and the message fields leading to it;
// repeated messages on the way are entered at their first element.
struct FieldPath {
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  std::string name;  // "tables.shards.device"
};

namespace proto_fields_internal {

inline void Collect(const google::protobuf::Descriptor& type, FieldPath prefix,
                    std::vector<FieldPath>& out) {
  for (int i = 0; i < type.field_count(); ++i) {
    const google::protobuf::FieldDescriptor* field = type.field(i);
    FieldPath path = prefix;
    path.fields.push_back(field);
    path.name = prefix.name.empty() ? field->name() : absl::StrCat(prefix.name, ".", field->name());
    if (field->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE &&
        !field->is_map()) {
      Collect(*field->message_type(), path, out);
    } else {
      out.push_back(path);
    }
  }
}

// The message holding the leaf of `path`, created (first elements included) where absent.
inline google::protobuf::Message& Holder(google::protobuf::Message& message,
                                         const FieldPath& path) {
  google::protobuf::Message* current = &message;
  for (size_t i = 0; i + 1 < path.fields.size(); ++i) {
    const google::protobuf::FieldDescriptor* field = path.fields[i];
    const google::protobuf::Reflection& reflection = *current->GetReflection();
    if (field->is_repeated()) {
      current = reflection.FieldSize(*current, field) == 0
                    ? reflection.AddMessage(current, field)
                    : reflection.MutableRepeatedMessage(current, field, 0);
    } else {
      current = reflection.MutableMessage(current, field);
    }
  }
  return *current;
}

// Sets one value of `field` in `message` (appends to a repeated field): the `n`th distinct
// non-default value of its type.
inline void SetValue(google::protobuf::Message& message,
                     const google::protobuf::FieldDescriptor* field, int n) {
  using google::protobuf::FieldDescriptor;
  const google::protobuf::Reflection& r = *message.GetReflection();
  const bool many = field->is_repeated();
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      many ? r.AddInt32(&message, field, 3 + n) : r.SetInt32(&message, field, 3 + n);
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      many ? r.AddInt64(&message, field, 3 + n) : r.SetInt64(&message, field, 3 + n);
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      many ? r.AddUInt32(&message, field, 3 + n) : r.SetUInt32(&message, field, 3 + n);
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      many ? r.AddUInt64(&message, field, 3 + n) : r.SetUInt64(&message, field, 3 + n);
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      many ? r.AddDouble(&message, field, 2.5 + n) : r.SetDouble(&message, field, 2.5 + n);
      break;
    case FieldDescriptor::CPPTYPE_FLOAT:
      many ? r.AddFloat(&message, field, 2.5f + n) : r.SetFloat(&message, field, 2.5f + n);
      break;
    case FieldDescriptor::CPPTYPE_BOOL:
      many ? r.AddBool(&message, field, true) : r.SetBool(&message, field, true);
      break;
    case FieldDescriptor::CPPTYPE_STRING: {
      const std::string value = absl::StrCat("x", n);
      many ? r.AddString(&message, field, value) : r.SetString(&message, field, value);
      break;
    }
    case FieldDescriptor::CPPTYPE_ENUM: {
      // From the last value down: distinct, and never the zero default.
      const google::protobuf::EnumDescriptor& type = *field->enum_type();
      const google::protobuf::EnumValueDescriptor* value =
          type.value(std::max(1, type.value_count() - 1 - n));
      many ? r.AddEnum(&message, field, value) : r.SetEnum(&message, field, value);
      break;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE: {  // a map entry
      google::protobuf::Message* entry = r.AddMessage(&message, field);
      SetValue(*entry, entry->GetDescriptor()->map_key(), n);
      SetValue(*entry, entry->GetDescriptor()->map_value(), n);
      break;
    }
  }
}

}  // namespace proto_fields_internal

// Every leaf field of `type`, in field-number order, depth first.
inline std::vector<FieldPath> LeafFields(const google::protobuf::Descriptor& type) {
  std::vector<FieldPath> out;
  proto_fields_internal::Collect(type, {}, out);
  return out;
}

// Gives the leaf of `path` a non-default value (two distinct values for a repeated field, one
// entry for a map), creating the messages on the way; what was there is replaced.
inline void SetNonDefault(google::protobuf::Message& message, const FieldPath& path) {
  google::protobuf::Message& holder = proto_fields_internal::Holder(message, path);
  const google::protobuf::FieldDescriptor* field = path.fields.back();
  holder.GetReflection()->ClearField(&holder, field);
  const int values = field->is_map() ? 1 : field->is_repeated() ? 2 : 1;
  for (int n = 0; n < values; ++n) proto_fields_internal::SetValue(holder, field, n);
}

// Every leaf of `message` set to a non-default value.
inline void FillEveryField(google::protobuf::Message& message) {
  for (const FieldPath& path : LeafFields(*message.GetDescriptor())) {
    SetNonDefault(message, path);
  }
}

// The leaf's value(s) as text, for comparisons that name the field.
inline std::string ValueAt(const google::protobuf::Message& message, const FieldPath& path) {
  const google::protobuf::Message* current = &message;
  for (size_t i = 0; i + 1 < path.fields.size(); ++i) {
    const google::protobuf::FieldDescriptor* field = path.fields[i];
    const google::protobuf::Reflection& reflection = *current->GetReflection();
    if (field->is_repeated()) {
      if (reflection.FieldSize(*current, field) == 0) return "<absent>";
      current = &reflection.GetRepeatedMessage(*current, field, 0);
    } else {
      current = &reflection.GetMessage(*current, field);
    }
  }
  const google::protobuf::FieldDescriptor* field = path.fields.back();
  std::vector<std::string> values;
  const int size =
      field->is_repeated() ? current->GetReflection()->FieldSize(*current, field) : 1;
  for (int i = 0; i < size; ++i) {
    std::string text;
    google::protobuf::TextFormat::PrintFieldValueToString(*current, field,
                                                          field->is_repeated() ? i : -1, &text);
    values.push_back(text);
  }
  return absl::StrJoin(values, ", ");
}

}  // namespace shardplan::test_support

#endif  // SHARDPLAN_TESTS_UNIT_SUPPORT_PROTO_FIELDS_H_
