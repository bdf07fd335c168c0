#include "client/cli/flags.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/cli/exit_codes.h"

namespace shardplan::cli {
namespace {

const FlagSpec* FindLong(const std::vector<FlagSpec>& specs, absl::string_view name) {
  for (const FlagSpec& spec : specs) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

const FlagSpec* FindShort(const std::vector<FlagSpec>& specs, char name) {
  for (const FlagSpec& spec : specs) {
    if (spec.short_name != '\0' && spec.short_name == name) return &spec;
  }
  return nullptr;
}

std::string Spelling(const FlagSpec& spec) {
  std::string text = spec.short_name != '\0'
                         ? absl::StrCat("-", std::string(1, spec.short_name), ", --", spec.name)
                         : absl::StrCat("    --", spec.name);
  if (spec.takes_value()) absl::StrAppend(&text, " ", spec.value_name);
  return text;
}

}  // namespace

FlagSpec FlagSpec::Value(std::string name, std::string value_name, std::string help,
                         char short_name) {
  FlagSpec spec;
  spec.name = std::move(name);
  spec.short_name = short_name;
  spec.value_name = std::move(value_name);
  spec.help = std::move(help);
  return spec;
}

FlagSpec FlagSpec::Switch(std::string name, std::string help, char short_name) {
  FlagSpec spec;
  spec.name = std::move(name);
  spec.short_name = short_name;
  spec.help = std::move(help);
  return spec;
}

bool ParsedFlags::Has(absl::string_view name) const { return values_.find(name) != values_.end(); }

std::string ParsedFlags::Get(absl::string_view name, absl::string_view fallback) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.empty()) return std::string(fallback);
  return it->second.back();
}

std::vector<std::string> ParsedFlags::GetAll(absl::string_view name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

absl::StatusOr<size_t> ParseFlags(const std::vector<FlagSpec>& specs,
                                  const std::vector<std::string>& args, bool stop_at_positional,
                                  ParsedFlags& out) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      if (stop_at_positional) return i + 1;
      for (++i; i < args.size(); ++i) out.AddPositional(args[i]);
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      if (stop_at_positional) return i;
      out.AddPositional(arg);
      continue;
    }
    const FlagSpec* spec = nullptr;
    std::string value;
    bool has_inline_value = false;
    if (absl::StartsWith(arg, "--")) {
      absl::string_view body = absl::string_view(arg).substr(2);
      const size_t eq = body.find('=');
      if (eq != absl::string_view::npos) {
        value = std::string(body.substr(eq + 1));
        has_inline_value = true;
        body = body.substr(0, eq);
      }
      spec = FindLong(specs, body);
    } else if (arg.size() == 2) {
      spec = FindShort(specs, arg[1]);
    }
    if (spec == nullptr) return UsageError(absl::StrCat("unknown option ", arg));
    if (!spec->takes_value()) {
      if (has_inline_value) {
        return UsageError(absl::StrCat("option --", spec->name, " takes no value"));
      }
    } else if (!has_inline_value) {
      if (i + 1 >= args.size()) {
        return UsageError(
            absl::StrCat("option --", spec->name, " needs a value (", spec->value_name, ")"));
      }
      value = args[++i];
    }
    // A non-repeatable option given twice: the last one wins, as in most tools.
    out.Add(spec->name, std::move(value));
  }
  return args.size();
}

std::string FormatFlagHelp(const std::vector<FlagSpec>& specs) {
  size_t width = 0;
  for (const FlagSpec& spec : specs) width = std::max(width, Spelling(spec).size());
  std::string text;
  for (const FlagSpec& spec : specs) {
    std::string spelling = Spelling(spec);
    spelling.resize(width, ' ');
    absl::StrAppend(&text, "  ", spelling, "  ", spec.help, spec.repeatable ? " (repeatable)" : "",
                    "\n");
  }
  return text;
}

}  // namespace shardplan::cli
