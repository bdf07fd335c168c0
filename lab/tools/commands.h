#ifndef SHARDPLAN_LAB_TOOLS_COMMANDS_H_
#define SHARDPLAN_LAB_TOOLS_COMMANDS_H_

#include <string>
#include <vector>

#include "lab/tools/offline_command.h"

namespace shardplan::offline {

// One function per command, each in its group's file.
Command TablesGeneratePoolCommand();  // tables_commands.cc
Command TablesProfileCommand();       // tables_commands.cc
Command TasksGenerateCommand();       // tasks_commands.cc
Command DataCollectCommand();         // data_collect_command.cc
Command DataObservationsCommand();    // data_observations_command.cc
Command ModelTrainCommand();          // model_train_command.cc
Command ModelCheckCommand();          // model_check_command.cc
Command PolicyTrainAutoShardCommand();  // policy_autoshard_command.cc
Command PolicyTrainDreamShardCommand();  // policy_dreamshard_command.cc

const std::vector<Command>& AllCommands();

// `shardplan-offline GROUP NAME [options]` (also reached as `shardplan GROUP NAME ...`).
int OfflineMain(const std::vector<std::string>& args);

}  // namespace shardplan::offline

#endif  // SHARDPLAN_LAB_TOOLS_COMMANDS_H_
