#include "server/grpc/status_conversion.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace shardplan {
namespace {

constexpr int kMaxCanonicalCode = 16;  // UNAUTHENTICATED

std::string Cut(absl::string_view message) {
  if (message.size() <= kMaxErrorMessageBytes) return std::string(message);
  constexpr absl::string_view kEllipsis = " ...";
  std::string cut(message.substr(0, kMaxErrorMessageBytes - kEllipsis.size()));
  // Do not leave half a UTF-8 sequence behind (continuation bytes are 10xxxxxx).
  while (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0xC0) == 0x80) cut.pop_back();
  if (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0x80) != 0) cut.pop_back();
  return absl::StrCat(cut, kEllipsis);
}

}  // namespace

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  int code = static_cast<int>(status.code());
  if (code < 0 || code > kMaxCanonicalCode) code = static_cast<int>(grpc::StatusCode::UNKNOWN);
  return grpc::Status(static_cast<grpc::StatusCode>(code), Cut(status.message()));
}

std::string GrpcCodeName(grpc::StatusCode code) {
  const int value = static_cast<int>(code);
  if (value < 0 || value > kMaxCanonicalCode) return "UNKNOWN";
  return absl::StatusCodeToString(static_cast<absl::StatusCode>(value));
}

}  // namespace shardplan
