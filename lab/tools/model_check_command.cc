// shardplan model check: has a shipped model drifted? Its error on fresh cost data against the
// test error in its manifest (docs/training.md, "Has a model drifted?").

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/exit_codes.h"
#include "base/status_macros.h"
#include "costmodels/artifacts/model_bundle.h"
#include "lab/tools/commands.h"
#include "lab/tools/tool_support.h"
#include "lab/tools/training_pools.h"
#include "lab/training/datasets.h"
#include "lab/training/model_check.h"

namespace shardplan::offline {
namespace {

// Fresh cost data for `bundle` measured now on `args`' backend: compute, and comm for every
// device count the bundle has comm models for, into `dir`; returns the files.
struct FreshFiles {
  std::string compute;
  std::vector<std::string> comm;
};

absl::StatusOr<FreshFiles> CollectFresh(const OptionValues& args, const LoadedBundle& bundle,
                                        const std::string& dir) {
  const std::string backend_name = args.Get("backend");
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t samples, args.GetInt("samples"));
  SHARDPLAN_ASSIGN_OR_RETURN(const uint64_t seed, args.GetUint("seed"));
  SHARDPLAN_ASSIGN_OR_RETURN(const double noise_sigma, args.GetDouble("noise-sigma"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t batch_size, BatchSizeOption(args, backend_name));
  if (samples < 10) return UsageError("--samples must be at least 10");
  SHARDPLAN_ASSIGN_OR_RETURN(const LoadedPool pool, LoadPoolWithHash(args.Get("pool")));
  BackendChoice choice;
  choice.backend = backend_name;
  choice.profile = SimProfileOf(bundle.info.hardware_profile);  // the bundle's hardware
  choice.noise_sigma = noise_sigma;
  choice.seed = seed;
  choice.batch_size = batch_size;
  const auto collect = [&](const std::string& kind, int32_t devices,
                           const std::string& path) -> absl::Status {
    choice.num_devices = devices;
    SHARDPLAN_ASSIGN_OR_RETURN(std::unique_ptr<HardwareBackend> backend, MakeBackend(choice));
    SHARDPLAN_ASSIGN_OR_RETURN(const CollectResult collected,
                               CollectFile(*backend, choice, pool, kind, samples, path));
    if (collected.interrupted) {
      return InterruptedError(absl::StrCat("interrupted collecting ", path));
    }
    return absl::OkStatus();
  };
  FreshFiles files;
  files.compute = absl::StrCat(dir, "/compute.jsonl");
  SHARDPLAN_RETURN_IF_ERROR(collect("compute", 4, files.compute));
  for (const auto& [n, models] : bundle.model->comm()) {
    files.comm.push_back(absl::StrCat(dir, "/comm_", n, ".jsonl"));
    SHARDPLAN_RETURN_IF_ERROR(collect("comm", n, files.comm.back()));
  }
  // Device-set comm models: every layout their data held.
  if (const auto& any = bundle.model->device_set_comm(); any.has_value()) {
    for (const DeviceLayout& layout : any->trained_layouts) {
      choice.devices_per_host = layout.devices_per_host;
      files.comm.push_back(
          absl::StrCat(dir, "/comm_", layout.devices, "x", layout.devices_per_host, ".jsonl"));
      SHARDPLAN_RETURN_IF_ERROR(collect("comm", layout.devices, files.comm.back()));
    }
  }
  return files;
}

absl::Status RunCheck(const OptionValues& args) {
  const std::vector<std::string> id = absl::StrSplit(args.Get("model"), '@');
  if (id.size() != 2 || id[0].empty() || id[1].empty()) {
    return UsageError(absl::StrCat("--model '", args.Get("model"),
                                   "' is not NAME@VERSION (a check is of one exact version)"));
  }
  std::vector<std::string> comm_files;
  for (absl::string_view file : absl::StrSplit(args.Get("comm-data"), ',', absl::SkipEmpty())) {
    comm_files.emplace_back(file);
  }
  std::string compute_file = args.Get("compute-data");
  std::vector<std::string> collective_files;
  for (absl::string_view file :
       absl::StrSplit(args.Get("collective-data"), ',', absl::SkipEmpty())) {
    collective_files.emplace_back(file);
  }
  const bool measure = !args.Get("backend").empty();
  if (measure == (!compute_file.empty() || !comm_files.empty() || !collective_files.empty())) {
    return UsageError(
        "give the fresh data (--compute-data, --comm-data and/or --collective-data) or a backend "
        "to measure it on (--backend sim), not both");
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const double max_ratio, args.GetDouble("max-mse-ratio"));
  if (!(max_ratio > 0.0)) return UsageError("--max-mse-ratio must be > 0");

  SHARDPLAN_ASSIGN_OR_RETURN(
      const LoadedBundle bundle,
      ReadModelBundle(ModelBundleDirectory(args.Get("models-root"), id[0], id[1])));
  if (measure) {
    std::string dir = args.Get("data-dir");
    if (dir.empty()) {
      return UsageError("--data-dir: where to write the fresh data (resumable) with --backend");
    }
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error) return absl::UnavailableError(absl::StrCat(dir, ": ", error.message()));
    SHARDPLAN_ASSIGN_OR_RETURN(const FreshFiles fresh, CollectFresh(args, bundle, dir));
    compute_file = fresh.compute;
    comm_files = fresh.comm;
  }
  training::ComputeDataset compute;
  std::vector<std::unique_ptr<training::CommDataset>> comm;
  training::ModelCheckData data;
  if (!compute_file.empty()) {
    SHARDPLAN_ASSIGN_OR_RETURN(compute,
                               training::LoadComputeDataset(compute_file, PoolFromFile(),
                                                            bundle.model->compute().feature_set()));
    data.compute = &compute;
  }
  // The data must be of the bundle's profile (CheckModel refuses others), so its hosts are too.
  data.default_devices_per_host =
      DefaultDevicesPerHost(bundle.info.backend, bundle.info.hardware_profile);
  for (const std::string& file : comm_files) {
    SHARDPLAN_ASSIGN_OR_RETURN(training::CommDataset loaded, training::LoadCommDataset(file));
    comm.push_back(std::make_unique<training::CommDataset>(std::move(loaded)));
    data.comm.push_back(comm.back().get());
  }
  training::CollectiveDataset collectives;
  if (!collective_files.empty()) {
    SHARDPLAN_ASSIGN_OR_RETURN(collectives, training::LoadCollectiveDataset(collective_files));
    data.collectives = &collectives;
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const training::ModelCheckReport report,
                             training::CheckModel(bundle, data, max_ratio));
  std::cout << training::FormatModelCheck(report);
  if (!report.drifted()) return absl::OkStatus();
  std::string which;
  for (const training::SubModelCheck& check : report.sub_models) {
    if (!check.drifted) continue;
    absl::StrAppendFormat(&which, "%s%s (MSE %.3gx the test MSE)", which.empty() ? "" : ", ",
                          check.name, check.mse_ratio);
  }
  return DriftedError(absl::StrCat(report.model, " has drifted: ", which));
}

}  // namespace

Command ModelCheckCommand() {
  return Command{
      .group = "model",
      .name = "check",
      .summary = "Measure a model bundle's error on fresh cost data: has it drifted?",
      .description =
          "Predicts every sample of fresh cost data (from `shardplan data collect` with a seed\n"
          "the training never used, or measured on today's hardware) with the bundle's compute\n"
          "and comm models, and compares the MSE with the test MSE its manifest records. With\n"
          "--backend the fresh data is measured now (compute, and comm for each device count\n"
          "the bundle has, or each host layout its device-set comm data held) into --data-dir.\n"
          "A sub-model whose MSE exceeds --max-mse-ratio x its test MSE has drifted: the table\n"
          "is printed and the command exits 13 (0 when every sub-model holds). The data must be\n"
          "of the bundle's hardware profile. See docs/training.md.\n",
      .flags =
          {
              {"model", "NAME@VERSION", "the bundle to check", "", true},
              {"models-root", "DIR", "where bundles live", "models"},
              {"compute-data", "FILE", "fresh compute cost data (.jsonl or .jsonl.gz)", ""},
              {"comm-data", "FILE[,FILE]", "fresh comm cost data, one file per device count", ""},
              {"collective-data", "FILE[,FILE]",
               "fresh collective cost data: the collective model's error per collective", ""},
              {"max-mse-ratio", "X", "drifted above X times the manifest's test MSE", "2"},
              {"backend", "sim|cpu", "measure fresh data now instead (the bundle's profile)", ""},
              {"data-dir", "DIR", "with --backend: where the fresh data goes (resumable)", ""},
              {"samples", "N", "with --backend: samples per file", "1000"},
              {"seed", "S", "with --backend: a seed the training data did not use", "1"},
              {"noise-sigma", "X", "with --backend sim: the shipped data's noise", "0.02"},
              {"batch-size", "B", "with --backend: global batch (default: 65536 sim, 2048 cpu)",
               ""},
              {"pool", "FILE", "with --backend: table pool", kDefaultPool},
          },
      .run = RunCheck,
  };
}

}  // namespace shardplan::offline
