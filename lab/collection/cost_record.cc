#include "lab/collection/cost_record.h"

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "nlohmann/json.hpp"

namespace shardplan {
namespace {

using nlohmann::json;

bool IsCompute(const std::string& kind) { return kind == "compute"; }

template <typename T>
absl::Status Read(const json& object, const char* key, T& out) {
  const auto it = object.find(key);
  if (it == object.end())
    return absl::InvalidArgumentError(absl::StrCat("missing field '", key, "'"));
  if constexpr (std::is_integral_v<T>) {
    // get<int>() would silently truncate 1.5.
    if (!it->is_number_integer()) {
      return absl::InvalidArgumentError(
          absl::StrCat("field '", key, "' is not an integer (", it->type_name(), ")"));
    }
  }
  try {
    out = it->template get<T>();
  } catch (const json::exception&) {
    return absl::InvalidArgumentError(
        absl::StrCat("field '", key, "' has the wrong type (", it->type_name(), ")"));
  }
  return absl::OkStatus();
}

// A list of numbers of `expected` entries (`expected` < 0: any length).
template <typename T>
absl::Status ReadList(const json& object, const char* key, int64_t expected, std::vector<T>& out) {
  if (absl::Status status = Read(object, key, out); !status.ok()) return status;
  if (expected >= 0 && static_cast<int64_t>(out.size()) != expected) {
    return absl::InvalidArgumentError(absl::StrCat("field '", key, "' has ", out.size(),
                                                   " entries, expected num_devices = ", expected));
  }
  return absl::OkStatus();
}

}  // namespace

std::string CostRecordToJsonLine(const CostRecord& record) {
  // ordered_json keeps the documented field order, so files diff and read well.
  nlohmann::ordered_json line;
  line["id"] = record.id;
  line["kind"] = record.kind;
  line["backend"] = record.backend;
  line["hardware_profile"] = record.hardware_profile;
  line["seed"] = record.seed;
  line["batch_size"] = record.batch_size;
  line["pool"] = record.pool;
  line["pool_sha256"] = record.pool_sha256;
  if (IsCompute(record.kind)) {
    nlohmann::ordered_json tables = nlohmann::ordered_json::array();
    for (const auto& [index, dim] : record.tables) tables.push_back({index, dim});
    line["tables"] = std::move(tables);
    line["ms"] = record.ms;
  } else {
    line["num_devices"] = record.num_devices;
    if (record.devices_per_host > 0) line["devices_per_host"] = record.devices_per_host;
    line["dim_sums"] = record.dim_sums;
    line["start_offsets_ms"] = record.start_offsets_ms;
    line["forward_ms"] = record.forward_ms;
    line["backward_ms"] = record.backward_ms;
  }
  line["time"] = record.time;
  return line.dump();
}

absl::StatusOr<CostRecord> CostRecordFromJsonLine(const std::string& line) {
  const json object = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (object.is_discarded()) return absl::InvalidArgumentError("not valid JSON");
  if (!object.is_object()) return absl::InvalidArgumentError("not a JSON object");
  CostRecord record;
  absl::Status status;
  const auto check = [&status](absl::Status next) {
    if (status.ok()) status = std::move(next);
  };
  check(Read(object, "id", record.id));
  check(Read(object, "kind", record.kind));
  check(Read(object, "backend", record.backend));
  check(Read(object, "hardware_profile", record.hardware_profile));
  check(Read(object, "seed", record.seed));
  check(Read(object, "batch_size", record.batch_size));
  check(Read(object, "pool", record.pool));
  check(Read(object, "pool_sha256", record.pool_sha256));
  check(Read(object, "time", record.time));
  if (!status.ok()) return status;
  if (record.id < 0) return absl::InvalidArgumentError("field 'id' is negative");
  if (record.batch_size <= 0)
    return absl::InvalidArgumentError("field 'batch_size' is not positive");
  if (IsCompute(record.kind)) {
    const auto it = object.find("tables");
    if (it == object.end()) return absl::InvalidArgumentError("missing field 'tables'");
    if (!it->is_array()) return absl::InvalidArgumentError("field 'tables' is not a list");
    for (size_t i = 0; i < it->size(); ++i) {
      const json& pair = (*it)[i];
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() ||
          !pair[1].is_number_integer() || pair[0].get<int64_t>() < 0 ||
          pair[1].get<int64_t>() <= 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("field 'tables[", i, "]' is not a [pool index >= 0, dim > 0] pair"));
      }
      record.tables.emplace_back(pair[0].get<int32_t>(), pair[1].get<int32_t>());
    }
    if (absl::Status read = Read(object, "ms", record.ms); !read.ok()) return read;
    if (!(record.ms >= 0.0)) return absl::InvalidArgumentError("field 'ms' is negative");
  } else if (record.kind == "comm") {
    if (absl::Status read = Read(object, "num_devices", record.num_devices); !read.ok()) {
      return read;
    }
    if (record.num_devices <= 0) {
      return absl::InvalidArgumentError("field 'num_devices' is not positive");
    }
    if (object.contains("devices_per_host")) {
      if (absl::Status read = Read(object, "devices_per_host", record.devices_per_host);
          !read.ok()) {
        return read;
      }
      if (record.devices_per_host <= 0 || record.devices_per_host > record.num_devices) {
        return absl::InvalidArgumentError("field 'devices_per_host' is not in [1, num_devices]");
      }
    }
    const int64_t n = record.num_devices;
    check(ReadList(object, "dim_sums", n, record.dim_sums));
    check(ReadList(object, "start_offsets_ms", n, record.start_offsets_ms));
    check(ReadList(object, "forward_ms", n, record.forward_ms));
    check(ReadList(object, "backward_ms", n, record.backward_ms));
    if (!status.ok()) return status;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("field 'kind' is '", record.kind, "', expected 'compute' or 'comm'"));
  }
  return record;
}

}  // namespace shardplan
