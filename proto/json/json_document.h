#ifndef SHARDPLAN_PROTO_JSON_JSON_DOCUMENT_H_
#define SHARDPLAN_PROTO_JSON_JSON_DOCUMENT_H_

// A JSON text as a document, read strictly: an object that gives one key twice is refused (JSON
// parsers keep one of the two values, silently), naming the key's path ("tables[0].dim: given
// twice in one object"). The one JSON parser of every file the project reads: tasks and plans
// (json_message.h), the server's --config and auth_tokens_file.

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace shardplan::proto_json {

// INVALID_ARGUMENT "invalid JSON: ..." for a syntax error or a number out of range, or
// "<path>: given twice in one object; give each field once".
absl::StatusOr<nlohmann::json> ParseJsonDocument(absl::string_view text);

}  // namespace shardplan::proto_json

#endif  // SHARDPLAN_PROTO_JSON_JSON_DOCUMENT_H_
