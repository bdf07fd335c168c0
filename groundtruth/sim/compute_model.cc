#include "groundtruth/sim/compute_model.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "groundtruth/sim/access_model.h"
#include "planner/domain/sharding_semantics.h"  // OutputsPerSample

namespace shardplan {
namespace {

constexpr double kIndexBytes = 8.0;     // int64 indices and offsets
constexpr double kPositionBytes = 4.0;  // int32 (bag, lookup) info sorted with the indices
constexpr double kOutputBytes = 4.0;    // fp32 pooled outputs and their gradients
constexpr int kRadixBitsPerPass = 8;    // CUB onesweep radix sort digit
// linearize, memset, radix sort (histogram + up to 4 passes), run-length encode (2), scan,
// update (long and short segments)
constexpr int kBackwardKernels = 12;
// Warp instructions per lookup: index shuffle, address arithmetic, loop control (fixed), plus a
// load and 4 FMAs per 512 bytes of row (32 lanes x float4).
constexpr double kInstrPerLookup = 12.0;
constexpr double kInstrPerRowChunk = 5.0;
constexpr double kRowChunkBytes = 512.0;
constexpr double kInstrPerDistinctRow = 24.0;  // segment setup and the SGD read-modify-write
// The backward reduces each distinct row's lookups in chunks of up to this many per warp
// (FBGEMM splits long segments over a CTA), so one chunk's chain of dependent gradient loads is
// the shortest the update kernel can take.
constexpr double kLookupsPerWarpChunk = 32.0;

// Per-table quantities the device-level phases sum.
struct TableLoad {
  double lookups = 0.0;
  double sector_row_bytes = 0.0;  // a row as the memory system moves it
  double random_row_bytes = 0.0;  // DRAM time of one random row access, in streamed bytes
  double instr_per_lookup = 0.0;
  double distinct_rows = 0.0;
  double l2_hits = 0.0;
  double output_bytes = 0.0;  // pooled output of the whole batch
};

// max(bandwidth time, latency time, issue time) in ms.
double Roofline(double bandwidth_ms, double latency_ms, double issue_ms) {
  return std::max({bandwidth_ms, latency_ms, issue_ms});
}

// Fills l2_hits: the hottest rows of all tables compete for the usable L2 (hottest first); a
// resident row misses once (L2 flushed before the run) and hits on every further access.
void AssignL2Hits(const HardwareProfile& profile, std::span<const Table> tables,
                  std::vector<TableLoad>& loads) {
  struct Candidate {
    int table;
    AccessClass access;
  };
  std::vector<Candidate> candidates;
  for (size_t t = 0; t < tables.size(); ++t) {
    for (const AccessClass& access : AccessClasses(tables[t], loads[t].lookups)) {
      candidates.push_back({static_cast<int>(t), access});
      loads[t].distinct_rows += access.rows;
    }
  }
  std::stable_sort(
      candidates.begin(), candidates.end(),
      [](const Candidate& a, const Candidate& b) { return a.access.count > b.access.count; });
  double capacity = profile.l2_bytes * profile.l2_usable_fraction;
  for (const Candidate& c : candidates) {
    if (capacity <= 0.0 || c.access.count <= 1.0) break;
    TableLoad& load = loads[c.table];
    const double resident = std::min(c.access.rows, capacity / load.sector_row_bytes);
    capacity -= resident * load.sector_row_bytes;
    load.l2_hits += resident * (c.access.count - 1.0);
  }
}

}  // namespace

ComputeBreakdown SimulateCompute(const HardwareProfile& profile, std::span<const Table> tables,
                                 int64_t batch_size) {
  ComputeBreakdown out;
  if (tables.empty()) return out;
  const double batch = static_cast<double>(std::max<int64_t>(batch_size, 0));
  const double sector = profile.sector_bytes;

  std::vector<TableLoad> loads(tables.size());
  double total_rows = 0.0;
  for (size_t t = 0; t < tables.size(); ++t) {
    const Table& table = tables[t];
    const double row_bytes = static_cast<double>(table.dim) * ElementBytes(table.element_type);
    TableLoad& load = loads[t];
    load.lookups = std::max(0.0, table.pooling_factor) * batch;
    load.sector_row_bytes = std::max(1.0, std::ceil(row_bytes / sector)) * sector;
    load.random_row_bytes = load.sector_row_bytes + profile.random_access_overhead_bytes;
    load.instr_per_lookup =
        kInstrPerLookup + kInstrPerRowChunk * std::ceil(row_bytes / kRowChunkBytes);
    // A sequence table writes every looked-up row (B x L x D), a pooled one a row per sample.
    load.output_bytes = batch * table.dim * kOutputBytes * OutputsPerSample(table);
    total_rows += static_cast<double>(std::max<int64_t>(table.rows, 1));
  }
  AssignL2Hits(profile, tables, loads);

  const double stream_bw =
      GBpsToBytesPerMs(profile.dram_bandwidth_gbps) * profile.stream_efficiency;
  const double sort_bw = GBpsToBytesPerMs(profile.dram_bandwidth_gbps) * profile.sort_efficiency;
  const double l2_bw = GBpsToBytesPerMs(profile.l2_bandwidth_gbps);
  const double in_flight =
      profile.num_sms * profile.max_warps_per_sm * profile.rows_in_flight_per_warp;
  const double dram_latency_ms = profile.dram_latency_ns * 1e-6;
  const double l2_latency_ms = profile.l2_latency_ns * 1e-6;
  const double instr_per_ms =
      profile.num_sms * profile.warp_schedulers_per_sm * profile.sm_clock_ghz * 1e6;
  const double launch_ms = profile.kernel_launch_us * 1e-3;

  double lookups = 0.0, distinct = 0.0, hits = 0.0, misses = 0.0;
  double miss_bytes = 0.0, hit_bytes = 0.0, gathered_bytes = 0.0, output_bytes = 0.0;
  double random_gathered_bytes = 0.0;
  double instr = 0.0, update_bytes = 0.0;
  for (const TableLoad& load : loads) {
    const double table_hits = std::min(load.l2_hits, load.lookups);
    lookups += load.lookups;
    distinct += load.distinct_rows;
    hits += table_hits;
    misses += load.lookups - table_hits;
    hit_bytes += table_hits * load.sector_row_bytes;
    miss_bytes += (load.lookups - table_hits) * load.random_row_bytes;
    gathered_bytes += load.lookups * load.sector_row_bytes;
    random_gathered_bytes += load.lookups * load.random_row_bytes;
    output_bytes += load.output_bytes;
    instr += load.lookups * load.instr_per_lookup;
    update_bytes += 2.0 * load.distinct_rows * load.random_row_bytes;  // read + write
  }
  const double num_tables = static_cast<double>(tables.size());
  out.lookups = lookups;
  out.distinct_rows = distinct;
  out.l2_hit_rate = lookups > 0.0 ? hits / lookups : 0.0;

  // Forward: one fused kernel streams indices and offsets, gathers rows (L2 or DRAM), writes
  // the pooled outputs.
  const double fwd_stream =
      lookups * kIndexBytes + num_tables * (batch + 1) * kIndexBytes + output_bytes;
  const double fwd_bandwidth = fwd_stream / stream_bw + miss_bytes / stream_bw + hit_bytes / l2_bw;
  const double fwd_latency = (misses * dram_latency_ms + hits * l2_latency_ms) / in_flight;
  out.forward_ms = launch_ms + Roofline(fwd_bandwidth, fwd_latency, instr / instr_per_ms);

  // Backward: linearize the indices over the concatenated hash space, radix-sort them with
  // their positions (more rows -> more key bits -> more passes), run-length encode the distinct
  // rows, then per distinct row gather the output gradients of its lookups and apply SGD.
  const int key_bits = static_cast<int>(std::ceil(std::log2(std::max(2.0, total_rows))));
  out.sort_passes = (key_bits + kRadixBitsPerPass - 1) / kRadixBitsPerPass;
  const double linearize = lookups * (2.0 * kIndexBytes + kPositionBytes) / stream_bw;
  const double sort =
      lookups * (kIndexBytes + out.sort_passes * 2.0 * (kIndexBytes + kPositionBytes)) / sort_bw;
  const double encode =
      (lookups * kIndexBytes + distinct * (kIndexBytes + 2 * kPositionBytes)) / stream_bw;
  // Output gradients are hit in L2 as far as the whole gradient tensor fits.
  const double grad_l2_share =
      output_bytes > 0.0
          ? std::min(1.0, profile.l2_bytes * profile.l2_usable_fraction / output_bytes)
          : 1.0;
  const double update_bandwidth = lookups * kPositionBytes / stream_bw +
                                  random_gathered_bytes * (1.0 - grad_l2_share) / stream_bw +
                                  gathered_bytes * grad_l2_share / l2_bw + update_bytes / stream_bw;
  const double grad_latency_ms =
      (1.0 - grad_l2_share) * dram_latency_ms + grad_l2_share * l2_latency_ms;
  const double update_latency =
      std::max((lookups * grad_latency_ms + distinct * dram_latency_ms) / in_flight,
               std::min(lookups, kLookupsPerWarpChunk) * grad_latency_ms);
  const double update_issue = (instr + distinct * kInstrPerDistinctRow) / instr_per_ms;
  out.backward_ms = profile.framework_overhead_us * 1e-3 + kBackwardKernels * launch_ms +
                    linearize + sort + encode +
                    Roofline(update_bandwidth, update_latency, update_issue);
  return out;
}

}  // namespace shardplan
