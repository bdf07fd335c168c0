#include "client/cli/output.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "google/protobuf/util/json_util.h"

namespace shardplan::cli {

std::string ToJson(const google::protobuf::Message& message, bool pretty) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  options.add_whitespace = pretty;
  std::string json;
  // Printing a well-formed message cannot fail (no Any fields in the API).
  (void)google::protobuf::util::MessageToJsonString(message, &json, options);
  if (json.empty() || json.back() != '\n') json += '\n';
  return json;
}

absl::Status WriteOutput(absl::string_view text, absl::string_view path) {
  if (path.empty() || path == "-") {
    std::cout << text << std::flush;
    if (!std::cout) return absl::UnknownError("cannot write to stdout");
    return absl::OkStatus();
  }
  std::ofstream file{std::string(path), std::ios::binary | std::ios::trunc};
  if (!file) {
    return absl::UnknownError(
        absl::StrCat(path, ": cannot open for writing: ", std::strerror(errno)));
  }
  file << text;
  file.close();
  if (!file) return absl::UnknownError(absl::StrCat(path, ": write failed"));
  return absl::OkStatus();
}

std::string FormatMs(double ms) { return absl::StrFormat("%.3f", ms); }

std::string FormatGiB(int64_t bytes, int decimals) {
  return absl::StrFormat("%.*f", decimals, static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
}

}  // namespace shardplan::cli
