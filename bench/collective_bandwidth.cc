// collective_bandwidth: the simulator's collectives beside published nccl-tests figures of the
// machines its profiles describe, and beside TorchRec's formulas (analytic@1), by message size
// (docs/simulator.md, "Collectives against published benchmarks").
//
// For each profile, collective and size S (nccl-tests' "size": the all-reduce's buffer, the
// all-gather's output, the reduce-scatter's input, the bytes each rank sends in an all-to-all),
// one collective over every device of the topology is timed by SimulateCollectives, and by
// TorchRec's CollectiveMs on the task's default topology bandwidths (what analytic@1 assumes when
// the task gives none), and reported in nccl-tests' bus bandwidth:
//   algbw = S / t,  busbw = algbw x 2(n-1)/n (all-reduce) or (n-1)/n (the others).
// Rows of --references (CSV: profile,collective,devices,bytes,busbw_gbps,source) at the same
// profile, collective, device count and size are printed beside, with the residual
// sim / published - 1.
//
//   build/bench/collective_bandwidth [--profiles a100-sxm4,h100-sxm,rtx2080ti] [--devices 8]
//       [--devices-per-host 8] [--references bench/collective_references.csv]
//       [--out bench/results/collective_bandwidth]
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <map>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/exit_codes.h"
#include "base/status_macros.h"
#include "bench/bench_support.h"
#include "groundtruth/sim/collective_model.h"
#include "groundtruth/sim/hardware_profiles.h"
#include "lab/tools/tool_support.h"
#include "nlohmann/json.hpp"
#include "planner/estimators/torchrec_shard_perf.h"

namespace shardplan::bench {
namespace {

using ::nlohmann::json;
using offline::Command;

constexpr Collective kCollectives[] = {Collective::kAllReduce, Collective::kAllGather,
                                       Collective::kReduceScatter, Collective::kAllToAll};

// nccl-tests' names: all_reduce, all_gather, reduce_scatter, alltoall.
const char* NcclTestName(Collective collective) {
  switch (collective) {
    case Collective::kAllReduce:
      return "all_reduce";
    case Collective::kAllGather:
      return "all_gather";
    case Collective::kReduceScatter:
      return "reduce_scatter";
    case Collective::kAllToAll:
      return "alltoall";
  }
  return "";
}

// nccl-tests' bus-bandwidth factor (doc/PERFORMANCE.md).
double BusFactor(Collective collective, int n) {
  const double f = static_cast<double>(n - 1) / n;
  return collective == Collective::kAllReduce ? 2.0 * f : f;
}

struct Reference {
  double busbw_gbps = 0.0;
  std::string source;
};
using ReferenceKey = std::tuple<std::string, std::string, int, int64_t>;

absl::StatusOr<std::multimap<ReferenceKey, Reference>> ReadReferences(const std::string& path) {
  std::multimap<ReferenceKey, Reference> out;
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#' || line.starts_with("profile,")) continue;
    const std::vector<std::string> f = absl::StrSplit(line, absl::MaxSplits(',', 5));
    int devices = 0;
    int64_t bytes = 0;
    double busbw = 0.0;
    if (f.size() != 6 || !absl::SimpleAtoi(f[2], &devices) || !absl::SimpleAtoi(f[3], &bytes) ||
        !absl::SimpleAtod(f[4], &busbw)) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ":", number, ": need profile,collective,devices,bytes,busbw_gbps,source"));
    }
    out.emplace(ReferenceKey{f[0], f[1], devices, bytes}, Reference{busbw, f[5]});
  }
  return out;
}

std::string SizeName(int64_t bytes) {
  if (bytes >= (int64_t{1} << 30)) return absl::StrCat(bytes >> 30, " GiB");
  if (bytes >= (int64_t{1} << 20)) return absl::StrCat(bytes >> 20, " MiB");
  return absl::StrCat(bytes >> 10, " KiB");
}

absl::Status Run(const OptionValues& args) {
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t devices, args.GetInt("devices"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t per_host, args.GetInt("devices-per-host"));
  if (devices < 2 || per_host < 1) return UsageError("--devices >= 2, --devices-per-host >= 1");
  std::vector<int64_t> sizes;
  for (absl::string_view part : absl::StrSplit(args.Get("sizes"), ',', absl::SkipEmpty())) {
    int64_t bytes = 0;
    if (!absl::SimpleAtoi(part, &bytes) || bytes <= 0) {
      return UsageError(absl::StrCat("--sizes: '", part, "' is not a positive byte count"));
    }
    sizes.push_back(bytes);
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const auto references, ReadReferences(args.Get("references")));
  SHARDPLAN_ASSIGN_OR_RETURN(
      const Topology topology,
      MakeTopology(devices, 80.0, {}, per_host, kDefaultIntraHostBandwidthGiBps,
                   kDefaultInterHostBandwidthGiBps));
  std::vector<int32_t> all(devices);
  std::iota(all.begin(), all.end(), 0);
  const int n = static_cast<int>(devices);
  const AnalyticParams torchrec;

  std::string report = absl::StrCat(
      "# collective_bandwidth: simulated collectives against published nccl-tests figures\n\n",
      devices, " devices in hosts of ", per_host,
      "; bus bandwidth in GB/s (nccl-tests' convention); TorchRec: analytic@1's CollectiveMs on "
      "the task's default bandwidths (intra ",
      kDefaultIntraHostBandwidthGiBps, " GiB/s, inter ", kDefaultInterHostBandwidthGiBps,
      " GiB/s per device); residual: sim / published - 1.\n\n",
      "| profile | collective | size | sim us | sim busbw | TorchRec busbw | published busbw | "
      "residual | source |\n|---|---|---:|---:|---:|---:|---:|---:|---|\n");
  json rows = json::array();
  for (absl::string_view name : absl::StrSplit(args.Get("profiles"), ',', absl::SkipEmpty())) {
    SHARDPLAN_ASSIGN_OR_RETURN(const HardwareProfile profile,
                               FindHardwareProfile(std::string(name)));
    for (const Collective collective : kCollectives) {
      std::vector<double> residuals;
      for (const int64_t bytes : sizes) {
        CollectiveDemand demand;
        demand.collective = collective;
        demand.pass = Pass::kForward;
        demand.sharding = ShardingType::kRowWise;  // no data-parallel update booked with it
        demand.devices = all;
        demand.peers = all;
        demand.crosses_hosts = n > per_host;
        demand.bytes = static_cast<double>(bytes);
        const double sim_ms = SimulateCollectives(profile, topology, {&demand, 1}).forward_ms[0];
        const double torchrec_ms = CollectiveMs(torchrec, demand, topology);
        const auto busbw = [&](double ms) {
          return static_cast<double>(bytes) / (ms * 1e6) * BusFactor(collective, n);
        };
        const double sim_bus = busbw(sim_ms);
        const double torchrec_bus = busbw(torchrec_ms);
        const auto [begin, end] =
            references.equal_range({profile.name, NcclTestName(collective), n, bytes});
        json row = {{"profile", profile.name},
                    {"collective", NcclTestName(collective)},
                    {"bytes", bytes},
                    {"sim_us", sim_ms * 1e3},
                    {"sim_busbw", sim_bus},
                    {"torchrec_busbw", torchrec_bus},
                    {"published", json::array()}};
        const std::string prefix = absl::StrFormat(
            "| %s | %s | %s | %.1f | %.1f | %.1f | ", profile.name, NcclTestName(collective),
            SizeName(bytes), sim_ms * 1e3, sim_bus, torchrec_bus);
        if (begin == end) absl::StrAppend(&report, prefix, "- | - | |\n");
        for (auto it = begin; it != end; ++it) {
          const double residual = sim_bus / it->second.busbw_gbps - 1.0;
          residuals.push_back(residual);
          absl::StrAppend(&report, prefix,
                          absl::StrFormat("%.1f | %+.0f%% | %s |\n", it->second.busbw_gbps,
                                          100 * residual, it->second.source));
          row["published"].push_back({{"busbw", it->second.busbw_gbps},
                                      {"residual", residual},
                                      {"source", it->second.source}});
        }
        rows.push_back(std::move(row));
      }
      if (!residuals.empty()) {
        double worst = 0.0;
        for (double r : residuals) worst = std::abs(r) > std::abs(worst) ? r : worst;
        std::cerr << profile.name << " " << NcclTestName(collective) << ": " << residuals.size()
                  << " published sizes, worst residual " << absl::StrFormat("%+.0f%%", 100 * worst)
                  << "\n";
      }
    }
  }
  const std::string out = args.Get("out");
  SHARDPLAN_RETURN_IF_ERROR(offline::WriteTextFile(
      out + ".json",
      json{{"devices", devices}, {"devices_per_host", per_host}, {"rows", rows}}.dump(2) + "\n"));
  return WriteReport(out, report);
}

Command CollectiveBandwidthCommand() {
  return Command{
      .group = "bench",
      .name = "collective_bandwidth",
      .summary = "simulated collective bus bandwidth beside published nccl-tests figures",
      .description =
          "Prints the simulator's and TorchRec's bus bandwidth of all-reduce, all-gather,\n"
          "reduce-scatter and all-to-all by message size for each profile, beside published\n"
          "figures, with the residual error. Results go to OUT.md and OUT.json.",
      .flags =
          {
              {"profiles", "LIST", "hardware profiles", "a100-sxm4,h100-sxm,rtx2080ti"},
              {"devices", "N", "devices in the collective", "8"},
              {"devices-per-host", "N", "hosts of this many devices", "8"},
              {"sizes", "LIST", "message sizes, bytes",
               "1048576,4194304,16777216,67108864,268435456,1073741824,4294967296"},
              {"references", "FILE", "published figures (CSV)", "bench/collective_references.csv"},
              {"out", "PREFIX", "where the results go (.md, .json)",
               "bench/results/collective_bandwidth"},
          },
      .run = Run,
  };
}

}  // namespace
}  // namespace shardplan::bench

int main(int argc, char** argv) {
  return shardplan::bench::CommandMain(shardplan::bench::CollectiveBandwidthCommand(), argc, argv);
}
