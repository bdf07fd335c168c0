#include "server/build_info.h"

// Defined for this file alone by server/CMakeLists.txt, so a new commit rebuilds only it.
#ifndef SHARDPLAN_VERSION
#define SHARDPLAN_VERSION "unknown"
#endif
#ifndef SHARDPLAN_GIT_COMMIT
#define SHARDPLAN_GIT_COMMIT "unknown"
#endif
#ifndef SHARDPLAN_BUILD_TYPE
#define SHARDPLAN_BUILD_TYPE "unknown"
#endif
#ifndef SHARDPLAN_COMPILER
#define SHARDPLAN_COMPILER "unknown"
#endif

namespace shardplan {

const BuildInfo& GetBuildInfo() {
  static const BuildInfo info = {SHARDPLAN_VERSION, SHARDPLAN_GIT_COMMIT, SHARDPLAN_BUILD_TYPE,
                                 SHARDPLAN_COMPILER};
  return info;
}

}  // namespace shardplan
