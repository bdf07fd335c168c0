#include "proto/json/json_document.h"

#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace shardplan::proto_json {
namespace {

using nlohmann::json;

// Where the parser is: one entry per open object or array, so that a repeated key can be named
// by its path.
class OpenContainers {
 public:
  void OpenObject() { open_.push_back(Container{.is_array = false}); }
  void OpenArray() { open_.push_back(Container{.is_array = true}); }
  void Close() {
    if (!open_.empty()) open_.pop_back();
    ValueDone();
  }
  void ValueDone() {
    if (!open_.empty() && open_.back().is_array) ++open_.back().index;
  }
  // Records `key` in the innermost object; false when that object already gave it.
  bool AddKey(const std::string& key) {
    if (open_.empty() || open_.back().is_array) return true;
    open_.back().key = key;
    return open_.back().keys.insert(key).second;
  }
  // "tables[0].dim": the innermost object's key, after the path that leads to its object.
  std::string Path() const {
    std::string path;
    for (const Container& container : open_) {
      if (container.is_array) {
        absl::StrAppend(&path, "[", container.index, "]");
      } else {
        absl::StrAppend(&path, path.empty() ? "" : ".", container.key);
      }
    }
    return path;
  }

 private:
  struct Container {
    bool is_array = false;
    size_t index = 0;            // arrays: the element being read
    std::string key;             // objects: the key being read
    std::set<std::string> keys;  // objects: every key read so far
  };
  std::vector<Container> open_;
};

}  // namespace

absl::StatusOr<json> ParseJsonDocument(absl::string_view text) {
  OpenContainers open;
  std::string repeated;  // the first repeated key's path
  const json::parser_callback_t callback = [&](int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
        open.OpenObject();
        break;
      case json::parse_event_t::array_start:
        open.OpenArray();
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        open.Close();
        break;
      case json::parse_event_t::key:
        if (!open.AddKey(parsed.get<std::string>()) && repeated.empty()) repeated = open.Path();
        break;
      case json::parse_event_t::value:
        open.ValueDone();
        break;
    }
    return true;
  };
  json document;
  try {
    document = json::parse(text.begin(), text.end(), callback);
  } catch (const json::exception& error) {  // a syntax error, or a number out of range
    return absl::InvalidArgumentError(absl::StrCat("invalid JSON: ", error.what()));
  }
  if (!repeated.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(repeated, ": given twice in one object; give each field once"));
  }
  return document;
}

}  // namespace shardplan::proto_json
