#include "client/cli/commands.h"

namespace shardplan::cli {

const std::vector<Command>& AllCommands() {
  static const std::vector<Command>* const commands = new std::vector<Command>{
      PlanCommand(),       ReplanCommand(), SubmitCommand(),   GetCommand(),    WatchCommand(),
      CancelCommand(),     DeleteCommand(), EvaluateCommand(), ReportCommand(), PlotCommand(),
      AlgorithmsCommand(), ModelsCommand(), HealthCommand(),
  };
  return *commands;
}

}  // namespace shardplan::cli
