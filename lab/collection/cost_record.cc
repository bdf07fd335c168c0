#include "lab/collection/cost_record.h"

#include <algorithm>
#include <iterator>
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

constexpr ShardingType kTypes[] = {ShardingType::kTableWise, ShardingType::kColumnWise,
                                   ShardingType::kRowWise, ShardingType::kTableRowWise,
                                   ShardingType::kDataParallel};
constexpr Collective kCollectives[] = {Collective::kAllToAll, Collective::kReduceScatter,
                                       Collective::kAllGather, Collective::kAllReduce};

absl::Status ReadShards(const json& object, CostRecord& record) {
  const auto it = object.find("shards");
  if (it == object.end()) return absl::InvalidArgumentError("missing field 'shards'");
  if (!it->is_array()) return absl::InvalidArgumentError("field 'shards' is not a list");
  for (size_t i = 0; i < it->size(); ++i) {
    const json& s = (*it)[i];
    CostShard shard;
    const bool shaped = s.is_array() && s.size() == 5 && s[0].is_number_integer() &&
                        s[1].is_number_integer() && s[2].is_string() && s[3].is_number_integer() &&
                        s[4].is_number_integer();
    if (!shaped || s[0].get<int64_t>() < 0 || s[1].get<int64_t>() <= 0 ||
        s[3].get<int64_t>() <= 0 || s[4].get<int64_t>() < 0 ||
        !ParseShardingTypeName(s[2].get<std::string>(), &shard.type)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "field 'shards[", i,
          "]' is not a [pool index >= 0, dim > 0, sharding type, group size > 0, rows >= 0] list"));
    }
    shard.table = s[0].get<int32_t>();
    shard.dim = s[1].get<int32_t>();
    shard.group_size = s[3].get<int32_t>();
    shard.rows = s[4].get<int64_t>();
    record.shards.push_back(shard);
  }
  return absl::OkStatus();
}

absl::Status ReadDevices(const json& list, int32_t num_devices, std::vector<int32_t>& out) {
  if (!list.is_array()) return absl::InvalidArgumentError("is not a list");
  for (const json& d : list) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0 || d.get<int64_t>() >= num_devices) {
      return absl::InvalidArgumentError(
          absl::StrCat("holds ", d.dump(), ", not a device in [0, ", num_devices, ")"));
    }
    out.push_back(d.get<int32_t>());
  }
  return absl::OkStatus();
}

absl::Status ReadDemands(const json& object, CostRecord& record) {
  const auto it = object.find("demands");
  if (it == object.end()) return absl::InvalidArgumentError("missing field 'demands'");
  if (!it->is_array() || it->empty()) {
    return absl::InvalidArgumentError("field 'demands' is not a non-empty list");
  }
  for (size_t i = 0; i < it->size(); ++i) {
    const json& d = (*it)[i];
    const std::string at = absl::StrCat("field 'demands[", i, "]'");
    if (!d.is_array() || d.size() != 6 || !d[0].is_string() || !d[1].is_string() ||
        !d[2].is_string() || !d[3].is_number() || !(d[3].get<double>() >= 0.0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          at, " is not a [collective, pass, sharding type, bytes >= 0, devices, peers] list"));
    }
    CostDemand demand;
    const std::string collective = d[0].get<std::string>();
    const auto found = std::find_if(std::begin(kCollectives), std::end(kCollectives),
                                    [&](Collective c) { return collective == CollectiveName(c); });
    if (found == std::end(kCollectives)) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ": collective '", collective, "' is not known"));
    }
    demand.collective = *found;
    const std::string pass = d[1].get<std::string>();
    if (pass != "forward" && pass != "backward") {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ": pass '", pass, "' is not 'forward' or 'backward'"));
    }
    demand.pass = pass == "forward" ? Pass::kForward : Pass::kBackward;
    if (!ParseShardingTypeName(d[2].get<std::string>(), &demand.sharding)) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ": sharding type '", d[2].get<std::string>(), "' is not known"));
    }
    demand.bytes = d[3].get<double>();
    if (absl::Status s = ReadDevices(d[4], record.num_devices, demand.devices); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(at, " devices ", s.message()));
    }
    if (absl::Status s = ReadDevices(d[5], record.num_devices, demand.peers); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(at, " peers ", s.message()));
    }
    record.demands.push_back(std::move(demand));
  }
  return absl::OkStatus();
}

absl::Status ReadLayout(const json& object, CostRecord& record) {
  if (absl::Status read = Read(object, "num_devices", record.num_devices); !read.ok()) {
    return read;
  }
  if (record.num_devices <= 0) {
    return absl::InvalidArgumentError("field 'num_devices' is not positive");
  }
  if (object.contains("devices_per_host")) {
    if (absl::Status read = Read(object, "devices_per_host", record.devices_per_host); !read.ok()) {
      return read;
    }
    if (record.devices_per_host <= 0 || record.devices_per_host > record.num_devices) {
      return absl::InvalidArgumentError("field 'devices_per_host' is not in [1, num_devices]");
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool ParseShardingTypeName(const std::string& name, ShardingType* type) {
  for (ShardingType t : kTypes) {
    if (name == ShardingTypeName(t)) {
      *type = t;
      return true;
    }
  }
  return false;
}

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
  } else if (record.kind == "shards") {
    nlohmann::ordered_json shards = nlohmann::ordered_json::array();
    for (const CostShard& s : record.shards) {
      shards.push_back({s.table, s.dim, ShardingTypeName(s.type), s.group_size, s.rows});
    }
    line["shards"] = std::move(shards);
    line["ms"] = record.ms;
  } else if (record.kind == "collective") {
    line["num_devices"] = record.num_devices;
    if (record.devices_per_host > 0) line["devices_per_host"] = record.devices_per_host;
    nlohmann::ordered_json demands = nlohmann::ordered_json::array();
    for (const CostDemand& d : record.demands) {
      demands.push_back({CollectiveName(d.collective),
                         d.pass == Pass::kForward ? "forward" : "backward",
                         ShardingTypeName(d.sharding), d.bytes, d.devices, d.peers});
    }
    line["demands"] = std::move(demands);
    line["forward_ms"] = record.forward_ms;
    line["backward_ms"] = record.backward_ms;
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
  } else if (record.kind == "shards") {
    if (absl::Status read = ReadShards(object, record); !read.ok()) return read;
    if (absl::Status read = Read(object, "ms", record.ms); !read.ok()) return read;
    if (!(record.ms >= 0.0)) return absl::InvalidArgumentError("field 'ms' is negative");
  } else if (record.kind == "collective") {
    if (absl::Status read = ReadLayout(object, record); !read.ok()) return read;
    if (absl::Status read = ReadDemands(object, record); !read.ok()) return read;
    const int64_t n = record.num_devices;
    check(ReadList(object, "forward_ms", n, record.forward_ms));
    check(ReadList(object, "backward_ms", n, record.backward_ms));
    if (!status.ok()) return status;
  } else if (record.kind == "comm") {
    if (absl::Status read = ReadLayout(object, record); !read.ok()) return read;
    const int64_t n = record.num_devices;
    check(ReadList(object, "dim_sums", n, record.dim_sums));
    check(ReadList(object, "start_offsets_ms", n, record.start_offsets_ms));
    check(ReadList(object, "forward_ms", n, record.forward_ms));
    check(ReadList(object, "backward_ms", n, record.backward_ms));
    if (!status.ok()) return status;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("field 'kind' is '", record.kind,
                     "', expected 'compute', 'comm', 'shards' or 'collective'"));
  }
  return record;
}

Topology CollectiveLayoutOf(const CostRecord& record) {
  Topology topology;
  topology.memory_bytes.assign(static_cast<size_t>(std::max(record.num_devices, 0)), 0);
  topology.devices_per_host = record.devices_per_host;
  return topology;
}

std::vector<CollectiveDemand> CollectiveDemandsOf(const CostRecord& record) {
  std::vector<CollectiveDemand> demands;
  demands.reserve(record.demands.size());
  for (const CostDemand& d : record.demands) {
    demands.push_back(CollectiveDemand{.collective = d.collective,
                                       .pass = d.pass,
                                       .sharding = d.sharding,
                                       .devices = d.devices,
                                       .peers = d.peers,
                                       .bytes = d.bytes});
  }
  return demands;
}

}  // namespace shardplan
