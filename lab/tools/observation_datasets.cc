#include "lab/tools/observation_datasets.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/exit_codes.h"
#include "base/seeded_rng.h"
#include "base/status_macros.h"
#include "lab/data/generators.h"

namespace shardplan::offline {
namespace {

using nlohmann::json;

absl::Status CheckStop(const ObservationOptions& options) {
  if (options.stop != nullptr && options.stop->load(std::memory_order_relaxed)) {
    return InterruptedError("interrupted; the observation files were not written");
  }
  return absl::OkStatus();
}

json Header(const HardwareBackend& backend, int observation, const ObservationOptions& options) {
  return json{{"observation", observation},
              {"backend", backend.name()},
              {"hardware_profile", backend.hardware_profile()},
              {"batch_size", options.batch_size},
              {"seed", options.seed}};
}

absl::StatusOr<double> MeasureOne(HardwareBackend& backend, const TablePool& pool, int32_t index,
                                  int32_t dim, int64_t batch_size) {
  const Table table = PoolTableWithDim(pool, AugmentedTable{index, dim});
  return backend.MeasureCompute(std::span<const Table>(&table, 1), batch_size);
}

}  // namespace

std::vector<int32_t> DefaultSweepDims() {
  std::vector<int32_t> dims = {4};
  for (int32_t dim = 8; dim <= 128; dim += 8) dims.push_back(dim);
  return dims;
}

absl::StatusOr<json> MeasureObservation1(HardwareBackend& backend, const TablePool& pool,
                                         const ObservationOptions& options) {
  // Tables ordered by lookup traffic (rows x pooling factor), picked at fixed quantiles, so the
  // figure spans light to heavy tables whatever the pool.
  std::vector<int32_t> order(pool.tables.size());
  std::iota(order.begin(), order.end(), 0);
  const auto weight = [&pool](int32_t i) {
    return static_cast<double>(pool.tables[i].rows) * pool.tables[i].pooling_factor;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return weight(a) < weight(b); });
  json result = Header(backend, 1, options);
  result["tables"] = json::array();
  for (double quantile : options.table_quantiles) {
    const size_t at = std::min(order.size() - 1,
                               static_cast<size_t>(quantile * static_cast<double>(order.size())));
    const int32_t index = order[at];
    const Table& table = pool.tables[index];
    json entry{{"pool_index", index},
               {"name", table.name},
               {"rows", table.rows},
               {"pooling_factor", table.pooling_factor},
               {"points", json::array()}};
    std::vector<std::pair<int32_t, double>> costs;
    for (int32_t dim : options.sweep_dims) {
      SHARDPLAN_RETURN_IF_ERROR(CheckStop(options));
      SHARDPLAN_ASSIGN_OR_RETURN(const double ms,
                                 MeasureOne(backend, pool, index, dim, options.batch_size));
      costs.emplace_back(dim, ms);
      entry["points"].push_back({{"dim", dim}, {"ms", ms}});
    }
    // Column-wise halves: each half is the same table at dim/2, measured alone.
    entry["splits"] = json::array();
    for (const auto& [dim, ms] : costs) {
      if (dim % 2 != 0) continue;
      double half_ms = -1;
      for (const auto& [other, other_ms] : costs) {
        if (other == dim / 2) half_ms = other_ms;
      }
      if (half_ms < 0) continue;
      entry["splits"].push_back({{"dim", dim}, {"whole_ms", ms}, {"half_ms", half_ms}});
    }
    result["tables"].push_back(std::move(entry));
  }
  return result;
}

absl::StatusOr<json> MeasureObservation2(HardwareBackend& backend, const TablePool& pool,
                                         const ObservationOptions& options) {
  json result = Header(backend, 2, options);
  result["combinations"] = json::array();
  const int32_t count = options.tables_per_combination;
  if (count < 1 || static_cast<size_t>(count) > pool.tables.size() || options.dims.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "observation 2: tables_per_combination is ", count, ", needs 1..", pool.tables.size(),
        " (the pool's size), and the dim grid has ", options.dims.size(), " dims (needs >= 1)"));
  }
  for (int64_t i = 0; i < options.combinations; ++i) {
    SHARDPLAN_RETURN_IF_ERROR(CheckStop(options));
    // `count` distinct tables (a partial Fisher-Yates shuffle), dims uniform over the grid;
    // the whole draw repeated until the weights fit one device, as for the compute data.
    std::mt19937_64 rng = SampleRng(options.seed, static_cast<uint64_t>(i));
    std::vector<AugmentedTable> drawn;
    for (int attempt = 0;; ++attempt) {
      if (attempt == 10000) {
        return absl::ResourceExhaustedError(
            "observation 2: no combination fits the device memory after 10000 draws");
      }
      std::vector<int32_t> ids(pool.tables.size());
      std::iota(ids.begin(), ids.end(), 0);
      drawn.clear();
      int64_t bytes = 0;
      for (int32_t k = 0; k < count; ++k) {
        const int64_t pick = UniformInt(rng, k, static_cast<int64_t>(ids.size()) - 1);
        std::swap(ids[k], ids[pick]);
        const int32_t dim = options.dims[UniformInt(rng, 0, options.dims.size() - 1)];
        drawn.push_back(AugmentedTable{ids[k], dim});
        bytes += Fp32TableBytes(pool.tables[ids[k]].rows, dim);
      }
      if (bytes <= options.device_memory_bytes) break;
    }
    std::vector<Table> tables;
    json ids = json::array();
    json singles = json::array();
    double sum_single = 0;
    for (const AugmentedTable& entry : drawn) {
      tables.push_back(PoolTableWithDim(pool, entry));
      ids.push_back({entry.pool_index, entry.dim});
      SHARDPLAN_ASSIGN_OR_RETURN(const double ms, MeasureOne(backend, pool, entry.pool_index,
                                                             entry.dim, options.batch_size));
      singles.push_back(ms);
      sum_single += ms;
    }
    SHARDPLAN_ASSIGN_OR_RETURN(const double multi,
                               backend.MeasureCompute(tables, options.batch_size));
    result["combinations"].push_back({{"tables", std::move(ids)},
                                      {"single_ms", std::move(singles)},
                                      {"sum_single_ms", sum_single},
                                      {"multi_ms", multi}});
  }
  return result;
}

absl::StatusOr<json> MeasureObservation3(const BackendFactory& backend_for,
                                         const ObservationOptions& options) {
  json result;
  result["observation"] = 3;
  result["batch_size"] = options.batch_size;
  result["seed"] = options.seed;
  result["device_counts"] = json::array();
  for (int32_t devices : options.device_counts) {
    SHARDPLAN_ASSIGN_OR_RETURN(std::unique_ptr<HardwareBackend> backend, backend_for(devices));
    result["backend"] = backend->name();
    result["hardware_profile"] = backend->hardware_profile();
    PlacementOptions placement;
    placement.num_devices = devices;
    placement.dims = options.dims;
    placement.min_tables = options.tables_per_device * devices;
    placement.max_tables = placement.min_tables;
    json points = json::array();
    const std::vector<double> no_offsets(static_cast<size_t>(devices), 0.0);
    for (int64_t i = 0; i < options.placements; ++i) {
      SHARDPLAN_RETURN_IF_ERROR(CheckStop(options));
      SHARDPLAN_ASSIGN_OR_RETURN(
          const PlacementSample sample,
          GeneratePlacement(placement, options.seed, static_cast<uint64_t>(i)));
      SHARDPLAN_ASSIGN_OR_RETURN(
          const CommMeasurement measured,
          backend->MeasureComm(/*topology=*/nullptr, sample.dim_sums, no_offsets,
                               options.batch_size));
      points.push_back(
          {{"dim_sums", sample.dim_sums},
           {"max_dim_sum", *std::max_element(sample.dim_sums.begin(), sample.dim_sums.end())},
           {"max_forward_ms",
            *std::max_element(measured.forward_ms.begin(), measured.forward_ms.end())},
           {"max_backward_ms",
            *std::max_element(measured.backward_ms.begin(), measured.backward_ms.end())}});
    }
    result["device_counts"].push_back({{"num_devices", devices}, {"points", std::move(points)}});
  }
  return result;
}

}  // namespace shardplan::offline
