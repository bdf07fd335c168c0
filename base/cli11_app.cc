#include "base/cli11_app.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace shardplan {

std::unique_ptr<CLI::App> BuildApp(const std::vector<OptionSpec>& specs) {
  auto app = std::make_unique<CLI::App>();
  app->set_help_flag();
  for (const OptionSpec& spec : specs) {
    const std::string names =
        spec.short_name != '\0'
            ? absl::StrCat("-", std::string(1, spec.short_name), ",--", spec.name)
            : absl::StrCat("--", spec.name);
    const std::string& help = spec.help;  // CLI11 2.1's add_flag wants a const lvalue
    CLI::Option* option = nullptr;
    if (spec.takes_value()) {
      option = app->add_option(names, help)->type_name(spec.value_name);
    } else {
      // --name=VALUE is refused, rather than read as true or false.
      option = app->add_flag(names, help)->disable_flag_override();
    }
    option->multi_option_policy(spec.repeatable ? CLI::MultiOptionPolicy::TakeAll
                                                : CLI::MultiOptionPolicy::TakeLast);
    option->default_str(spec.default_value);
    option->required(spec.required);
  }
  return app;
}

const CLI::Option* FindOption(const CLI::App& app, const OptionSpec& spec) {
  return app.get_option_no_throw(absl::StrCat("--", spec.name));
}

}  // namespace shardplan
