#ifndef SHARDPLAN_LAB_TOOLS_TOOL_SUPPORT_H_
#define SHARDPLAN_LAB_TOOLS_TOOL_SUPPORT_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "groundtruth/hardware_backend.h"
#include "lab/collection/collector.h"
#include "lab/data/table_pool.h"
#include "lab/tools/offline_command.h"

namespace shardplan::offline {

// The pool every command defaults to, relative to the repository root. From another working
// directory the commands read it from the source tree they were built from (PoolFileToRead).
inline constexpr char kDefaultPool[] = "data/table_pool/dlrm_856.json";

// Where to read the pool `path` from: `path` itself, except that the default pool, when it is not
// under the working directory, is read from the source tree this tool was built from. Records and
// reports keep naming `path`, so they do not depend on the working directory.
std::string PoolFileToRead(const std::string& path);

// A table pool and the hex SHA-256 of its file, which cost records carry.
struct LoadedPool {
  std::string path;
  std::string sha256;
  TablePool pool;
};
absl::StatusOr<LoadedPool> LoadPoolWithHash(const std::string& path);

// What selects a backend on the command line (--backend, --profile, --devices,
// --noise-sigma, --seed, --batch-size).
struct BackendChoice {
  std::string backend;  // "cpu" or "sim"
  std::string profile;  // sim profile name
  int num_devices = 1;
  int devices_per_host = 0;       // comm data: hosts of this many devices; 0: the profile's
  std::vector<int32_t> max_dims;  // comm data: per-sample max dims (PlacementOptions::max_dims)
  std::optional<ShardingType> only_type;  // shards data: every shard of this type
  // shards data: the most shards a device holds (CombinationOptions::max_tables); 0: the
  // reference's 15.
  int32_t max_tables = 0;
  bool one_call = false;      // shards data: one type per record (one kernel call)
  bool spread_hosts = false;  // collective data: each table-row-wise table draws its host
  double noise_sigma = 0.0;
  uint64_t seed = 0;
  int64_t batch_size = 0;
};
absl::StatusOr<std::unique_ptr<HardwareBackend>> MakeBackend(const BackendChoice& choice);

// --batch-size (a usage error unless positive), or when it is absent the batch `backend` is
// collected at: the reference's 65536 for sim, the cpu backend's default (docs/cpu-backend.md)
// for cpu.
absl::StatusOr<int64_t> BatchSizeOption(const OptionValues& args, const std::string& backend);

// One cost-data file as `data collect` writes it: samples 0..samples-1 of `kind` ("compute":
// table combinations of `pool`; "comm": placements on choice.num_devices devices), each drawn
// from (choice.seed, id) at choice.batch_size, measured on `backend` (made from `choice`) and
// appended to `out` (resumed if it holds some); progress on stderr, Ctrl-C stops between
// records (the result's `interrupted`).
absl::StatusOr<CollectResult> CollectFile(HardwareBackend& backend, const BackendChoice& choice,
                                          const LoadedPool& pool, const std::string& kind,
                                          int64_t samples, const std::string& out);

// The simulator profile a recorded hardware profile names ("sim-h100-sxm" -> "h100-sxm"); other
// profiles unchanged.
std::string SimProfileOf(const std::string& hardware_profile);

// The devices per host of comm records that do not record it: the simulator profile's for
// backend "sim"; 0 (one host) otherwise.
int DefaultDevicesPerHost(const std::string& backend, const std::string& hardware_profile);

// Installs a SIGINT/SIGTERM handler that sets the returned flag (the second signal kills as
// usual), so long loops can stop between items.
const std::atomic<bool>* InstallStopOnSignal();

// Writes `text` to `path` atomically, creating its folder.
absl::Status WriteTextFile(const std::string& path, const std::string& text);

}  // namespace shardplan::offline

#endif  // SHARDPLAN_LAB_TOOLS_TOOL_SUPPORT_H_
