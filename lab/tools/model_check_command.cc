// shardplan model check: has a shipped model drifted? Its error on fresh cost data against the
// test error in its manifest (docs/training.md, "Has a model drifted?").

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
#include "lab/tools/training_pools.h"
#include "lab/training/datasets.h"
#include "lab/training/model_check.h"

namespace shardplan::offline {
namespace {

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
  if (args.Get("compute-data").empty() && comm_files.empty()) {
    return UsageError("nothing to check against: give --compute-data and/or --comm-data");
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const double max_ratio, args.GetDouble("max-mse-ratio"));
  if (!(max_ratio > 0.0)) return UsageError("--max-mse-ratio must be > 0");

  SHARDPLAN_ASSIGN_OR_RETURN(
      const LoadedBundle bundle,
      ReadModelBundle(ModelBundleDirectory(args.Get("models-root"), id[0], id[1])));
  training::ComputeDataset compute;
  std::vector<std::unique_ptr<training::CommDataset>> comm;
  training::ModelCheckData data;
  if (!args.Get("compute-data").empty()) {
    SHARDPLAN_ASSIGN_OR_RETURN(
        compute, training::LoadComputeDataset(args.Get("compute-data"), PoolFromFile()));
    data.compute = &compute;
  }
  for (const std::string& file : comm_files) {
    SHARDPLAN_ASSIGN_OR_RETURN(training::CommDataset loaded, training::LoadCommDataset(file));
    comm.push_back(std::make_unique<training::CommDataset>(std::move(loaded)));
    data.comm.push_back(comm.back().get());
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
          "and comm models, and compares the MSE with the test MSE its manifest records. A\n"
          "sub-model whose MSE exceeds --max-mse-ratio x its test MSE has drifted: the table is\n"
          "printed and the command exits 13 (0 when every sub-model holds). The data must be of\n"
          "the bundle's hardware profile. See docs/training.md.\n",
      .flags =
          {
              {"model", "NAME@VERSION", "the bundle to check", "", true},
              {"models-root", "DIR", "where bundles live", "models"},
              {"compute-data", "FILE", "fresh compute cost data (.jsonl or .jsonl.gz)", ""},
              {"comm-data", "FILE[,FILE]", "fresh comm cost data, one file per device count", ""},
              {"max-mse-ratio", "X", "drifted above X times the manifest's test MSE", "2"},
          },
      .run = RunCheck,
  };
}

}  // namespace shardplan::offline
