#include "lab/tools/tool_support.h"

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/atomic_file.h"
#include "base/exit_codes.h"
#include "base/sha256.h"
#include "base/status_macros.h"
#include "groundtruth/cpu/cpu_backend.h"
#include "groundtruth/sim/hardware_profiles.h"
#include "groundtruth/sim/sim_backend.h"
#include "lab/collection/sample_generators.h"
#include "planner/domain/task.h"

namespace shardplan::offline {
namespace {

std::atomic<bool> stop_requested{false};

extern "C" void OnStopSignal(int signal) {
  stop_requested.store(true, std::memory_order_relaxed);
  // A second signal ends the process the default way.
  std::signal(signal, SIG_DFL);
}

}  // namespace

std::string PoolFileToRead(const std::string& path) {
  if (path != kDefaultPool || std::filesystem::exists(path)) return path;
  const std::string in_source_tree = absl::StrCat(SHARDPLAN_SOURCE_DIR, "/", path);
  return std::filesystem::exists(in_source_tree) ? in_source_tree : path;
}

absl::StatusOr<LoadedPool> LoadPoolWithHash(const std::string& path) {
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string text, ReadTablePoolText(PoolFileToRead(path)));
  LoadedPool loaded;
  loaded.path = path;
  loaded.sha256 = Sha256Hex(text);
  SHARDPLAN_ASSIGN_OR_RETURN(loaded.pool, TablePoolFromJsonText(text, path));
  if (loaded.pool.tables.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": the table pool is empty"));
  }
  return loaded;
}

absl::StatusOr<int64_t> BatchSizeOption(const OptionValues& args, const std::string& backend) {
  if (!args.Has("batch-size")) {
    return backend == "cpu" ? CpuBackendOptions().batch_size : kDefaultBatchSize;
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t batch_size, args.GetInt("batch-size"));
  if (batch_size <= 0) return UsageError("--batch-size must be positive");
  return batch_size;
}

absl::StatusOr<std::unique_ptr<HardwareBackend>> MakeBackend(const BackendChoice& choice) {
  if (choice.backend == "sim") {
    SimOptions options;
    options.noise_sigma = choice.noise_sigma;
    options.seed = choice.seed;
    return MakeSimBackend(choice.profile, choice.num_devices, options);
  }
  if (choice.backend == "cpu") {
    if (choice.noise_sigma != 0.0) {
      return UsageError("--noise-sigma is for --backend sim (cpu timings are real)");
    }
    CpuBackendOptions options;
    options.seed = choice.seed;
    if (choice.batch_size > 0) options.batch_size = choice.batch_size;
    return std::unique_ptr<HardwareBackend>(std::make_unique<CpuBackend>(options));
  }
  return UsageError(absl::StrCat("--backend '", choice.backend, "' is not cpu or sim"));
}

std::string SimProfileOf(const std::string& hardware_profile) {
  constexpr absl::string_view kSim = "sim-";
  return absl::StartsWith(hardware_profile, kSim) ? hardware_profile.substr(kSim.size())
                                                  : hardware_profile;
}

int DefaultDevicesPerHost(const std::string& backend, const std::string& hardware_profile) {
  if (backend != "sim") return 0;
  absl::StatusOr<HardwareProfile> profile = FindHardwareProfile(SimProfileOf(hardware_profile));
  return profile.ok() ? profile->devices_per_host : 0;
}

const std::atomic<bool>* InstallStopOnSignal() {
  std::signal(SIGINT, OnStopSignal);
  std::signal(SIGTERM, OnStopSignal);
  return &stop_requested;
}

absl::Status WriteTextFile(const std::string& path, const std::string& text) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code error;
  if (!parent.empty()) std::filesystem::create_directories(parent, error);
  if (error) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create ", parent.string(), ": ", error.message()));
  }
  return WriteFileAtomically(path, text);
}

absl::StatusOr<CollectResult> CollectFile(HardwareBackend& backend, const BackendChoice& choice,
                                          const LoadedPool& pool, const std::string& kind,
                                          int64_t samples, const std::string& out) {
  CollectOptions options;
  options.kind = kind;
  options.samples = samples;
  options.out_path = out;
  options.seed = choice.seed;
  options.batch_size = choice.batch_size;
  const bool layout = kind == "comm" || kind == "collective";
  options.num_devices = layout ? choice.num_devices : 0;
  options.devices_per_host = layout ? choice.devices_per_host : 0;
  options.pool = pool.path;
  options.pool_sha256 = pool.sha256;
  options.stop = InstallStopOnSignal();
  options.progress = &std::cerr;
  // A terminal gets lines twice a second; a log file one every 10 s.
  options.progress_interval = std::chrono::milliseconds(::isatty(2) ? 500 : 10000);
  const SampleGenerator generator =
      kind == "compute"      ? ComputeSamples(pool.pool, choice.seed)
      : kind == "shards"     ? ShardComputeSamples(pool.pool, choice.seed, choice.only_type,
                                                   choice.max_tables, choice.one_call)
      : kind == "collective" ? CollectiveSamples(choice.seed, choice.num_devices,
                                                 choice.devices_per_host, choice.spread_hosts)
                             : CommSamples(choice.num_devices, choice.seed, choice.max_dims);
  return Collect(backend, &pool.pool, generator, options);
}

}  // namespace shardplan::offline
