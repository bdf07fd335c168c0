// shardplan model train: trains the neural cost models on cost data and writes a model bundle
// (docs/training.md).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/exit_codes.h"
#include "base/sha256.h"
#include "base/status_macros.h"
#include "costmodels/artifacts/model_bundle.h"
#include "costmodels/neural/access_shapes.h"
#include "lab/tools/commands.h"
#include "lab/tools/tool_support.h"
#include "lab/tools/training_pools.h"
#include "lab/training/datasets.h"
#include "lab/training/train_models.h"

namespace shardplan::offline {
namespace {

using training::CommDataset;
using training::ComputeDataset;
using training::DeviceSetCommDataset;
using training::SubModelReport;
using training::TrainOptions;

struct TrainFlags {
  std::vector<std::string> compute_data;
  std::string compute_from;  // a bundle directory whose compute model is reused
  std::string comm_from;     // a bundle directory whose comm models are reused
  std::vector<std::string> collective_data;
  training::ComputeFeatureSet compute_features;
  ShardFeatureSet shard_features = ShardFeatureSet::kReference;
  training::ComputeLoss compute_loss;
  std::vector<std::string> comm_data;
  std::vector<std::string> comm_any_data;
  bool zero_comm = false;
  std::string models_root;
  std::string predictions_dir;
  TrainOptions options;
};

absl::StatusOr<TrainFlags> ParseTrainFlags(const OptionValues& args) {
  TrainFlags flags;
  for (absl::string_view file : absl::StrSplit(args.Get("compute-data"), ',', absl::SkipEmpty())) {
    flags.compute_data.emplace_back(file);
  }
  for (absl::string_view file :
       absl::StrSplit(args.Get("collective-data"), ',', absl::SkipEmpty())) {
    flags.collective_data.emplace_back(file);
  }
  flags.comm_from = args.Get("comm-from");
  for (absl::string_view file : absl::StrSplit(args.Get("comm-data"), ',', absl::SkipEmpty())) {
    flags.comm_data.emplace_back(file);
  }
  for (absl::string_view file : absl::StrSplit(args.Get("comm-any-data"), ',', absl::SkipEmpty())) {
    flags.comm_any_data.emplace_back(file);
  }
  flags.compute_from = args.Get("compute-from");
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string feature_set,
                             args.GetOneOf("compute-features", {"raw", "log", "served"}));
  if (feature_set != "raw" && flags.compute_data.empty()) {
    return UsageError(
        "--compute-features sets the feature set of a compute model trained here: it needs "
        "--compute-data (a model reused with --compute-from keeps its own)");
  }
  if (feature_set == "log") flags.compute_features = training::ComputeFeatureSet::Log();
  if (feature_set == "served") flags.shard_features = ShardFeatureSet::kServed;
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string calls,
                             args.GetOneOf("compute-calls", {"device", "kernel_call"}));
  if (calls == "kernel_call") {
    if (feature_set != "served") {
      return UsageError(
          "--compute-calls kernel_call needs --compute-features served (only what a shard "
          "serves tells a row block or a replica from its table)");
    }
    flags.compute_features.calls = ComputeCalls::kPerKernelCall;
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string loss,
                             args.GetOneOf("compute-loss", {"mse", "relative"}));
  if (loss != "mse" && flags.compute_data.empty()) {
    return UsageError(
        "--compute-loss is the loss of a compute model trained here: it needs "
        "--compute-data");
  }
  if (loss == "relative") flags.compute_loss = training::ComputeLoss::Relative();
  flags.zero_comm = args.Has("zero-comm");
  flags.models_root = args.Get("models-root");
  flags.predictions_dir = args.Get("predictions-dir");
  if (!flags.compute_from.empty() && !flags.compute_data.empty()) {
    return UsageError(
        "--compute-from (reuse a bundle's compute model) and --compute-data "
        "exclude each other");
  }
  if (!flags.comm_from.empty() && (!flags.comm_data.empty() || !flags.comm_any_data.empty())) {
    return UsageError(
        "--comm-from (reuse a bundle's comm models) excludes --comm-data and --comm-any-data");
  }
  const bool has_comm =
      !flags.comm_data.empty() || !flags.comm_any_data.empty() || !flags.comm_from.empty();
  const bool has_compute = !flags.compute_data.empty() || !flags.compute_from.empty();
  if (!has_compute && !has_comm) {
    return UsageError(
        "nothing to train: give --compute-data (or --compute-from) and/or --comm-data or "
        "--comm-any-data");
  }
  if (flags.zero_comm && (has_comm || !flags.collective_data.empty())) {
    return UsageError(
        "--zero-comm (no comm models) excludes --comm-data, --comm-any-data, --comm-from and "
        "--collective-data");
  }
  if (has_compute && !flags.zero_comm && !has_comm) {
    return UsageError(
        "a bundle needs comm models: give --comm-data or --comm-any-data, or --zero-comm for "
        "data without an interconnect (cpu)");
  }
  if (has_compute && (args.Get("name").empty() || args.Get("version").empty())) {
    return UsageError("--name and --version name the bundle; both are required");
  }
  SHARDPLAN_ASSIGN_OR_RETURN(flags.options.seed, args.GetUint("seed"));
  SHARDPLAN_ASSIGN_OR_RETURN(flags.options.max_epochs, args.GetInt("epochs"));
  SHARDPLAN_ASSIGN_OR_RETURN(flags.options.patience, args.GetInt("patience"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t batch_size, args.GetInt("batch-size"));
  if (flags.options.max_epochs < 1) return UsageError("--epochs must be at least 1");
  if (flags.options.patience < 1) return UsageError("--patience must be at least 1");
  if (batch_size < 1 || batch_size > 1 << 20) {
    return UsageError("--batch-size must be in [1, 1048576]");
  }
  flags.options.batch_size = static_cast<int>(batch_size);
  int64_t threads = std::max(1u, std::thread::hardware_concurrency());
  if (args.Has("threads")) {
    SHARDPLAN_ASSIGN_OR_RETURN(threads, args.GetInt("threads"));
    if (threads < 1 || threads > 1024) return UsageError("--threads must be in [1, 1024]");
  }
  flags.options.threads = static_cast<int>(threads);
  flags.options.progress = &std::cerr;
  return flags;
}

// The first kNumTableFeatures of every row: what the manifest's per-table range and access
// shapes describe (the served set's 21st, batch_share, is not a table's feature).
std::vector<float> TableFeatureRows(const ComputeDataset& data) {
  if (data.width == kNumTableFeatures) return data.features;
  std::vector<float> table_features;
  for (size_t at = 0; at + data.width <= data.features.size(); at += data.width) {
    table_features.insert(table_features.end(), data.features.begin() + at,
                          data.features.begin() + at + kNumTableFeatures);
  }
  return table_features;
}

// The file's SHA-256, for the manifest's provenance.
absl::StatusOr<std::string> FileSha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return Sha256Hex(bytes.str());
}

// "sample,device,measured,predicted" rows of the test split, for scripts/plot_model_scatter.py.
std::string PredictionsCsv(const SubModelReport& report, int outputs) {
  std::string csv = "sample,device,measured,predicted\n";
  for (size_t k = 0; k < report.test_samples.size(); ++k) {
    for (int d = 0; d < outputs; ++d) {
      const size_t at = k * outputs + d;
      absl::StrAppendFormat(&csv, "%d,%d,%.9g,%.9g\n", report.test_samples[k], d,
                            report.test_measured[at], report.result.test_predictions[at]);
    }
  }
  return csv;
}

// The paper's Table 2, in training order.
std::string SummaryTable(const std::vector<std::string>& names,
                         const std::map<std::string, SubModelReport>& reports) {
  std::string text = absl::StrFormat("%-20s %9s %7s %12s %12s %12s %9s\n", "sub-model", "samples",
                                     "epochs", "train MSE", "valid MSE", "test MSE", "s/epoch");
  for (const std::string& name : names) {
    const SubModelReport& report = reports.at(name);
    const training::TrainResult& r = report.result;
    absl::StrAppendFormat(&text, "%-20s %9d %7d %12.6g %12.6g %12.6g %9.2f\n", name, report.samples,
                          r.epochs, r.train_mse, r.valid_mse, r.test_mse, r.seconds_per_epoch);
  }
  return text;
}

// One provenance for the bundle: the flags', else the datasets' (which must agree).
absl::Status ResolveProvenance(const OptionValues& args,
                               const std::vector<const std::string*>& backends,
                               const std::vector<const std::string*>& profiles, BundleInfo& info) {
  const auto pick = [](const std::string& flag, const std::vector<const std::string*>& values,
                       const char* what, std::string& out) -> absl::Status {
    if (!flag.empty()) {
      out = flag;
      return absl::OkStatus();
    }
    for (const std::string* value : values) {
      if (*value != *values.front()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "the datasets come from different ", what, "s ('", *values.front(), "' and '", *value,
            "'); train them apart, or set --", what, " if that is intended"));
      }
    }
    out = *values.front();
    return absl::OkStatus();
  };
  SHARDPLAN_RETURN_IF_ERROR(pick(args.Get("backend"), backends, "backend", info.backend));
  return pick(args.Get("hardware-profile"), profiles, "hardware-profile", info.hardware_profile);
}

absl::Status RunTrain(const OptionValues& args) {
  SHARDPLAN_ASSIGN_OR_RETURN(TrainFlags flags, ParseTrainFlags(args));
  BundleInfo info;
  info.name = args.Get("name");
  info.version = args.Get("version");
  info.description = args.Get("description");
  info.seed = flags.options.seed;
  const bool write_bundle = !flags.compute_data.empty() || !flags.compute_from.empty();
  const std::string compute_files = absl::StrJoin(flags.compute_data, ",");
  if (write_bundle) {
    // Versions are immutable: refuse before minutes of training, not after.
    const std::string directory = ModelBundleDirectory(flags.models_root, info.name, info.version);
    if (std::filesystem::exists(directory)) {
      return absl::AlreadyExistsError(absl::StrCat(
          directory, " exists; bundle versions are immutable, choose another --version"));
    }
  }

  // Load everything first: a bad record fails in seconds.
  std::optional<ComputeDataset> compute;
  std::vector<CommDataset> comms;
  std::vector<const std::string*> backends;
  std::vector<const std::string*> profiles;
  std::map<std::string, std::string> sha256;  // per data file
  std::optional<LoadedBundle> base;
  if (!flags.compute_data.empty()) {
    std::string hashes;
    for (const std::string& file : flags.compute_data) {
      SHARDPLAN_ASSIGN_OR_RETURN(
          ComputeDataset loaded,
          training::LoadComputeDataset(file, PoolFromFile(), flags.shard_features));
      if (compute.has_value()) {
        SHARDPLAN_RETURN_IF_ERROR(training::AppendComputeDataset(*compute, loaded));
      } else {
        compute.emplace(std::move(loaded));
      }
      SHARDPLAN_ASSIGN_OR_RETURN(const std::string hash, FileSha256(file));
      absl::StrAppend(&hashes, hash, "\n");
    }
    backends.push_back(&compute->backend);
    profiles.push_back(&compute->hardware_profile);
    // One file: its SHA-256; several: the SHA-256 of their SHA-256s (as --comm-any-data).
    sha256[compute_files] =
        flags.compute_data.size() == 1 ? hashes.substr(0, 64) : Sha256Hex(hashes);
  } else if (!flags.compute_from.empty()) {
    SHARDPLAN_ASSIGN_OR_RETURN(base, ReadModelBundle(flags.compute_from));
    backends.push_back(&base->info.backend);
    profiles.push_back(&base->info.hardware_profile);
  }
  for (const std::string& file : flags.comm_data) {
    SHARDPLAN_ASSIGN_OR_RETURN(CommDataset data, training::LoadCommDataset(file));
    for (const CommDataset& other : comms) {
      if (other.num_devices == data.num_devices) {
        return UsageError(absl::StrCat("--comm-data: ", other.path, " and ", file, " both hold ",
                                       data.num_devices, "-device data"));
      }
    }
    SHARDPLAN_ASSIGN_OR_RETURN(sha256[file], FileSha256(file));
    comms.push_back(std::move(data));
  }
  for (const CommDataset& data : comms) {
    backends.push_back(&data.backend);
    profiles.push_back(&data.hardware_profile);
  }
  std::optional<DeviceSetCommDataset> comm_any;
  std::string comm_any_files;
  if (!flags.comm_any_data.empty()) {
    SHARDPLAN_ASSIGN_OR_RETURN(
        comm_any, training::LoadDeviceSetCommDataset(flags.comm_any_data, DefaultDevicesPerHost));
    backends.push_back(&comm_any->backend);
    profiles.push_back(&comm_any->hardware_profile);
    // One provenance for many files: their names, and the SHA-256 of their SHA-256s.
    std::string hashes;
    for (const std::string& file : flags.comm_any_data) {
      SHARDPLAN_ASSIGN_OR_RETURN(const std::string hash, FileSha256(file));
      absl::StrAppend(&hashes, hash, "\n");
    }
    comm_any_files = absl::StrJoin(flags.comm_any_data, ",");
    sha256[comm_any_files] = Sha256Hex(hashes);
  }
  std::optional<LoadedBundle> comm_base;
  if (!flags.comm_from.empty()) {
    SHARDPLAN_ASSIGN_OR_RETURN(comm_base, ReadModelBundle(flags.comm_from));
    backends.push_back(&comm_base->info.backend);
    profiles.push_back(&comm_base->info.hardware_profile);
  }
  std::optional<training::CollectiveDataset> collective;
  std::string collective_files;
  if (!flags.collective_data.empty()) {
    SHARDPLAN_ASSIGN_OR_RETURN(collective, training::LoadCollectiveDataset(flags.collective_data));
    backends.push_back(&collective->backend);
    profiles.push_back(&collective->hardware_profile);
    std::string hashes;
    for (const std::string& file : flags.collective_data) {
      SHARDPLAN_ASSIGN_OR_RETURN(const std::string hash, FileSha256(file));
      absl::StrAppend(&hashes, hash, "\n");
    }
    collective_files = absl::StrJoin(flags.collective_data, ",");
    sha256[collective_files] = Sha256Hex(hashes);
  }
  SHARDPLAN_RETURN_IF_ERROR(ResolveProvenance(args, backends, profiles, info));

  std::map<std::string, SubModelReport> reports;
  std::map<std::string, int> outputs;
  std::vector<std::string> order;
  const auto record =
      [&](const std::string& name, const std::string& file, int num_outputs, SubModelReport report,
          std::map<std::string, double> test_mse_by_layout = {}, std::string loss = "") {
        const training::TrainResult& r = report.result;
        info.training[name] = SubModelTraining{
            file,           sha256[file], report.samples, r.epochs,
            r.train_mse,    r.valid_mse,  r.test_mse,     std::move(test_mse_by_layout),
            std::move(loss)};
        outputs[name] = num_outputs;
        order.push_back(name);
        reports[name] = std::move(report);
      };
  std::optional<NeuralComputeModel> compute_model;
  std::optional<TableFeatureRange> training_range;
  std::optional<AccessShapeSummary> access_shapes;
  if (base.has_value()) {
    compute_model.emplace(base->model->compute());
    training_range = base->model->training_range();
    access_shapes = base->model->access_shapes();
    if (auto it = base->info.training.find("compute"); it != base->info.training.end()) {
      info.training["compute"] = it->second;
    }
    std::cout << "compute model: " << base->info.name << "@" << base->info.version
              << " (reused, not trained)\n";
  }
  if (compute.has_value()) {
    TrainOptions options = flags.options;
    options.label = "compute";
    SHARDPLAN_ASSIGN_OR_RETURN(
        training::TrainedCompute trained,
        training::TrainComputeModel(*compute, options, flags.compute_features, flags.compute_loss));
    compute_model.emplace(std::move(trained.model));
    record("compute", compute_files, 1, std::move(trained.report), {},
           flags.compute_loss.Describe());
  }
  std::map<int, NeuralCommModels> comm_models;
  std::optional<DeviceSetCommModels> comm_any_models;
  if (comm_base.has_value()) {
    comm_models = comm_base->model->comm();
    comm_any_models = comm_base->model->device_set_comm();
    for (const auto& [sub_model, training] : comm_base->info.training) {
      if (sub_model.rfind("comm_", 0) == 0) info.training[sub_model] = training;
    }
    std::cout << "comm models: " << comm_base->info.name << "@" << comm_base->info.version
              << " (reused, not trained)\n";
  }
  std::optional<NeuralCollectiveModel> collective_model;
  if (collective.has_value()) {
    TrainOptions options = flags.options;
    options.label = "collectives";
    SHARDPLAN_ASSIGN_OR_RETURN(training::TrainedCollectives trained,
                               training::TrainCollectiveModel(*collective, options));
    collective_model.emplace(std::move(trained.model));
    record("collectives", collective_files, 1, std::move(trained.report), {}, "ln(ms)");
  }
  for (const CommDataset& data : comms) {
    std::optional<NeuralCommModel> direction_models[2];
    const NeuralCommModel::Direction directions[2] = {NeuralCommModel::Direction::kForward,
                                                      NeuralCommModel::Direction::kBackward};
    for (int k = 0; k < 2; ++k) {
      const std::string name =
          absl::StrCat("comm_", data.num_devices, "_", k == 0 ? "forward" : "backward");
      TrainOptions options = flags.options;
      options.label = name;
      SHARDPLAN_ASSIGN_OR_RETURN(training::TrainedComm trained,
                                 training::TrainCommModel(data, directions[k], options));
      direction_models[k].emplace(std::move(trained.model));
      record(name, data.path, data.num_devices, std::move(trained.report));
    }
    comm_models.emplace(data.num_devices, NeuralCommModels{*std::move(direction_models[0]),
                                                           *std::move(direction_models[1])});
  }
  if (comm_any.has_value()) {
    std::optional<DeviceSetCommModel> models[2];
    const CommDirection directions[2] = {CommDirection::kForward, CommDirection::kBackward};
    for (int k = 0; k < 2; ++k) {
      const std::string name = absl::StrCat("comm_any_", k == 0 ? "forward" : "backward");
      TrainOptions options = flags.options;
      options.label = name;
      SHARDPLAN_ASSIGN_OR_RETURN(
          training::TrainedDeviceSetComm trained,
          training::TrainDeviceSetCommModel(*comm_any, directions[k], options));
      models[k].emplace(std::move(trained.model));
      record(name, comm_any_files, 1, std::move(trained.report),
             std::move(trained.test_mse_by_layout));
    }
    comm_any_models.emplace(
        DeviceSetCommModels{*std::move(models[0]), *std::move(models[1]), comm_any->layouts});
  }

  std::cout << SummaryTable(order, reports);
  if (!flags.predictions_dir.empty()) {
    for (const auto& [name, report] : reports) {
      const std::string path = absl::StrCat(flags.predictions_dir, "/", name, ".csv");
      SHARDPLAN_RETURN_IF_ERROR(WriteTextFile(path, PredictionsCsv(report, outputs[name])));
    }
    std::cout << "test-split predictions: " << flags.predictions_dir << "/<sub-model>.csv\n";
  }
  if (!write_bundle) {
    std::cout << "no bundle written: a bundle needs a compute model (--compute-data or "
                 "--compute-from)\n";
    return absl::OkStatus();
  }
  const std::optional<std::vector<float>> table_rows =
      compute.has_value() ? std::optional(TableFeatureRows(*compute)) : std::nullopt;
  SHARDPLAN_ASSIGN_OR_RETURN(
      NeuralCostModel model,
      NeuralCostModel::Create(
          info.name, info.version, *std::move(compute_model), std::move(comm_models),
          flags.zero_comm ? NeuralCostModel::CommCosts::kZero : NeuralCostModel::CommCosts::kNeural,
          // Every table the data holds, not only the training split's: the
          // range of what the model was built from, for the server's
          // out-of-range warnings.
          compute.has_value() ? std::optional(RangeOfFeatures(*table_rows)) : training_range,
          std::move(comm_any_models), std::move(collective_model)));
  // The shapes of the same histograms, for the warnings on tables whose access shape the data
  // never held (docs/cost-models.md, "Outside the training data"); a reused compute model keeps
  // its bundle's.
  if (compute.has_value()) {
    access_shapes =
        SummarizeAccessShapes(*table_rows, kDefaultAccessShapeCentres, kDefaultAccessShapeThreshold);
  }
  SHARDPLAN_ASSIGN_OR_RETURN(model,
                             NeuralCostModel::WithAccessShapes(std::move(model), access_shapes));
  SHARDPLAN_RETURN_IF_ERROR(WriteModelBundle(flags.models_root, info, model));
  std::cout << "bundle: " << ModelBundleDirectory(flags.models_root, info.name, info.version)
            << " (" << info.backend << ", " << info.hardware_profile << ", seed " << info.seed
            << ")\n";
  return absl::OkStatus();
}

}  // namespace

Command ModelTrainCommand() {
  return Command{
      .group = "model",
      .name = "train",
      .summary = "Train the neural cost models on cost data and write a model bundle",
      .description =
          "The reference's procedure (docs/training.md): a seeded 80/10/10 split per dataset,\n"
          "z-scores from the training split, Adam (lr 1e-3) on the MSE in batches of 512,\n"
          "early stopping on the validation MSE, the best-validation weights kept. Each comm\n"
          "file trains a forward and a backward model for its device count. The same data,\n"
          "seed and flags give the same weights bit for bit, for any --threads; the bundle is\n"
          "written atomically (an interrupted run leaves nothing; rerun it).\n",
      .flags =
          {
              {"compute-data", "FILE[,FILE]",
               "compute cost data (.jsonl or .jsonl.gz); with --compute-features served also "
               "shards data (data collect --kind shards)",
               ""},
              {"compute-features", "raw|log|served",
               "the compute model's feature set: the reference's raw features, log rows and "
               "pooling factor with the bins' stds floored at 0.05, or what each shard serves "
               "(every sharding type; bundle format 2)",
               "raw"},
              {"compute-calls", "device|kernel_call",
               "what a compute sample costs: a device (the reference's), or one fused kernel "
               "call, so that a device costs the sum of its calls (one per sharding type and "
               "replica count, as TorchRec runs them); kernel_call needs one-call data (data "
               "collect --kind shards --one-call) and --compute-features served",
               "device"},
              {"compute-loss", "mse|relative",
               "the compute model's training loss: the reference's squared error, or each "
               "set's error relative to its cost (floor 0.1 ms); reported MSEs stay plain",
               "mse"},
              {"compute-from", "DIR",
               "reuse the compute model (and its range) of the bundle in DIR", ""},
              {"comm-data", "FILE[,FILE]", "comm cost data, one file per device count", ""},
              {"comm-any-data", "FILE[,FILE]",
               "comm cost data of many device counts and host layouts: one device-set comm "
               "model pair for any device count (bundle format 2)",
               ""},
              {"comm-from", "DIR", "reuse the comm models of the bundle in DIR", ""},
              {"collective-data", "FILE[,FILE]",
               "collective cost data (data collect --kind collective): the collective model of "
               "row-wise, table-row-wise and data-parallel shards (bundle format 2)",
               ""},
              {"zero-comm", "", "no comm models: comm costs 0 (cpu data)", ""},
              {"name", "NAME", "bundle name (required with --compute-data)", ""},
              {"version", "VERSION", "bundle version (required with --compute-data)", ""},
              {"models-root", "DIR", "where bundles live", "models"},
              {"description", "TEXT", "one line for the manifest", ""},
              {"hardware-profile", "NAME", "manifest's hardware profile (default: the data's)", ""},
              {"backend", "NAME", "manifest's backend (default: the data's)", ""},
              {"seed", "S", "split, initial weights and batch order", "0"},
              {"epochs", "N", "at most this many epochs", "1000"},
              {"patience", "N", "stop after N epochs without a better validation MSE", "30"},
              {"batch-size", "B", "samples per Adam step", "512"},
              {"threads", "N", "worker threads (results do not depend on it)", "all cores"},
              {"predictions-dir", "DIR", "write <sub-model>.csv of test-split predictions", ""},
          },
      .run = RunTrain,
  };
}

}  // namespace shardplan::offline
