#include "base/status_prefix.h"

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace shardplan {

absl::Status WithPrefix(const absl::Status& status, absl::string_view prefix) {
  if (status.ok()) return status;
  absl::Status prefixed(status.code(), absl::StrCat(prefix, status.message()));
  status.ForEachPayload([&](absl::string_view type_url, const absl::Cord& payload) {
    prefixed.SetPayload(type_url, payload);
  });
  return prefixed;
}

}  // namespace shardplan
