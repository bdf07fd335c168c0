#ifndef SHARDPLAN_LAB_TRACES_DRIFTING_TRAFFIC_H_
#define SHARDPLAN_LAB_TRACES_DRIFTING_TRAFFIC_H_

// Synthetic inference traffic whose co-occurrence drifts (docs/alis.md, "Drifting traces"):
// `fields` tables (one lookup each per request, as a CTR sample's categorical fields) of
// `rows_per_field` rows. Planted groups of rows are requested together: a request picks a group
// (Zipf over groups), and each field looks up the group's row, or with probability noise_share
// an independent Zipf-distributed id of that field (the hot ids every request shares). Every
// `drift_every` requests, a seeded `redraw_share` of the groups are re-drawn: in every field,
// those groups' rows are shuffled among them (a seeded permutation per field). The rows are
// still requested, as often, but with new partners: what was requested together is no longer,
// and a row's history points to its old partners' shard (the paper's Fig. 3b situation).
//
// A group's first rows are uniform over the field's rows (a hash of (seed, group, field)).
// Zipf ranks map to rows by a seeded bijection per field (rank r -> (a r + b) mod rows), so
// hot ids are not the low ids.

#include <cstdint>
#include <random>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/domain/row_shard_map.h"

namespace shardplan::traces {

struct DriftingTrafficOptions {
  int fields = 26;  // Criteo's 26 categorical fields (papers/notes/alis.md s5)
  int64_t rows_per_field = 20000;
  int64_t row_bytes = 64;  // dim 16, fp32: the paper's models
  int64_t groups = 5000;
  double group_exponent = 1.0;  // Zipf over groups
  double noise_share = 0.1;
  double id_exponent = 1.05;     // Zipf over a field's ids, for noise lookups
  int64_t drift_every = 100000;  // requests between drifts (0: never)
  double redraw_share = 0.3;
  uint64_t seed = 0;
};

class DriftingTraffic {
 public:
  // INVALID_ARGUMENT naming the field: fields outside [1, 4096], rows_per_field < 2, row_bytes
  // < 1, groups < 1, exponents outside [0, 4], shares outside [0, 1], drift_every < 0.
  static absl::StatusOr<DriftingTraffic> Create(const DriftingTrafficOptions& options);

  // The tables: "f0", "f1", ..., each rows_per_field rows of row_bytes.
  const std::vector<RowSpaceTable>& tables() const { return tables_; }
  // The next request's keys (one per field) into `request`.
  void Next(std::vector<uint64_t>& request);
  int64_t requests() const { return requests_; }
  // Drifts so far (the groups re-drawn `drifts()` times).
  int64_t drifts() const { return drifts_; }

 private:
  explicit DriftingTraffic(const DriftingTrafficOptions& options);
  void Drift();
  int64_t NoiseRow(int field);

  DriftingTrafficOptions options_;
  std::vector<RowSpaceTable> tables_;
  std::vector<double> group_cdf_;          // cumulative Zipf weights over groups
  std::vector<double> id_cdf_;             // cumulative Zipf weights over a field's ranks
  std::vector<uint64_t> rank_multiplier_;  // per field: a, coprime with rows
  std::vector<uint64_t> rank_offset_;      // per field: b
  std::vector<int64_t> group_rows_;        // [group x fields + field]
  std::mt19937_64 rng_;
  int64_t requests_ = 0;
  int64_t drifts_ = 0;
};

}  // namespace shardplan::traces

#endif  // SHARDPLAN_LAB_TRACES_DRIFTING_TRAFFIC_H_
