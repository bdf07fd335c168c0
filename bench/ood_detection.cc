// ood_detection: how well the server's OUTSIDE_TRAINING_RANGE warning finds the tables a neural
// compute model mispredicts (docs/cost-models.md, "Outside the training data"). Every table of
// held-out pools, alone on a device at dims 4 to 128 (the cases of bench/single_table_error.sh),
// is predicted by each model and measured on the simulator of its hardware; a case is *bad* when
// the prediction is more than 50% off. Two kinds of pools, neither used for training:
//   pool   the DLRM-shaped generator's (tables generate-pool --seed S), as the training pools
//   steep  the same generator with a steeper Zipf head (exponent ~ N(mean, sd), only tables of
//          exponent >= --steep-min-exponent kept): rows and pooling in range, shape not
// and two roles: the *choice* pools choose the shape threshold (the one minimising missed bad
// cases + flagged fine cases, each as a share, over both models), the *report* pools report it.
// A table is flagged by range (FeaturesOutsideRange), by shape (AccessShapeOutside) or by either
// (what the server warns about). Bundles without an access-shape summary get one derived from the
// compute data their manifest names, exactly as `model train` records it.
//
//   build/bench/ood_detection [--models sim-rtx2080ti@5=rtx2080ti,sim-h100-sxm@5=h100-sxm]
//       [--choice-pools 1,2] [--report-pools 7] [--steep-choice-pools 11,12]
//       [--steep-report-pools 17] [--threshold T] [--out bench/results/ood_detection]
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <string>
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
#include "costmodels/artifacts/model_bundle.h"
#include "costmodels/neural/access_shapes.h"
#include "costmodels/neural/table_features.h"
#include "lab/data/synthetic_pool.h"
#include "lab/tools/tool_support.h"
#include "lab/tools/training_pools.h"
#include "lab/training/datasets.h"
#include "nlohmann/json.hpp"

namespace shardplan::bench {
namespace {

using ::nlohmann::json;
using offline::Command;

constexpr double kBadError = 0.5;
constexpr int64_t kBatchSize = 65536;

struct ModelUnderTest {
  std::string id;
  std::string profile;
  LoadedBundle bundle;
  AccessShapeSummary shapes;  // the bundle's, or derived from its compute data
  bool derived = false;
};

// One (table, dim) alone on a device.
struct Case {
  std::string set;  // "pool" or "steep"
  bool choice = false;
  uint64_t seed = 0;
  int table = 0;
  int dim = 0;
  double exponent = 0.0;
  double shape_distance = 0.0;
  bool range_flag = false;
  double error = 0.0;  // (predicted - truth) / truth
  int64_t rows = 0;    // the table's, for --cases-out
  double pooling_factor = 0.0;
  std::vector<double> bins;
};

absl::StatusOr<std::vector<uint64_t>> SeedList(const OptionValues& args, const std::string& flag) {
  std::vector<uint64_t> out;
  for (absl::string_view part : absl::StrSplit(args.Get(flag), ',', absl::SkipEmpty())) {
    uint64_t seed = 0;
    if (!absl::SimpleAtoi(part, &seed)) {
      return UsageError(absl::StrCat("--", flag, ": '", part, "' is not a seed"));
    }
    out.push_back(seed);
  }
  return out;
}

// The held-out tables of one pool seed, with each table's Zipf exponent.
absl::StatusOr<std::vector<std::pair<Table, double>>> PoolTables(uint64_t seed, bool steep,
                                                                 double mean, double sd,
                                                                 double min_exponent) {
  SyntheticPoolOptions options;
  options.seed = seed;
  if (steep) {
    options.zipf_exponent_mean = mean;
    options.zipf_exponent_sd = sd;
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const SyntheticPool pool, GenerateSyntheticPool(options));
  std::vector<std::pair<Table, double>> out;
  for (size_t i = 0; i < pool.pool.tables.size(); ++i) {
    if (steep && pool.models[i].zipf_exponent < min_exponent) continue;
    out.emplace_back(pool.pool.tables[i], pool.models[i].zipf_exponent);
  }
  return out;
}

absl::StatusOr<ModelUnderTest> LoadModel(const std::string& models_dir, const std::string& entry,
                                         size_t centres) {
  const std::vector<std::string> parts = absl::StrSplit(entry, '=');
  const std::vector<std::string> id = absl::StrSplit(parts[0], '@');
  if (parts.size() != 2 || id.size() != 2) {
    return UsageError(absl::StrCat("--models: '", entry, "' is not NAME@VERSION=PROFILE"));
  }
  ModelUnderTest model;
  model.id = parts[0];
  model.profile = parts[1];
  SHARDPLAN_ASSIGN_OR_RETURN(model.bundle,
                             ReadModelBundle(absl::StrCat(models_dir, "/", id[0], "/", id[1])));
  if (model.bundle.model->access_shapes().has_value()) {
    model.shapes = *model.bundle.model->access_shapes();
    return model;
  }
  const auto training = model.bundle.info.training.find("compute");
  if (training == model.bundle.info.training.end()) {
    return absl::FailedPreconditionError(
        absl::StrCat(model.id, " records neither access shapes nor its compute data"));
  }
  std::cerr << model.id << ": deriving access shapes from " << training->second.data_file << "\n";
  SHARDPLAN_ASSIGN_OR_RETURN(
      const training::ComputeDataset data,
      training::LoadComputeDataset(training->second.data_file, offline::PoolFromFile()));
  model.shapes = SummarizeAccessShapes(data.features, centres, kDefaultAccessShapeThreshold);
  model.derived = true;
  return model;
}

// Flag counts over `cases` at shape threshold `t`.
struct Tally {
  int cases = 0, bad = 0;
  int bad_range = 0, bad_shape = 0, bad_either = 0;
  int fine_range = 0, fine_shape = 0, fine_either = 0;
  std::vector<double> unflagged_abs_errors;
};

Tally Count(const std::vector<const Case*>& cases, double t) {
  Tally tally;
  for (const Case* c : cases) {
    const bool bad = std::abs(c->error) > kBadError;
    const bool shape = c->shape_distance > t;
    ++tally.cases;
    tally.bad += bad;
    (bad ? tally.bad_range : tally.fine_range) += c->range_flag;
    (bad ? tally.bad_shape : tally.fine_shape) += shape;
    (bad ? tally.bad_either : tally.fine_either) += c->range_flag || shape;
    if (!c->range_flag && !shape) tally.unflagged_abs_errors.push_back(std::abs(c->error));
  }
  return tally;
}

// Missed bad cases plus flagged fine cases, each as a share of its kind.
double BalancedError(const Tally& t) {
  const int fine = t.cases - t.bad;
  return (t.bad > 0 ? static_cast<double>(t.bad - t.bad_either) / t.bad : 0.0) +
         (fine > 0 ? static_cast<double>(t.fine_either) / fine : 0.0);
}

std::string Share(int k, int n) {
  return n == 0 ? std::string("-") : absl::StrFormat("%d/%d (%.1f%%)", k, n, 100.0 * k / n);
}

absl::Status Run(const OptionValues& args) {
  SHARDPLAN_ASSIGN_OR_RETURN(const std::vector<int> dims, IntList(args, "dims"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t centres, args.GetInt("centres"));
  SHARDPLAN_ASSIGN_OR_RETURN(const double steep_mean, args.GetDouble("steep-exponent-mean"));
  SHARDPLAN_ASSIGN_OR_RETURN(const double steep_sd, args.GetDouble("steep-exponent-sd"));
  SHARDPLAN_ASSIGN_OR_RETURN(const double steep_min, args.GetDouble("steep-min-exponent"));
  if (centres < 1) return UsageError("--centres must be positive");
  std::vector<ModelUnderTest> models;
  for (absl::string_view entry : absl::StrSplit(args.Get("models"), ',', absl::SkipEmpty())) {
    SHARDPLAN_ASSIGN_OR_RETURN(
        ModelUnderTest model,
        LoadModel(args.Get("models-dir"), std::string(entry), static_cast<size_t>(centres)));
    models.push_back(std::move(model));
  }
  if (models.empty()) return UsageError("--models names no model");

  struct PoolSpec {
    std::string set;
    bool choice;
    std::string flag;
  };
  const std::vector<PoolSpec> specs = {{"pool", true, "choice-pools"},
                                       {"steep", true, "steep-choice-pools"},
                                       {"pool", false, "report-pools"},
                                       {"steep", false, "steep-report-pools"}};
  std::vector<std::vector<Case>> cases(models.size());
  for (const PoolSpec& spec : specs) {
    SHARDPLAN_ASSIGN_OR_RETURN(const std::vector<uint64_t> seeds, SeedList(args, spec.flag));
    for (const uint64_t seed : seeds) {
      SHARDPLAN_ASSIGN_OR_RETURN(const auto tables, PoolTables(seed, spec.set == "steep",
                                                               steep_mean, steep_sd, steep_min));
      for (size_t m = 0; m < models.size(); ++m) {
        const ModelUnderTest& model = models[m];
        SHARDPLAN_ASSIGN_OR_RETURN(std::unique_ptr<HardwareBackend> truth,
                                   MakeGroundTruth(8, model.profile));
        const NeuralCostModel& neural = *model.bundle.model;
        std::cerr << "\r" << model.id << ": " << spec.flag << " seed " << seed << " ("
                  << tables.size() << " tables)        ";
        for (size_t i = 0; i < tables.size(); ++i) {
          AccessShape shape;
          const bool has_shape = AccessShapeOf(tables[i].first, &shape);
          const double distance = has_shape ? DistanceToNearestShape(shape, model.shapes) : 0.0;
          for (const int dim : dims) {
            Table table = tables[i].first;
            table.dim = dim;
            std::array<float, kNumTableFeatures> features;
            TableFeatures(table, dim, features);
            const double predicted = neural.compute().PredictFromFeatures(features);
            SHARDPLAN_ASSIGN_OR_RETURN(const double measured,
                                       truth->MeasureCompute({&table, 1}, kBatchSize));
            Case c{
                .set = spec.set,
                .choice = spec.choice,
                .seed = seed,
                .table = static_cast<int>(i),
                .dim = dim,
                .exponent = tables[i].second,
                .shape_distance = distance,
                .range_flag = neural.training_range().has_value() &&
                              !FeaturesOutsideRange(table, dim, *neural.training_range()).empty(),
                .error = (predicted - measured) / measured,
                .rows = table.rows,
                .pooling_factor = table.pooling_factor,
                .bins = table.access_bins};
            cases[m].push_back(c);
          }
        }
      }
    }
  }
  std::cerr << "\n";

  // The threshold: given, or the candidate (a distance some choice case has, or 0) with the least
  // balanced error summed over the models; ties go to the larger threshold (fewer warnings).
  double threshold = 0.0;
  if (!args.Get("threshold").empty()) {
    SHARDPLAN_ASSIGN_OR_RETURN(threshold, args.GetDouble("threshold"));
  } else {
    std::vector<double> candidates = {0.0};
    std::vector<std::vector<const Case*>> choice(models.size());
    for (size_t m = 0; m < models.size(); ++m) {
      for (const Case& c : cases[m]) {
        if (!c.choice) continue;
        choice[m].push_back(&c);
        candidates.push_back(c.shape_distance);
      }
    }
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    double best = std::numeric_limits<double>::infinity();
    for (const double t : candidates) {
      double total = 0.0;
      for (size_t m = 0; m < models.size(); ++m) total += BalancedError(Count(choice[m], t));
      if (total <= best) {
        best = total;
        threshold = t;
      }
    }
  }

  std::string report = absl::StrCat(
      "# ood_detection: OUTSIDE_TRAINING_RANGE against single-table errors\n\n",
      "Every table alone on a device at dims ", args.Get("dims"), ", predicted against the ",
      "simulator (noise off, batch 65536); bad: more than 50% off. Steep pools: exponent ~ N(",
      steep_mean, ", ", steep_sd, "), tables >= ", steep_min, " kept. Shape threshold ",
      absl::StrFormat("%.4g", threshold),
      args.Get("threshold").empty() ? " (chosen on the choice pools)" : " (given)", ".\n\n");
  for (const ModelUnderTest& model : models) {
    absl::StrAppend(&report, "- ", model.id, ": ", model.shapes.centres.size(),
                    " centres, cover radius ", absl::StrFormat("%.4g", model.shapes.cover_radius),
                    model.derived ? " (derived from its compute data)" : " (from its manifest)",
                    "\n");
  }
  absl::StrAppend(
      &report,
      "\n| model | pools | role | cases | bad | bad flagged: range | shape | either | fine "
      "flagged: range | shape | either | unflagged abs error p95 / max |\n"
      "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  json result = {{"threshold", threshold}, {"rows", json::array()}};
  for (size_t m = 0; m < models.size(); ++m) {
    for (const PoolSpec& spec : specs) {
      std::vector<const Case*> subset;
      for (const Case& c : cases[m]) {
        if (c.set == spec.set && c.choice == spec.choice) subset.push_back(&c);
      }
      if (subset.empty()) continue;
      Tally t = Count(subset, threshold);
      std::sort(t.unflagged_abs_errors.begin(), t.unflagged_abs_errors.end());
      const auto quantile = [&](double q) {
        const std::vector<double>& v = t.unflagged_abs_errors;
        return v.empty() ? 0.0 : v[std::min(v.size() - 1, static_cast<size_t>(q * v.size()))];
      };
      const int fine = t.cases - t.bad;
      absl::StrAppend(&report, "| ", models[m].id, " | ", spec.set, " (", args.Get(spec.flag),
                      ") | ", spec.choice ? "choice" : "report", " | ", t.cases, " | ", t.bad,
                      " | ", Share(t.bad_range, t.bad), " | ", Share(t.bad_shape, t.bad), " | ",
                      Share(t.bad_either, t.bad), " | ", Share(t.fine_range, fine), " | ",
                      Share(t.fine_shape, fine), " | ", Share(t.fine_either, fine), " | ",
                      absl::StrFormat("%.0f%% / %.0f%%", 100 * quantile(0.95), 100 * quantile(1.0)),
                      " |\n");
      result["rows"].push_back({{"model", models[m].id},
                                {"set", spec.set},
                                {"role", spec.choice ? "choice" : "report"},
                                {"seeds", args.Get(spec.flag)},
                                {"cases", t.cases},
                                {"bad", t.bad},
                                {"bad_flagged", {t.bad_range, t.bad_shape, t.bad_either}},
                                {"fine_flagged", {t.fine_range, t.fine_shape, t.fine_either}}});
    }
  }
  if (const std::string path = args.Get("cases-out"); !path.empty()) {
    std::ofstream out(path);
    for (size_t m = 0; m < models.size(); ++m) {
      for (const Case& c : cases[m]) {
        out << json{{"model", models[m].id},  {"set", c.set},
                    {"choice", c.choice},     {"seed", c.seed},
                    {"table", c.table},       {"dim", c.dim},
                    {"exponent", c.exponent}, {"shape", c.shape_distance},
                    {"range", c.range_flag},  {"error", c.error},
                    {"rows", c.rows},         {"pooling", c.pooling_factor},
                    {"bins", c.bins}}
                   .dump()
            << "\n";
      }
    }
  }
  const std::string out = args.Get("out");
  SHARDPLAN_RETURN_IF_ERROR(offline::WriteTextFile(out + ".json", result.dump(2) + "\n"));
  return WriteReport(out, report);
}

Command OodDetectionCommand() {
  return Command{
      .group = "bench",
      .name = "ood_detection",
      .summary = "how many mispredicted single tables the out-of-training warnings flag",
      .description =
          "Costs every table of held-out DLRM-shaped and steep-Zipf pools alone on a device\n"
          "under each neural model and on the simulator, chooses the access-shape threshold on\n"
          "the choice pools and reports detections and false alarms on the report pools.\n"
          "Results go to OUT.md and OUT.json.",
      .flags =
          {
              {"models", "LIST", "NAME@VERSION=SIM_PROFILE,...",
               "sim-rtx2080ti@5=rtx2080ti,sim-h100-sxm@5=h100-sxm"},
              {"models-dir", "DIR", "model bundles", "models"},
              {"dims", "LIST", "dims of every table", "4,8,16,32,64,128"},
              {"choice-pools", "LIST", "DLRM pool seeds that choose the threshold", "1,2"},
              {"report-pools", "LIST", "DLRM pool seeds the results are reported on", "7"},
              {"steep-choice-pools", "LIST", "steep pool seeds that choose the threshold", "11,12"},
              {"steep-report-pools", "LIST", "steep pool seeds reported on", "17"},
              {"steep-exponent-mean", "X", "Zipf exponent mean of the steep pools", "1.6"},
              {"steep-exponent-sd", "X", "its standard deviation", "0.3"},
              {"steep-min-exponent", "X", "steep pools keep tables of at least this exponent",
               "1.2"},
              {"centres", "N", "centres of a summary derived from cost data", "128"},
              {"threshold", "T", "shape threshold (default: chosen on the choice pools)", ""},
              {"cases-out", "FILE", "also write every case as JSONL", ""},
              {"out", "PREFIX", "where the results go (.md, .json)", "bench/results/ood_detection"},
          },
      .run = Run,
  };
}

}  // namespace
}  // namespace shardplan::bench

int main(int argc, char** argv) {
  return shardplan::bench::CommandMain(shardplan::bench::OodDetectionCommand(), argc, argv);
}
