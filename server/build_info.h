#ifndef SHARDPLAN_SERVER_BUILD_INFO_H_
#define SHARDPLAN_SERVER_BUILD_INFO_H_

#include <string>

namespace shardplan {

// What this binary was built from, for shardplan_build_info.
struct BuildInfo {
  std::string version;     // the CMake project version, e.g. "0.1.0"
  std::string git_commit;  // `git rev-parse --short HEAD` when CMake configured; "unknown"
  std::string build_type;  // CMAKE_BUILD_TYPE, e.g. "Release"
  std::string compiler;    // e.g. "GNU 12.2.0"
};

const BuildInfo& GetBuildInfo();

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_BUILD_INFO_H_
