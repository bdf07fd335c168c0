// dataset_pool: writes a table pool (lab/data/table_pool.h's format) shaped like a public data
// set's categorical features: the spec's cardinalities as rows, one pooling factor, and Zipf
// access histograms with a per-table exponent (bench/dataset_tables.h). Each shipped pool
// data/table_pool/NAME.json (criteo_kaggle, avazu, criteo_terabyte) is
//
//   build/bench/dataset_pool --dataset data/datasets/NAME.json --out data/table_pool/NAME.json
//
// and --check FILE compares a regeneration with FILE instead of writing (exit 4,
// FAILED_PRECONDITION, when they differ), which ctest runs on the shipped pools.
// docs/benchmarks.md, "Criteo-shaped suites".
#include <iostream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/exit_codes.h"
#include "base/status_macros.h"
#include "bench/bench_support.h"
#include "bench/dataset_tables.h"
#include "lab/data/table_pool.h"
#include "lab/tools/tool_support.h"

namespace shardplan::bench {
namespace {

using offline::Command;

absl::Status Run(const OptionValues& args) {
  const std::string spec_path = args.Get("dataset");
  SHARDPLAN_ASSIGN_OR_RETURN(const DatasetSpec spec, LoadDatasetSpec(spec_path));
  ZipfTableOptions options;
  options.dim = 0;  // pools carry no dims: the tasks choose them
  SHARDPLAN_ASSIGN_OR_RETURN(options.min_exponent, args.GetDouble("min-exponent"));
  SHARDPLAN_ASSIGN_OR_RETURN(options.max_exponent, args.GetDouble("max-exponent"));
  SHARDPLAN_ASSIGN_OR_RETURN(options.pooling_factor, args.GetDouble("pooling-factor"));
  SHARDPLAN_ASSIGN_OR_RETURN(options.batch_size, args.GetInt("batch-size"));
  SHARDPLAN_ASSIGN_OR_RETURN(const uint64_t seed, args.GetUint("seed"));
  absl::StatusOr<DatasetTables> tables = MakeDatasetTables(spec, options, seed);
  if (!tables.ok()) return UsageError(tables.status().message());

  TablePool pool;
  pool.source = absl::StrFormat(
      "%s-shaped pool: %s; pooling factor %g, access of one batch of %d from a Zipf over all "
      "rows, exponent uniform in [%g, %g] per table (seed %d); bench/dataset_pool --dataset %s",
      spec.name, spec.source, options.pooling_factor, options.batch_size, options.min_exponent,
      options.max_exponent, seed, spec_path);
  pool.tables = std::move(tables->tables);
  const std::string text = TablePoolToJsonText(pool);
  // The pool must read back as a valid pool (bins, rows, pooling factors).
  SHARDPLAN_RETURN_IF_ERROR(TablePoolFromJsonText(text, "generated pool").status());

  if (const std::string check = args.Get("check"); !check.empty()) {
    SHARDPLAN_ASSIGN_OR_RETURN(const std::string shipped, ReadTablePoolText(check));
    if (shipped != text) {
      return absl::FailedPreconditionError(absl::StrCat(
          check, " differs from the pool these flags generate; regenerate it with --out ", check));
    }
    std::cout << check << ": identical to the regenerated pool (" << pool.tables.size()
              << " tables)\n";
    return absl::OkStatus();
  }
  const std::string out = args.Get("out");
  if (out.empty()) return UsageError("give --out FILE or --check FILE");
  SHARDPLAN_RETURN_IF_ERROR(offline::WriteTextFile(out, text));
  std::cout << "wrote " << out << " (" << pool.tables.size() << " tables)\n";
  return absl::OkStatus();
}

Command DatasetPoolCommand() {
  return Command{
      .group = "bench",
      .name = "dataset_pool",
      .summary = "a table pool shaped like a public data set's categorical features",
      .description = "See docs/benchmarks.md, \"Criteo-shaped suites\".\n",
      .flags =
          {
              {"dataset", "FILE", "data set spec (cardinalities and their source)",
               "data/datasets/criteo_kaggle.json"},
              {"min-exponent", "X", "smallest Zipf exponent", "0.8"},
              {"max-exponent", "X", "largest Zipf exponent", "1.4"},
              {"pooling-factor", "P", "lookups per sample of every table", "1"},
              {"batch-size", "B", "the histograms' batch", "65536"},
              {"seed", "S", "seed of the per-table exponents", "0"},
              {"out", "FILE", "where the pool goes", ""},
              {"check", "FILE", "compare with FILE instead of writing (exit 4 if it differs)", ""},
          },
      .run = Run,
  };
}

}  // namespace
}  // namespace shardplan::bench

int main(int argc, char** argv) {
  return shardplan::bench::CommandMain(shardplan::bench::DatasetPoolCommand(), argc, argv);
}
