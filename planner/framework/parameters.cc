#include "planner/framework/parameters.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string_view>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace shardplan {
namespace {

[[noreturn]] void Fatal(const std::string& message) {
  std::fprintf(stderr, "shardplan: %s\n", message.c_str());
  std::abort();
}

std::string Canonical(double value) {
  if (value == 0) value = 0;  // "-0" and "0" are one value
  char buffer[64];
  const std::to_chars_result result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

std::optional<double> ParseDouble(const std::string& text) {
  double value = 0;
  if (!absl::SimpleAtod(text, &value) || !std::isfinite(value)) return std::nullopt;
  return value;
}

// Integers may be written as any number with an integral value ("3", "03", "+3", "3.0").
std::optional<int64_t> ParseInt(const std::string& text) {
  int64_t value = 0;
  if (absl::SimpleAtoi(text, &value)) return value;
  std::optional<double> number = ParseDouble(text);
  // 2^63 is exactly representable; everything below it converts exactly when integral.
  if (!number || std::trunc(*number) != *number || *number < -9223372036854775808.0 ||
      *number >= 9223372036854775808.0) {
    return std::nullopt;
  }
  return static_cast<int64_t>(*number);
}

std::optional<bool> ParseBool(const std::string& text) {
  const std::string lower = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
  if (lower == "true" || lower == "1") return true;
  if (lower == "false" || lower == "0") return false;
  return std::nullopt;
}

std::string FormatBound(ParamType type, double bound) {
  if (type == ParamType::kInt && std::trunc(bound) == bound && std::fabs(bound) < 9.2e18) {
    return absl::StrCat(static_cast<int64_t>(bound));
  }
  return Canonical(bound);
}

absl::Status BoundsError(const ParamSpec& spec, double value, const std::string& spelled) {
  if (spec.min_value && value < *spec.min_value) {
    return absl::InvalidArgumentError(absl::StrCat("parameters.", spec.name, ": must be at least ",
                                                   FormatBound(spec.type, *spec.min_value),
                                                   ", got ", spelled));
  }
  if (spec.max_value && value > *spec.max_value) {
    return absl::InvalidArgumentError(absl::StrCat("parameters.", spec.name, ": must be at most ",
                                                   FormatBound(spec.type, *spec.max_value),
                                                   ", got ", spelled));
  }
  return absl::OkStatus();
}

// The canonical spelling of `text` as a value of `spec`, or INVALID_ARGUMENT.
absl::StatusOr<std::string> CanonicalValue(const ParamSpec& spec, const std::string& text) {
  const std::string field = absl::StrCat("parameters.", spec.name);
  switch (spec.type) {
    case ParamType::kInt: {
      std::optional<int64_t> value = ParseInt(text);
      if (!value) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ": expected an integer, got \"", absl::CEscape(text), "\""));
      }
      std::string canonical = absl::StrCat(*value);
      absl::Status bounds = BoundsError(spec, static_cast<double>(*value), canonical);
      if (!bounds.ok()) return bounds;
      return canonical;
    }
    case ParamType::kDouble: {
      std::optional<double> value = ParseDouble(text);
      if (!value) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ": expected a finite number, got \"", absl::CEscape(text), "\""));
      }
      std::string canonical = Canonical(*value);
      absl::Status bounds = BoundsError(spec, *value, canonical);
      if (!bounds.ok()) return bounds;
      return canonical;
    }
    case ParamType::kBool: {
      std::optional<bool> value = ParseBool(text);
      if (!value) {
        return absl::InvalidArgumentError(absl::StrCat(
            field, ": expected true, false, 1 or 0, got \"", absl::CEscape(text), "\""));
      }
      return std::string(*value ? "true" : "false");
    }
    case ParamType::kString:
      return text;
  }
  return absl::InternalError(absl::StrCat(field, ": unknown parameter type"));
}

const std::string& Lookup(const std::map<std::string, std::string>& values,
                          const std::string& name) {
  auto it = values.find(name);
  if (it == values.end()) Fatal(absl::StrCat("no resolved parameter \"", name, "\""));
  return it->second;
}

}  // namespace

const char* ParamTypeName(ParamType type) {
  switch (type) {
    case ParamType::kInt:
      return "int";
    case ParamType::kDouble:
      return "double";
    case ParamType::kBool:
      return "bool";
    case ParamType::kString:
      return "string";
  }
  return "unknown";
}

int64_t ParamValues::GetInt(const std::string& name) const {
  const std::string& text = Lookup(values_, name);
  std::optional<int64_t> value = ParseInt(text);
  if (!value) Fatal(absl::StrCat("parameter \"", name, "\" is not an int: \"", text, "\""));
  return *value;
}

double ParamValues::GetDouble(const std::string& name) const {
  const std::string& text = Lookup(values_, name);
  std::optional<double> value = ParseDouble(text);
  if (!value) Fatal(absl::StrCat("parameter \"", name, "\" is not a double: \"", text, "\""));
  return *value;
}

bool ParamValues::GetBool(const std::string& name) const {
  const std::string& text = Lookup(values_, name);
  std::optional<bool> value = ParseBool(text);
  if (!value) Fatal(absl::StrCat("parameter \"", name, "\" is not a bool: \"", text, "\""));
  return *value;
}

const std::string& ParamValues::GetString(const std::string& name) const {
  return Lookup(values_, name);
}

absl::StatusOr<ParamValues> ResolveParams(const std::vector<ParamSpec>& specs,
                                          const std::map<std::string, std::string>& given) {
  std::map<std::string, const ParamSpec*> by_name;
  for (const ParamSpec& spec : specs) by_name[spec.name] = &spec;
  for (const auto& [name, value] : given) {
    if (by_name.count(name)) continue;
    if (specs.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "parameters.", name, ": unknown parameter; this algorithm takes no parameters"));
    }
    std::vector<std::string> known;
    for (const auto& [known_name, spec] : by_name) known.push_back(known_name);
    return absl::InvalidArgumentError(absl::StrCat(
        "parameters.", name, ": unknown parameter; known: ", absl::StrJoin(known, ", ")));
  }
  std::map<std::string, std::string> resolved;
  for (const ParamSpec& spec : specs) {
    auto it = given.find(spec.name);
    const bool defaulted = it == given.end();
    absl::StatusOr<std::string> value =
        CanonicalValue(spec, defaulted ? spec.default_value : it->second);
    if (!value.ok()) {
      if (defaulted) {
        return absl::InternalError(absl::StrCat("the default of ", value.status().message()));
      }
      return value.status();
    }
    resolved[spec.name] = *std::move(value);
  }
  return ParamValues(std::move(resolved));
}

std::string ReportedNumber(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return absl::StrFormat("%.6g", value);
}

}  // namespace shardplan
