#include "lab/data/table_pool.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/atomic_file.h"
#include "nlohmann/json.hpp"

namespace shardplan {
namespace {

constexpr int kFormatVersion = 1;
// Bins are stored rounded; their sum may miss 1 by a few rounding steps.
constexpr double kBinSumTolerance = 1e-3;

absl::Status Invalid(const std::string& path, const std::string& field, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", field, ": ", why));
}

absl::StatusOr<Table> TableFromJson(const nlohmann::json& json, const std::string& path,
                                    const std::string& where) {
  if (!json.is_object()) return Invalid(path, where, "expected an object");
  Table table;
  bool has_name = false, has_rows = false, has_pooling = false, has_bins = false;
  for (const auto& [key, value] : json.items()) {
    const std::string field = absl::StrCat(where, ".", key);
    if (key == "name") {
      if (!value.is_string() || value.get<std::string>().empty()) {
        return Invalid(path, field, "expected a non-empty string");
      }
      table.name = value.get<std::string>();
      has_name = true;
    } else if (key == "rows") {
      if (!value.is_number_integer() || value.get<int64_t>() < 1) {
        return Invalid(path, field, "expected an integer >= 1");
      }
      table.rows = value.get<int64_t>();
      has_rows = true;
    } else if (key == "pooling_factor") {
      if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0) {
        return Invalid(path, field, "expected a finite number >= 0");
      }
      table.pooling_factor = value.get<double>();
      has_pooling = true;
    } else if (key == "access_bins") {
      if (!value.is_array() || value.size() != kNumAccessBins) {
        return Invalid(path, field, absl::StrCat("expected ", kNumAccessBins, " numbers"));
      }
      double sum = 0.0;
      for (size_t j = 0; j < value.size(); ++j) {
        const auto& bin = value[j];
        if (!bin.is_number() || !(bin.get<double>() >= 0.0 && bin.get<double>() <= 1.0)) {
          return Invalid(path, absl::StrCat(field, "[", j, "]"), "expected a number in [0, 1]");
        }
        table.access_bins.push_back(bin.get<double>());
        sum += bin.get<double>();
      }
      // An empty table has all-zero bins (the reference's convention); others sum to 1.
      if (sum != 0.0 && std::abs(sum - 1.0) > kBinSumTolerance) {
        return Invalid(path, field, absl::StrCat("fractions sum to ", sum, ", expected 1 or 0"));
      }
      has_bins = true;
    } else {
      return Invalid(path, field, "unknown field");
    }
  }
  if (!has_name) return Invalid(path, absl::StrCat(where, ".name"), "missing");
  if (!has_rows) return Invalid(path, absl::StrCat(where, ".rows"), "missing");
  if (!has_pooling) return Invalid(path, absl::StrCat(where, ".pooling_factor"), "missing");
  if (!has_bins) return Invalid(path, absl::StrCat(where, ".access_bins"), "missing");
  return table;
}

}  // namespace

absl::StatusOr<TablePool> TablePoolFromJsonText(const std::string& text, const std::string& path) {
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return Invalid(path, "(file)", "not valid JSON");
  if (!json.is_object()) return Invalid(path, "(file)", "expected a JSON object");
  TablePool pool;
  bool has_version = false, has_tables = false;
  for (const auto& [key, value] : json.items()) {
    if (key == "format_version") {
      if (!value.is_number_integer() || value.get<int64_t>() != kFormatVersion) {
        return Invalid(path, key, absl::StrCat("unsupported; this build reads ", kFormatVersion));
      }
      has_version = true;
    } else if (key == "source") {
      if (!value.is_string()) return Invalid(path, key, "expected a string");
      pool.source = value.get<std::string>();
    } else if (key == "tables") {
      if (!value.is_array()) return Invalid(path, key, "expected an array");
      absl::flat_hash_set<std::string> names;
      for (size_t i = 0; i < value.size(); ++i) {
        const std::string where = absl::StrCat("tables[", i, "]");
        absl::StatusOr<Table> table = TableFromJson(value[i], path, where);
        if (!table.ok()) return table.status();
        if (!names.insert(table->name).second) {
          return Invalid(path, absl::StrCat(where, ".name"),
                         absl::StrCat("duplicate name \"", table->name, "\""));
        }
        pool.tables.push_back(*std::move(table));
      }
      has_tables = true;
    } else {
      return Invalid(path, key, "unknown field");
    }
  }
  if (!has_version) return Invalid(path, "format_version", "missing");
  if (!has_tables) return Invalid(path, "tables", "missing");
  return pool;
}

std::string TablePoolToJsonText(const TablePool& pool) {
  // One table per line: a diff of a regenerated pool reads table by table.
  std::string out =
      absl::StrCat("{\"format_version\": ", kFormatVersion,
                   ",\n \"source\": ", nlohmann::json(pool.source).dump(), ",\n \"tables\": [");
  for (size_t i = 0; i < pool.tables.size(); ++i) {
    const Table& t = pool.tables[i];
    nlohmann::ordered_json row = {{"name", t.name},
                                  {"rows", t.rows},
                                  {"pooling_factor", t.pooling_factor},
                                  {"access_bins", t.access_bins}};
    absl::StrAppend(&out, i == 0 ? "\n  " : ",\n  ", row.dump());
  }
  absl::StrAppend(&out, "\n ]}\n");
  return out;
}

absl::StatusOr<std::string> ReadTablePoolText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open table pool"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read failed"));
  return buffer.str();
}

absl::StatusOr<TablePool> LoadTablePool(const std::string& path) {
  absl::StatusOr<std::string> text = ReadTablePoolText(path);
  if (!text.ok()) return text.status();
  return TablePoolFromJsonText(*text, path);
}

absl::Status SaveTablePool(const TablePool& pool, const std::string& path) {
  for (size_t i = 0; i < pool.tables.size(); ++i) {
    if (pool.tables[i].access_bins.size() != kNumAccessBins) {
      return absl::InvalidArgumentError(
          absl::StrCat("tables[", i, "].access_bins: expected ", kNumAccessBins, " fractions"));
    }
  }
  return WriteFileAtomically(path, TablePoolToJsonText(pool));
}

}  // namespace shardplan
