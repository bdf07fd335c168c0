#include "lab/tools/offline_command.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace shardplan::offline {
namespace {

constexpr char kUsagePayload[] = "shardplan-offline/usage";

const Flag* FindFlag(const Command& command, const std::string& name) {
  for (const Flag& flag : command.flags) {
    if (flag.name == name) return &flag;
  }
  return nullptr;
}

absl::Status BadValue(const std::string& name, const std::string& value, const char* expected) {
  return UsageError(absl::StrCat("--", name, " '", value, "' is not ", expected));
}

}  // namespace

std::string Args::Get(const std::string& name) const {
  if (const auto it = values_.find(name); it != values_.end()) return it->second;
  if (const auto it = defaults_.find(name); it != defaults_.end()) return it->second;
  return "";
}

absl::StatusOr<int64_t> Args::GetInt(const std::string& name) const {
  const std::string value = Get(name);
  int64_t out = 0;
  if (!absl::SimpleAtoi(value, &out)) return BadValue(name, value, "an integer");
  return out;
}

absl::StatusOr<uint64_t> Args::GetUint(const std::string& name) const {
  const std::string value = Get(name);
  uint64_t out = 0;
  if (!absl::SimpleAtoi(value, &out)) return BadValue(name, value, "a non-negative integer");
  return out;
}

absl::StatusOr<double> Args::GetDouble(const std::string& name) const {
  const std::string value = Get(name);
  double out = 0;
  if (!absl::SimpleAtod(value, &out) || !std::isfinite(out)) {
    return BadValue(name, value, "a number");
  }
  return out;
}

absl::StatusOr<Args> ParseArgs(const Command& command, const std::vector<std::string>& args) {
  Args parsed;
  for (const Flag& flag : command.flags) {
    if (!flag.default_value.empty()) parsed.defaults_[flag.name] = flag.default_value;
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.rfind("--", 0) != 0 || arg.size() == 2) {
      return UsageError(absl::StrCat("unexpected argument '", arg, "'"));
    }
    std::string name = arg.substr(2);
    std::string value;
    bool has_value = false;
    if (const size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
      has_value = true;
    }
    const Flag* flag = FindFlag(command, name);
    if (flag == nullptr) return UsageError(absl::StrCat("unknown option --", name));
    if (parsed.values_.count(name) > 0) return UsageError(absl::StrCat("--", name, " given twice"));
    if (flag->value_name.empty()) {
      if (has_value) return UsageError(absl::StrCat("--", name, " takes no value"));
      value = "true";
    } else if (!has_value) {
      if (i + 1 >= args.size()) return UsageError(absl::StrCat("--", name, " needs a value"));
      value = args[++i];
    }
    parsed.values_[name] = value;
  }
  for (const Flag& flag : command.flags) {
    if (flag.required && parsed.values_.count(flag.name) == 0) {
      return UsageError(absl::StrCat("--", flag.name, " is required"));
    }
  }
  return parsed;
}

absl::Status UsageError(const std::string& message) {
  absl::Status status = absl::InvalidArgumentError(message);
  status.SetPayload(kUsagePayload, absl::Cord("1"));
  return status;
}

bool IsUsageError(const absl::Status& status) {
  return status.GetPayload(kUsagePayload).has_value();
}

absl::Status InterruptedError(const std::string& message) { return absl::CancelledError(message); }

int ExitCodeFor(const absl::Status& status) {
  if (status.ok()) return kExitOk;
  if (IsUsageError(status)) return kExitUsage;
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
      return kExitInvalidArgument;
    case absl::StatusCode::kFailedPrecondition:
      return kExitFailedPrecondition;
    case absl::StatusCode::kNotFound:
      return kExitNotFound;
    case absl::StatusCode::kCancelled:
      return kExitCancelled;
    default:
      return kExitOther;
  }
}

std::string CommandHelp(const Command& command) {
  std::string text = absl::StrCat("Usage: shardplan ", command.group, " ", command.name,
                                  " [options]\n\n", command.summary, ".\n\n", command.description);
  if (!text.empty() && text.back() != '\n') text += "\n";
  text += "\nOptions:\n";
  for (const Flag& flag : command.flags) {
    std::string left = absl::StrCat("  --", flag.name);
    if (!flag.value_name.empty()) absl::StrAppend(&left, " ", flag.value_name);
    if (left.size() < 26)
      left.resize(26, ' ');
    else
      left += "  ";
    absl::StrAppend(&text, left, flag.help);
    if (flag.required) absl::StrAppend(&text, " (required)");
    if (!flag.default_value.empty()) absl::StrAppend(&text, " (default ", flag.default_value, ")");
    text += "\n";
  }
  absl::StrAppend(&text, "  --help                  this help\n",
                  "\nExit codes: 0 ok, 1 other error, 2 usage, 3 invalid input, 4 failed "
                  "precondition (e.g. --out holds another collection), 5 not found (e.g. unknown "
                  "profile), 9 interrupted (rerun to resume). See docs/offline-tools.md.\n");
  return text;
}

}  // namespace shardplan::offline
