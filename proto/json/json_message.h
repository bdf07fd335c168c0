#ifndef SHARDPLAN_PROTO_JSON_JSON_MESSAGE_H_
#define SHARDPLAN_PROTO_JSON_JSON_MESSAGE_H_

// Any protobuf message as proto3 JSON, through protobuf's own JSON support, with errors that
// name the field path ("tables[2].rows: expected an integer, got \"ten\"").
//
// Reading is strict where protobuf's parser is lenient (protobuf 3.21 reads a lone value as a
// one-element repeated field, and takes the last of a field given in both spellings): a check
// driven by the message's descriptor runs first and refuses unknown fields (listing the known
// ones), a field given twice, and values of the wrong shape (an object, an array or a scalar
// where the schema wants another). Then protobuf converts the values, and its errors are
// rephrased with the same paths. Both spellings of a name are accepted ("pooling_factor",
// "poolingFactor"), int64 values as numbers or decimal strings, enums by name or number.

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace shardplan::proto_json {

// Parses `json` into `message` (cleared first). INVALID_ARGUMENT naming the field path; a
// syntax error is "invalid JSON: ...".
absl::Status ParseJsonMessage(absl::string_view json, google::protobuf::Message& message);

struct JsonWriteOptions {
  bool pretty = false;  // one field per line, indented
  // Fields at their default value are written too, so that a file shows every field.
  bool with_defaults = false;
};

// `message` as proto3 JSON with the proto's snake_case field names.
std::string WriteJsonMessage(const google::protobuf::Message& message,
                             const JsonWriteOptions& options = {});

}  // namespace shardplan::proto_json

#endif  // SHARDPLAN_PROTO_JSON_JSON_MESSAGE_H_
