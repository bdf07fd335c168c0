#include "base/option_values.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/exit_codes.h"

namespace shardplan {
namespace {

absl::Status NotA(absl::string_view name, absl::string_view value, absl::string_view expected) {
  return UsageError(absl::StrCat("--", name, " '", value, "' is not ", expected));
}

}  // namespace

bool OptionValues::Has(absl::string_view name) const { return values_.contains(name); }

std::string OptionValues::Get(absl::string_view name, absl::string_view fallback) const {
  if (const auto it = values_.find(name); it != values_.end() && !it->second.empty()) {
    return it->second.back();
  }
  if (const auto it = defaults_.find(name); it != defaults_.end()) return it->second;
  return std::string(fallback);
}

std::vector<std::string> OptionValues::GetAll(absl::string_view name) const {
  const auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

absl::StatusOr<int64_t> OptionValues::GetInt(absl::string_view name) const {
  const std::string value = Get(name);
  int64_t out = 0;
  if (!absl::SimpleAtoi(value, &out)) return NotA(name, value, "an integer");
  return out;
}

absl::StatusOr<uint64_t> OptionValues::GetUint(absl::string_view name) const {
  const std::string value = Get(name);
  uint64_t out = 0;
  if (!absl::SimpleAtoi(value, &out)) return NotA(name, value, "a non-negative integer");
  return out;
}

absl::StatusOr<double> OptionValues::GetDouble(absl::string_view name) const {
  const std::string value = Get(name);
  double out = 0;
  if (!absl::SimpleAtod(value, &out) || !std::isfinite(out)) return NotA(name, value, "a number");
  return out;
}

absl::StatusOr<std::string> OptionValues::GetOneOf(
    absl::string_view name, std::initializer_list<absl::string_view> choices) const {
  std::string value = Get(name);
  std::string expected;  // "a", "a or b", "a, b or c"
  size_t k = 0;
  for (absl::string_view choice : choices) {
    if (value == choice) return value;
    absl::StrAppend(&expected, k == 0 ? "" : k + 1 == choices.size() ? " or " : ", ", choice);
    ++k;
  }
  return NotA(name, value, expected);
}

}  // namespace shardplan
