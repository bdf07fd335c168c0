// shardplan data observations: the datasets behind the NeuroShard paper's Figures 3 and 4.
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/exit_codes.h"
#include "base/status_macros.h"
#include "lab/tools/commands.h"
#include "lab/tools/observation_datasets.h"
#include "lab/tools/tool_support.h"

namespace shardplan::offline {
namespace {

absl::Status RunObservations(const OptionValues& args) {
  BackendChoice choice;
  choice.backend = args.Get("backend");
  choice.profile = args.Get("profile");
  SHARDPLAN_ASSIGN_OR_RETURN(choice.seed, args.GetUint("seed"));
  SHARDPLAN_ASSIGN_OR_RETURN(choice.batch_size, BatchSizeOption(args, choice.backend));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t combinations, args.GetInt("combinations"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t placements, args.GetInt("placements"));
  if (combinations < 0 || placements < 0) {
    return UsageError("--combinations and --placements must not be negative");
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const LoadedPool pool, LoadPoolWithHash(args.Get("pool")));

  ObservationOptions options;
  options.batch_size = choice.batch_size;
  options.seed = choice.seed;
  options.combinations = combinations;
  options.placements = placements;
  options.stop = InstallStopOnSignal();

  choice.num_devices = 1;
  SHARDPLAN_ASSIGN_OR_RETURN(std::unique_ptr<HardwareBackend> backend, MakeBackend(choice));
  const std::filesystem::path out(args.Get("out"));
  std::cerr << "observation 1 (cost vs dim, halves vs whole) on " << backend->hardware_profile()
            << "\n";
  SHARDPLAN_ASSIGN_OR_RETURN(const nlohmann::json first,
                             MeasureObservation1(*backend, pool.pool, options));
  std::cerr << "observation 2 (" << combinations << " combinations of "
            << options.tables_per_combination << " tables)\n";
  SHARDPLAN_ASSIGN_OR_RETURN(const nlohmann::json second,
                             MeasureObservation2(*backend, pool.pool, options));
  SHARDPLAN_RETURN_IF_ERROR(WriteTextFile((out / "observation1.json").string(), first.dump(1)));
  SHARDPLAN_RETURN_IF_ERROR(WriteTextFile((out / "observation2.json").string(), second.dump(1)));
  int written = 2;
  if (choice.backend == "sim") {
    std::cerr << "observation 3 (" << placements << " placements of " << options.tables_per_device
              << " tables per device at 4 and 8 devices)\n";
    const BackendFactory factory = [&choice](int32_t devices) {
      BackendChoice with_devices = choice;
      with_devices.num_devices = devices;
      return MakeBackend(with_devices);
    };
    SHARDPLAN_ASSIGN_OR_RETURN(const nlohmann::json third, MeasureObservation3(factory, options));
    SHARDPLAN_RETURN_IF_ERROR(WriteTextFile((out / "observation3.json").string(), third.dump(1)));
    ++written;
  }
  std::cout << out.string() << ": " << written << " observation datasets of "
            << backend->hardware_profile() << "\n";
  return absl::OkStatus();
}

}  // namespace

Command DataObservationsCommand() {
  return Command{
      .group = "data",
      .name = "observations",
      .summary = "Measure the datasets of the paper's three observations (Figures 3 and 4)",
      .description =
          "Writes into --out: observation1.json (cost vs dim of four pool tables, and a column\n"
          "half vs the whole table), observation2.json (multi-table cost vs the sum of single-\n"
          "table costs over random subsets of 10 tables) and, for sim, observation3.json (max\n"
          "forward/backward all-to-all cost vs max device dim sum over random placements of 40\n"
          "tables on 4 devices and 80 on 8). The counts follow the paper's section 2.\n"
          "scripts/plot_observations.py draws them (docs/cost-data.md).\n",
      .flags =
          {
              {"backend", "cpu|sim", "the hardware backend", "", true},
              {"profile", "NAME", "sim hardware profile (rtx2080ti, h100-sxm, a100-sxm4)", "rtx2080ti"},
              {"out", "DIR", "output folder", "", true},
              {"batch-size", "B", "global batch (default: 65536 sim, 2048 cpu)", ""},
              {"combinations", "N", "observation 2: random 10-table combinations", "50"},
              {"placements", "N", "observation 3: random placements per device count", "50"},
              {"seed", "S", "seed", "0"},
              {"pool", "FILE", "table pool", kDefaultPool},
          },
      .run = RunObservations,
  };
}

}  // namespace shardplan::offline
