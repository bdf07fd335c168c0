#include "planner/algorithms/oper/oper_fetch_cost.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace shardplan::oper {

FetchCostMatrix FetchCostMatrix::OfTopology(const Topology& topology,
                                            const FetchLatencies& latencies) {
  const int devices = topology.num_devices();
  FetchCostMatrix matrix;
  matrix.latency_us_.assign(devices, std::vector<double>(devices, 0.0));
  matrix.us_per_byte_.assign(devices, std::vector<double>(devices, 0.0));
  const auto us_per_byte = [](double gibps) { return 1e6 / (gibps * kBytesPerGiB); };
  for (int i = 0; i < devices; ++i) {
    for (int j = 0; j < devices; ++j) {
      if (i == j) continue;
      const bool same_host = topology.host_of(i) == topology.host_of(j);
      matrix.latency_us_[i][j] = same_host ? latencies.intra_host_us : latencies.inter_host_us;
      matrix.us_per_byte_[i][j] = us_per_byte(same_host ? topology.intra_host_bandwidth_gibps
                                                        : topology.inter_host_bandwidth_gibps);
    }
  }
  return matrix;
}

absl::StatusOr<FetchCostMatrix> FetchCostMatrix::Parse(const std::string& text, int num_devices,
                                                       const std::string& field) {
  const std::vector<std::string> rows = absl::StrSplit(text, ';');
  if (static_cast<int>(rows.size()) != num_devices) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": needs ", num_devices, " rows (one per device, split by ';'), got ", rows.size()));
  }
  FetchCostMatrix matrix;
  matrix.us_per_byte_.assign(num_devices, std::vector<double>(num_devices, 0.0));
  for (int i = 0; i < num_devices; ++i) {
    const std::vector<std::string> values = absl::StrSplit(rows[i], ',');
    if (static_cast<int>(values.size()) != num_devices) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": row ", i, " has ", values.size(), " values, needs ", num_devices));
    }
    std::vector<double>& row = matrix.latency_us_.emplace_back();
    for (int j = 0; j < num_devices; ++j) {
      double value = 0.0;
      if (!absl::SimpleAtod(absl::StripAsciiWhitespace(values[j]), &value) ||
          !std::isfinite(value) || value < 0.0) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ": entry [", i, "][", j, "] \"", values[j],
                         "\" is not a non-negative number of microseconds"));
      }
      row.push_back(value);
    }
  }
  return matrix;
}

}  // namespace shardplan::oper
