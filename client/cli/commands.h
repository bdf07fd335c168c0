#ifndef SHARDPLAN_CLIENT_CLI_COMMANDS_H_
#define SHARDPLAN_CLIENT_CLI_COMMANDS_H_

#include <vector>

#include "client/cli/command.h"

namespace shardplan::cli {

// Each command lives in its own file; this is the list `shardplan --help` shows, in order.
Command PlanCommand();        // plan_commands.cc
Command ReplanCommand();      // plan_commands.cc
Command SubmitCommand();      // plan_commands.cc
Command GetCommand();         // job_commands.cc
Command WatchCommand();       // job_commands.cc
Command CancelCommand();      // job_commands.cc
Command DeleteCommand();      // job_commands.cc
Command EvaluateCommand();    // evaluate_command.cc
Command ReportCommand();      // report_command.cc
Command PlotCommand();        // plot_command.cc
Command AlgorithmsCommand();  // catalog_commands.cc
Command ModelsCommand();      // catalog_commands.cc
Command HealthCommand();      // health_command.cc

const std::vector<Command>& AllCommands();

}  // namespace shardplan::cli

#endif  // SHARDPLAN_CLIENT_CLI_COMMANDS_H_
