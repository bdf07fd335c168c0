#include "planner/domain/fetch_cost.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace shardplan {

FetchCostMatrix FetchCostMatrix::OfTopology(const Topology& topology) {
  const int devices = topology.num_devices();
  const size_t entries = static_cast<size_t>(devices) * devices;
  FetchCostMatrix matrix;
  matrix.n_ = devices;
  matrix.us_per_byte_.assign(entries, 0.0);
  if (topology.fetch_cost_us.size() == entries && entries > 0) {
    matrix.latency_us_ = topology.fetch_cost_us;
    return matrix;
  }
  matrix.latency_us_.assign(entries, 0.0);
  const auto us_per_byte = [](double gibps) { return 1e6 / (gibps * kBytesPerGiB); };
  for (int i = 0; i < devices; ++i) {
    for (int j = 0; j < devices; ++j) {
      if (i == j) continue;
      const bool same_host = topology.host_of(i) == topology.host_of(j);
      const size_t k = static_cast<size_t>(i) * devices + j;
      matrix.latency_us_[k] =
          same_host ? topology.intra_host_latency_us : topology.inter_host_latency_us;
      matrix.us_per_byte_[k] = us_per_byte(same_host ? topology.intra_host_bandwidth_gibps
                                                     : topology.inter_host_bandwidth_gibps);
    }
  }
  return matrix;
}

absl::StatusOr<std::vector<double>> FetchCostMatrix::ParseRows(const std::string& text,
                                                               int num_devices,
                                                               const std::string& field) {
  const std::vector<std::string> rows = absl::StrSplit(text, ';');
  if (static_cast<int>(rows.size()) != num_devices) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": needs ", num_devices, " rows (one per device, split by ';'), got ", rows.size()));
  }
  std::vector<double> costs;
  costs.reserve(static_cast<size_t>(num_devices) * num_devices);
  for (int i = 0; i < num_devices; ++i) {
    const std::vector<std::string> values = absl::StrSplit(rows[i], ',');
    if (static_cast<int>(values.size()) != num_devices) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": row ", i, " has ", values.size(), " values, needs ", num_devices));
    }
    for (int j = 0; j < num_devices; ++j) {
      double value = 0.0;
      if (!absl::SimpleAtod(absl::StripAsciiWhitespace(values[j]), &value) ||
          !std::isfinite(value) || value < 0.0) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ": entry [", i, "][", j, "] \"", values[j],
                         "\" is not a non-negative number of microseconds"));
      }
      costs.push_back(value);
    }
  }
  return costs;
}

}  // namespace shardplan
