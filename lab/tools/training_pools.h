#ifndef SHARDPLAN_LAB_TOOLS_TRAINING_POOLS_H_
#define SHARDPLAN_LAB_TOOLS_TRAINING_POOLS_H_

#include "lab/training/datasets.h"

namespace shardplan::offline {

// Loads the pool a compute record names from its file (path relative to the working
// directory), with its SHA-256, for the training datasets' loaders.
training::PoolLoader PoolFromFile();

}  // namespace shardplan::offline

#endif  // SHARDPLAN_LAB_TOOLS_TRAINING_POOLS_H_
