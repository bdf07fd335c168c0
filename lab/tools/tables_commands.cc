// shardplan tables ...: build table pools (docs/table-pool.md).
#include <algorithm>
#include <fstream>
#include <iostream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/exit_codes.h"
#include "base/status_macros.h"
#include "lab/data/lookup_reader.h"
#include "lab/data/synthetic_pool.h"
#include "lab/data/table_pool.h"
#include "lab/tools/commands.h"
#include "lab/tools/tool_support.h"

namespace shardplan::offline {
namespace {

// "binary" when the file starts with the binary magic, else "text" (what LookupReader detects).
absl::StatusOr<std::string> DetectLookupFormat(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  char head[8] = {};
  in.read(head, sizeof(head));
  return std::string(head, static_cast<size_t>(in.gcount())) == std::string(kLookupBinaryMagic, 8)
             ? "binary"
             : "text";
}

absl::Status RunGeneratePool(const OptionValues& args) {
  SyntheticPoolOptions options;
  SHARDPLAN_ASSIGN_OR_RETURN(options.seed, args.GetUint("seed"));
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t tables, args.GetInt("tables"));
  if (tables < 1 || tables > 1000000) return UsageError("--tables must be in [1, 1000000]");
  options.num_tables = static_cast<int32_t>(tables);
  if (args.Has("max-rows")) {
    SHARDPLAN_ASSIGN_OR_RETURN(options.max_rows, args.GetInt("max-rows"));
    if (options.max_rows < 100) return UsageError("--max-rows must be at least 100");
    options.mean_rows = std::min(options.mean_rows, options.max_rows);
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string shape,
                             args.GetOneOf("shape", {"dlrm", "log-uniform"}));
  if (shape == "log-uniform") options.shape = SyntheticPoolOptions::Shape::kLogUniform;
  if (args.Has("max-pooling")) {
    if (shape != "log-uniform") {
      return UsageError("--max-pooling is for --shape log-uniform (the dlrm shape is fitted)");
    }
    SHARDPLAN_ASSIGN_OR_RETURN(options.max_pooling_factor, args.GetDouble("max-pooling"));
    if (!(options.max_pooling_factor > options.min_pooling_factor) ||
        options.max_pooling_factor > 1e6) {
      return UsageError(absl::StrCat("--max-pooling must be in (", options.min_pooling_factor,
                                     ", 1e6]"));
    }
  }
  const std::string out = args.Get("out");
  SHARDPLAN_RETURN_IF_ERROR(WriteSyntheticPool(options, out));
  std::cout << out << ": " << tables << " tables, seed " << options.seed << ", shape " << shape
            << "\n";
  return absl::OkStatus();
}

absl::Status RunProfile(const OptionValues& args) {
  const std::string input = args.Get("input");
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string detected, DetectLookupFormat(input));
  if (args.Has("format")) {
    SHARDPLAN_ASSIGN_OR_RETURN(const std::string format,
                               args.GetOneOf("format", {"text", "binary"}));
    if (format != detected) {
      return absl::InvalidArgumentError(absl::StrCat(input, " is not in the ", format,
                                                     " lookup format (it reads as ", detected,
                                                     "; docs/table-pool.md)"));
    }
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const TablePool pool, ProfileLookupFile(input));
  SHARDPLAN_RETURN_IF_ERROR(SaveTablePool(pool, args.Get("out")));
  std::cout << args.Get("out") << ": " << pool.tables.size() << " tables profiled from " << input
            << " (" << detected << ")\n";
  return absl::OkStatus();
}

}  // namespace

Command TablesGeneratePoolCommand() {
  return Command{
      .group = "tables",
      .name = "generate-pool",
      .summary = "Generate the synthetic DLRM-like table pool (856 tables) from a seed",
      .description =
          "Draws rows, pooling factors and access histograms matched to the published statistics\n"
          "of Meta's synthetic DLRM dataset (docs/table-pool.md), and writes the pool and its fit\n"
          "report (<out without .json>.fit.json). The shipped data/table_pool/dlrm_856.json is\n"
          "seed 0. --shape log-uniform draws a coverage pool for training data instead: rows and\n"
          "pooling factors log-uniform over the same ranges, the same access model.\n",
      .flags =
          {
              {"seed", "S", "seed", "0"},
              {"shape", "dlrm|log-uniform", "how rows and pooling factors are drawn", "dlrm"},
              {"max-rows", "R", "the largest table's rows (default: the published 12,543,670)", ""},
              {"max-pooling", "P",
               "log-uniform shape: the largest pooling factor (default: the published 193)", ""},
              {"tables", "N", "number of tables", "856"},
              {"out", "POOL.json", "the table pool to write", "", true},
          },
      .run = RunGeneratePool,
  };
}

Command TablesProfileCommand() {
  return Command{
      .group = "tables",
      .name = "profile",
      .summary = "Profile lookup data (indices + offsets per table) into a table pool",
      .description =
          "Per table: rows = max(100, max index + 1), pooling factor = mean bag length, and the\n"
          "17 access bins, exactly as NeuroShard's gen_dlrm_data.py. The text and binary input\n"
          "formats are in docs/table-pool.md; the format is detected from the file's first "
          "bytes.\n",
      .flags =
          {
              {"input", "FILE", "lookup file", "", true},
              {"format", "text|binary", "check the input is in this format", ""},
              {"out", "POOL.json", "the table pool to write", "", true},
          },
      .run = RunProfile,
  };
}

}  // namespace shardplan::offline
