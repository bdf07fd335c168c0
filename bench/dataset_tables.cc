#include "bench/dataset_tables.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/seeded_rng.h"
#include "nlohmann/json.hpp"
#include "planner/estimators/zipf_access_model.h"

namespace shardplan::bench {
namespace {

using ::nlohmann::json;

// Pool files store bins to 6 decimals (lab/data/synthetic_pool.cc does the same).
constexpr double kBinResolution = 1e6;

absl::Status Invalid(const std::string& path, const std::string& field, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", field, ": ", why));
}

}  // namespace

absl::StatusOr<DatasetSpec> DatasetSpecFromJsonText(const std::string& text,
                                                    const std::string& path) {
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return Invalid(path, "(file)", "not a JSON object");
  if (doc.value("format_version", json()) != json(1)) {
    return Invalid(path, "format_version", "must be 1");
  }
  DatasetSpec spec;
  for (const char* field : {"name", "source"}) {
    if (!doc.contains(field) || !doc[field].is_string() || doc[field].get<std::string>().empty()) {
      return Invalid(path, field, "must be a non-empty string");
    }
  }
  spec.name = doc["name"].get<std::string>();
  spec.source = doc["source"].get<std::string>();
  if (!doc.contains("default_dim") || !doc["default_dim"].is_number_integer() ||
      doc["default_dim"].get<int64_t>() < 1 || doc["default_dim"].get<int64_t>() > 65536) {
    return Invalid(path, "default_dim", "must be an integer in [1, 65536]");
  }
  spec.default_dim = doc["default_dim"].get<int32_t>();
  if (!doc.contains("cardinalities") || !doc["cardinalities"].is_array() ||
      doc["cardinalities"].empty()) {
    return Invalid(path, "cardinalities", "must be a non-empty array");
  }
  for (size_t i = 0; i < doc["cardinalities"].size(); ++i) {
    const json& rows = doc["cardinalities"][i];
    if (!rows.is_number_integer() || rows.get<int64_t>() < 1) {
      return Invalid(path, absl::StrCat("cardinalities[", i, "]"), "must be a positive integer");
    }
    spec.cardinalities.push_back(rows.get<int64_t>());
  }
  if (doc.contains("feature_names")) {
    const json& names = doc["feature_names"];
    if (!names.is_array() || names.size() != spec.cardinalities.size()) {
      return Invalid(path, "feature_names", "must list one name per cardinality");
    }
    for (size_t i = 0; i < names.size(); ++i) {
      if (!names[i].is_string() || names[i].get<std::string>().empty()) {
        return Invalid(path, absl::StrCat("feature_names[", i, "]"), "must be a non-empty string");
      }
      spec.feature_names.push_back(names[i].get<std::string>());
    }
  }
  return spec;
}

absl::StatusOr<DatasetSpec> LoadDatasetSpec(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open the data set spec"));
  std::ostringstream text;
  text << in.rdbuf();
  return DatasetSpecFromJsonText(text.str(), path);
}

std::vector<double> ZipfAccessBins(int64_t rows, double pooling_factor, double exponent,
                                   int64_t batch_size) {
  const auto lookups =
      static_cast<int64_t>(std::llround(pooling_factor * static_cast<double>(batch_size)));
  const ZipfAccessStats expected = ExpectedZipfAccess(rows, lookups, exponent);
  std::vector<double> bins(kNumAccessBins, 0.0);
  if (!(expected.distinct_rows > 0.0)) {
    bins[0] = 1.0;  // no lookups: as TypicalAccessBins, every accessed row is accessed once
    return bins;
  }
  for (int j = 0; j < kNumAccessBins; ++j) {
    bins[j] = std::round(expected.rows_per_bin[j] / expected.distinct_rows * kBinResolution) /
              kBinResolution;
  }
  return bins;
}

absl::StatusOr<DatasetTables> MakeDatasetTables(const DatasetSpec& spec,
                                                const ZipfTableOptions& options, uint64_t seed) {
  const auto in_range = [](double x) { return x >= kMinZipfExponent && x <= kMaxZipfExponent; };
  if (!in_range(options.min_exponent) || !in_range(options.max_exponent)) {
    return absl::InvalidArgumentError(absl::StrCat("zipf exponents: [", options.min_exponent, ", ",
                                                   options.max_exponent, "] must lie within [",
                                                   kMinZipfExponent, ", ", kMaxZipfExponent, "]"));
  }
  if (options.min_exponent > options.max_exponent) {
    return absl::InvalidArgumentError(absl::StrCat("zipf exponents: min ", options.min_exponent,
                                                   " > max ", options.max_exponent));
  }
  if (!(options.pooling_factor > 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("pooling factor: ", options.pooling_factor, " must be > 0"));
  }
  if (options.dim < 0) return absl::InvalidArgumentError("dim: must be >= 0");
  if (options.batch_size < 1) return absl::InvalidArgumentError("batch size: must be >= 1");
  DatasetTables out;
  for (size_t i = 0; i < spec.cardinalities.size(); ++i) {
    std::mt19937_64 rng = SampleRng(seed, i);
    const double exponent =
        options.min_exponent + (options.max_exponent - options.min_exponent) * Uniform01(rng);
    Table table;
    table.name = spec.feature_names.empty() ? absl::StrCat("C", i + 1) : spec.feature_names[i];
    table.rows = spec.cardinalities[i];
    table.dim = options.dim;
    table.pooling_factor = options.pooling_factor;
    table.access_bins =
        ZipfAccessBins(table.rows, options.pooling_factor, exponent, options.batch_size);
    out.tables.push_back(std::move(table));
    out.zipf_exponents.push_back(exponent);
  }
  return out;
}

}  // namespace shardplan::bench
