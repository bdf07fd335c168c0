#ifndef SHARDPLAN_BASE_OPTION_HELP_H_
#define SHARDPLAN_BASE_OPTION_HELP_H_

#include <string>
#include <vector>

#include "base/command_line.h"

namespace shardplan {

// The options block of a --help text, the same in every program: one line per option, the
// spellings aligned ("-o, --output FILE", short names in a column of their own when any option
// of the block has one), then the help, "(default: X)", "(required)" and "(repeatable)",
// wrapped at 100 columns under the help.
std::string FormatOptionsHelp(const std::vector<OptionSpec>& specs);

}  // namespace shardplan

#endif  // SHARDPLAN_BASE_OPTION_HELP_H_
