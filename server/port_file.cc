#include "server/port_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace shardplan {

absl::Status WritePortFile(const std::string& path, int grpc_port, int metrics_port,
                           int health_port) {
  const std::string text =
      nlohmann::json{
          {"grpc_port", grpc_port}, {"metrics_port", metrics_port}, {"health_port", health_port}}
          .dump() +
      "\n";
  const std::string temp = absl::StrCat(path, ".tmp.", getpid());
  auto fail = [&](const char* what) {
    const std::string reason = std::strerror(errno);
    std::remove(temp.c_str());
    return absl::UnavailableError(
        absl::StrCat("port_file: cannot ", what, " \"", path, "\": ", reason));
  };
  std::FILE* file = std::fopen(temp.c_str(), "w");
  if (file == nullptr) return fail("create");
  const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  if (std::fclose(file) != 0 || !written) return fail("write");
  if (std::rename(temp.c_str(), path.c_str()) != 0) return fail("rename into");
  return absl::OkStatus();
}

}  // namespace shardplan
