#ifndef SHARDPLAN_SERVER_LOGGING_H_
#define SHARDPLAN_SERVER_LOGGING_H_

#include "absl/strings/string_view.h"

namespace shardplan {

// One line to stderr: "<UTC time> shardplan-server: <message>". Thread-safe.
void LogLine(absl::string_view message);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_LOGGING_H_
