#include "base/option_help.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/cli11_app.h"
#include "base/text_wrap.h"

namespace shardplan {
namespace {

// The options' layout in CLI11's terms: make_groups visits the options of each group (ours are
// all in CLI11's default one); the heading is the program's ("Options:", "Global options:").
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_group(std::string /*group*/, bool /*is_positional*/,
                         std::vector<const CLI::Option*> options) const override {
    const bool short_column = std::any_of(options.begin(), options.end(),
                                          [](const auto* o) { return !o->get_snames().empty(); });
    std::vector<std::string> spellings;
    size_t width = 0;
    for (const CLI::Option* option : options) {
      std::string spelling = make_option_name(option, false) + make_option_opts(option);
      if (short_column && option->get_snames().empty()) spelling.insert(0, "    ");
      width = std::max(width, spelling.size());
      spellings.push_back(std::move(spelling));
    }
    std::string text;
    for (size_t i = 0; i < options.size(); ++i) {
      spellings[i].resize(width, ' ');
      absl::StrAppend(&text, Wrapped("  " + spellings[i] + "  ", options[i]->get_description(),
                                     Notes(options[i])));
    }
    return text;
  }

  // "-o, --output" or "--output".
  std::string make_option_name(const CLI::Option* option, bool /*is_positional*/) const override {
    std::string name = absl::StrCat("--", option->get_lnames().front());
    if (!option->get_snames().empty()) {
      name.insert(0, absl::StrCat("-", option->get_snames().front(), ", "));
    }
    return name;
  }

  // " FILE"; nothing for a switch.
  std::string make_option_opts(const CLI::Option* option) const override {
    return option->get_type_name().empty() || option->get_expected_max() == 0
               ? ""
               : absl::StrCat(" ", option->get_type_name());
  }

 private:
  // What else the option is, each kept on one line: default, required, repeatable.
  static std::vector<std::string> Notes(const CLI::Option* option) {
    std::vector<std::string> notes;
    if (!option->get_default_str().empty()) {
      notes.push_back(absl::StrCat("(default: ", option->get_default_str(), ")"));
    }
    if (option->get_required()) notes.push_back("(required)");
    if (option->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll) {
      notes.push_back("(repeatable)");
    }
    return notes;
  }

  // `lead`, the words of `help` and the notes, broken at spaces into lines of at most
  // kTerminalWidth columns (a longer word has a line of its own), later lines indented under the
  // first word.
  static std::string Wrapped(const std::string& lead, const std::string& help,
                             const std::vector<std::string>& notes) {
    std::vector<std::string> words = absl::StrSplit(help, ' ', absl::SkipEmpty());
    words.insert(words.end(), notes.begin(), notes.end());
    const size_t room = kTerminalWidth > lead.size() ? kTerminalWidth - lead.size() : 1;
    return absl::StrCat(
        lead, absl::StrJoin(WrapWords(words, room), "\n" + std::string(lead.size(), ' ')), "\n");
  }
};

}  // namespace

std::string FormatOptionsHelp(const std::vector<OptionSpec>& specs) {
  const std::unique_ptr<CLI::App> app = BuildApp(specs);
  return HelpFormatter().make_groups(app.get(), CLI::AppFormatMode::Normal);
}

}  // namespace shardplan
