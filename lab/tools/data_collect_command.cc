// shardplan data collect: cost data from a hardware backend, resumable (docs/cost-data.md).

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/exit_codes.h"
#include "base/status_macros.h"
#include "lab/collection/collector.h"
#include "lab/collection/cost_record.h"
#include "lab/tools/commands.h"
#include "lab/tools/tool_support.h"

namespace shardplan::offline {
namespace {

absl::Status RunCollect(const OptionValues& args) {
  const std::string backend_name = args.Get("backend");
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string kind,
                             args.GetOneOf("kind", {"compute", "comm", "shards", "collective"}));
  if (backend_name == "cpu" && (kind == "comm" || kind == "collective")) {
    return UsageError("--backend cpu measures compute only (a CPU has no interconnect); use sim");
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t samples, args.GetInt("samples"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t devices, args.GetInt("devices"));
  SHARDPLAN_ASSIGN_OR_RETURN(const uint64_t seed, args.GetUint("seed"));
  SHARDPLAN_ASSIGN_OR_RETURN(const double noise_sigma, args.GetDouble("noise-sigma"));
  if (samples < 0) return UsageError("--samples is negative");
  if (devices < 1 || devices > 1024) return UsageError("--devices must be in [1, 1024]");
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t batch_size, BatchSizeOption(args, backend_name));
  int64_t devices_per_host = 0;
  if (args.Has("devices-per-host")) {
    SHARDPLAN_ASSIGN_OR_RETURN(devices_per_host, args.GetInt("devices-per-host"));
    if (kind != "comm" && kind != "collective") {
      return UsageError("--devices-per-host is for --kind comm and collective");
    }
    if (devices_per_host < 1 || devices_per_host > devices) {
      return UsageError("--devices-per-host must be in [1, --devices]");
    }
  }

  if (kind == "collective" && devices_per_host == 0) {
    return UsageError("--kind collective needs --devices-per-host (its records' layout)");
  }

  std::vector<int32_t> max_dims;
  for (absl::string_view item : absl::StrSplit(args.Get("max-dims"), ',', absl::SkipEmpty())) {
    int32_t d = 0;
    if (!absl::SimpleAtoi(item, &d) || d < 4 || d > 4096 || d % 4 != 0) {
      return UsageError(
          absl::StrCat("--max-dims: '", item, "' is not a multiple of 4 in [4, 4096]"));
    }
    max_dims.push_back(d);
  }
  if (!max_dims.empty() && kind != "comm") return UsageError("--max-dims is for --kind comm");

  std::optional<ShardingType> only_type;
  if (args.Has("sharding-type")) {
    if (kind != "shards") return UsageError("--sharding-type is for --kind shards");
    ShardingType type;
    if (!ParseShardingTypeName(args.Get("sharding-type"), &type)) {
      return UsageError(absl::StrCat("--sharding-type: '", args.Get("sharding-type"),
                                     "' is not TABLE_WISE, COLUMN_WISE, ROW_WISE, "
                                     "TABLE_ROW_WISE or DATA_PARALLEL"));
    }
    only_type = type;
  }

  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t max_tables, args.GetInt("max-tables"));
  if (max_tables != 0 && kind != "shards") return UsageError("--max-tables is for --kind shards");
  if (max_tables < 0 || max_tables > 256)
    return UsageError("--max-tables must be in [0, 256] (0: the reference's 15)");

  if (args.Has("one-call") && kind != "shards") return UsageError("--one-call is for --kind shards");
  if (args.Has("spread-hosts") && kind != "collective") {
    return UsageError("--spread-hosts is for --kind collective");
  }

  BackendChoice choice;
  choice.backend = backend_name;
  choice.one_call = args.Has("one-call");
  choice.spread_hosts = args.Has("spread-hosts");
  choice.only_type = only_type;
  choice.max_tables = static_cast<int32_t>(max_tables);
  choice.max_dims = max_dims;
  choice.profile = args.Get("profile");
  choice.num_devices = static_cast<int>(devices);
  choice.devices_per_host = static_cast<int>(devices_per_host);
  choice.noise_sigma = noise_sigma;
  choice.seed = seed;
  choice.batch_size = batch_size;
  SHARDPLAN_ASSIGN_OR_RETURN(std::unique_ptr<HardwareBackend> backend, MakeBackend(choice));
  SHARDPLAN_ASSIGN_OR_RETURN(const LoadedPool pool, LoadPoolWithHash(args.Get("pool")));
  const std::string out = args.Get("out");
  SHARDPLAN_ASSIGN_OR_RETURN(const CollectResult result,
                             CollectFile(*backend, choice, pool, kind, samples, out));
  if (result.torn_bytes_dropped > 0) {
    std::cerr << "dropped an unfinished last line (" << result.torn_bytes_dropped << " bytes) of "
              << out << "\n";
  }
  const int64_t total = result.already_present + result.appended;
  if (result.interrupted) {
    return InterruptedError(absl::StrCat("interrupted with ", total, "/", samples, " samples in ",
                                         out, "; rerun the same command to resume"));
  }
  std::cout << out << ": " << total << "/" << samples << " samples (" << result.appended
            << " collected now, " << result.already_present << " already there), backend "
            << backend->name() << ", profile " << backend->hardware_profile() << "\n";
  return absl::OkStatus();
}

}  // namespace

Command DataCollectCommand() {
  return Command{
      .group = "data",
      .name = "collect",
      .summary = "Collect compute or comm cost data from a hardware backend into a JSONL file",
      .description =
          "Sample i is drawn from (seed, i) by the reference's generators: a random table\n"
          "combination of the pool (compute; 1..15 tables under 4 GB) or a random placement\n"
          "with start offsets (comm); shards: a combination whose tables are given random\n"
          "sharding types, shard counts and row blocks (one device's shards); collective: one\n"
          "collective call of row-level or data-parallel tables on --devices in hosts of\n"
          "--devices-per-host. Rerunning with the same options appends only the missing\n"
          "samples; an unfinished last line is dropped; Ctrl-C stops between records (exit 9).\n"
          "The record format is in docs/cost-data.md.\n",
      .flags =
          {
              {"backend", "cpu|sim", "the hardware backend", "", true},
              {"kind", "compute|comm|shards|collective",
               "what to measure (comm, collective: sim only)", "", true},
              {"samples", "N", "the file ends up with samples 0..N-1", "", true},
              {"out", "FILE", "the JSONL file, created or resumed", "", true},
              {"profile", "NAME", "sim hardware profile (rtx2080ti, h100-sxm, a100-sxm4)",
               "rtx2080ti"},
              {"devices", "N", "devices of the comm or collective measurement (sim)", "4"},
              {"max-dims", "D,D,...",
               "comm: each sample's max dim drawn from these, its dims from that grid "
               "(default: every dim from the 4..128 grid, as the reference)",
               ""},
              {"sharding-type", "TYPE",
               "shards: every shard of this type (default: drawn per table)", ""},
              {"max-tables", "N",
               "shards: 1..N shards per device (default 0: the reference's 1..15)", "0"},
              {"one-call", "",
               "shards: one sharding type (and replica count) per record, so that a record is "
               "one fused kernel call (model train --compute-calls kernel_call)",
               ""},
              {"spread-hosts", "",
               "collective: each table-row-wise table on a host of its own draw (default: all on "
               "one host)",
               ""},
              {"devices-per-host", "L",
               "comm: hosts of L devices, recorded (default: the profile's, not recorded)", ""},
              {"batch-size", "B", "global batch (default: 65536 sim, 2048 cpu)", ""},
              {"seed", "S", "seeds the samples (and the sim's noise)", "0"},
              {"pool", "FILE", "table pool", kDefaultPool},
              {"noise-sigma", "X", "sim: log-normal measurement noise sigma", "0"},
          },
      .run = RunCollect,
  };
}

}  // namespace shardplan::offline
