#include "planner/algorithms/flexshard/flexshard_tiers.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <utility>

#include "absl/strings/str_cat.h"
#include "planner/domain/topology.h"

namespace shardplan::flexshard {
namespace {

using Ranges = std::vector<std::pair<int64_t, int64_t>>;

constexpr double kTrainingMultiplier = 6.0;  // TorchRec's DP estimate, as the paper takes it
constexpr double kInfinity = std::numeric_limits<double>::infinity();

double BytesPerMs(double gibps) { return gibps * kBytesPerGiB / 1000.0; }

// What the arithmetic needs, resolved once.
struct Setup {
  const TierInputs* in = nullptr;
  int devices = 1;  // U
  double local_batch = 0.0;
  double multiplier = kTrainingMultiplier;
  double passes = 2.0;  // all-to-alls per step: forward and backward (training), forward only
  bool training = true;
  std::vector<double> row_bytes;
  double total_lookups = 0.0;

  double P(size_t t, int64_t rank) const {
    return in->tables[t].lookups_per_sample * in->tables[t].curve->ShareOfRank(rank);
  }
  // Sum of p over ranks [begin, end) of table t.
  double SumP(size_t t, int64_t begin, int64_t end) const {
    return in->tables[t].lookups_per_sample * in->tables[t].curve->Share(begin, end);
  }
  double DpMarginalBytes(size_t t, double p) const {
    return (multiplier - 1.0 / devices) * row_bytes[t] - local_batch * p * row_bytes[t];
  }
  double FlexMarginalBytes(size_t t) const {
    return (multiplier / in->devices_per_host - 1.0 / devices) * row_bytes[t];
  }
};

// All tables' rows in descending p (ties: the lower table index, then rank order).
class MergedRows {
 public:
  explicit MergedRows(const Setup& setup) : setup_(setup), next_(setup.in->tables.size(), 0) {
    for (size_t t = 0; t < next_.size(); ++t) Push(t);
  }
  bool done() const { return heap_.empty(); }
  size_t table() const { return heap_.top().table; }
  int64_t rank() const { return next_[heap_.top().table]; }
  double p() const { return heap_.top().p; }
  void Take() {
    const size_t t = heap_.top().table;
    heap_.pop();
    ++next_[t];
    Push(t);
  }
  // Per table, the ranks taken so far end here.
  const std::vector<int64_t>& taken() const { return next_; }

 private:
  struct Head {
    double p;
    size_t table;
    bool operator<(const Head& other) const {
      return p != other.p ? p < other.p : table > other.table;
    }
  };
  void Push(size_t t) {
    if (next_[t] < setup_.in->tables[t].curve->rows()) heap_.push({setup_.P(t, next_[t]), t});
  }
  const Setup& setup_;
  std::vector<int64_t> next_;
  std::priority_queue<Head> heap_;
};

// Per table, the ranks whose p is at least `threshold` (p is non-increasing in rank).
std::vector<int64_t> RanksAtLeast(const Setup& setup, double threshold) {
  std::vector<int64_t> ends;
  for (size_t t = 0; t < setup.in->tables.size(); ++t) {
    int64_t low = 0;
    int64_t high = setup.in->tables[t].curve->rows();  // answer in [low, high]
    while (low < high) {
      const int64_t mid = low + (high - low) / 2;
      if (setup.P(t, mid) >= threshold) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    ends.push_back(low);
  }
  return ends;
}

Tier TierOf(const Setup& setup, const std::vector<int64_t>& begin,
            const std::vector<int64_t>& end) {
  Tier tier;
  for (size_t t = 0; t < begin.size(); ++t) {
    tier.ranks.emplace_back(begin[t], end[t]);
    tier.rows += end[t] - begin[t];
    tier.lookups_per_sample += setup.SumP(t, begin[t], end[t]);
  }
  tier.coverage = setup.total_lookups > 0 ? tier.lookups_per_sample / setup.total_lookups : 0.0;
  return tier;
}

// Sum over tables of `value(t, tier range)` weighted by the row bytes.
template <typename F>
double ByteWeighted(const Setup& setup, const Tier& tier, F value) {
  double sum = 0.0;
  for (size_t t = 0; t < tier.ranks.size(); ++t) {
    sum += setup.row_bytes[t] * value(t, tier.ranks[t].first, tier.ranks[t].second);
  }
  return sum;
}

TierPlan Ledger(const Setup& setup, std::string name, const std::vector<int64_t>& dp_end,
                const std::vector<int64_t>& flex_end) {
  const TierInputs& in = *setup.in;
  std::vector<int64_t> zeros(in.tables.size(), 0), all;
  for (const TierTable& table : in.tables) all.push_back(table.curve->rows());
  TierPlan plan;
  plan.name = std::move(name);
  plan.dp = TierOf(setup, zeros, dp_end);
  plan.flex = TierOf(setup, dp_end, flex_end);
  plan.rw = TierOf(setup, flex_end, all);
  const auto rows = [](size_t, int64_t b, int64_t e) { return static_cast<double>(e - b); };
  const auto lookups = [&](size_t t, int64_t b, int64_t e) { return setup.SumP(t, b, e); };
  const double w = in.devices_per_host;
  const double b = setup.local_batch;

  const double dp_bytes = ByteWeighted(setup, plan.dp, rows);
  const double flex_bytes = ByteWeighted(setup, plan.flex, rows);
  TierMemory& memory = plan.memory;
  for (size_t t = 0; t < in.tables.size(); ++t) {
    memory.row_wise_bytes += setup.row_bytes[t] * (static_cast<double>(all[t]) / setup.devices +
                                                   2.0 * b * in.tables[t].lookups_per_sample);
  }
  memory.replicated_static_bytes = setup.multiplier * (dp_bytes + flex_bytes / w);
  memory.row_wise_static_saved = (dp_bytes + flex_bytes) / setup.devices;
  memory.dynamic_saved = b * ByteWeighted(setup, plan.dp, lookups);
  memory.marginal_bytes =
      memory.replicated_static_bytes - memory.row_wise_static_saved - memory.dynamic_saved;
  plan.within_budget = memory.marginal_bytes <= in.memory_budget_bytes * (1 + 1e-12) + 1e-6;

  const TierBandwidths& bw = in.bandwidths;
  TierComm& comm = plan.comm;
  comm.global_all_to_all_bytes = b * ByteWeighted(setup, plan.rw, lookups);
  comm.intra_all_to_all_bytes = b * ByteWeighted(setup, plan.flex, lookups);
  comm.global_all_reduce_bytes = setup.training ? dp_bytes : 0.0;
  comm.cross_all_reduce_bytes = setup.training ? flex_bytes / w : 0.0;
  comm.global_all_to_all_ms =
      setup.passes * comm.global_all_to_all_bytes / BytesPerMs(bw.all_to_all_global_gibps);
  comm.intra_all_to_all_ms =
      setup.passes * comm.intra_all_to_all_bytes / BytesPerMs(bw.all_to_all_intra_gibps);
  comm.global_all_reduce_ms =
      comm.global_all_reduce_bytes / BytesPerMs(bw.all_reduce_global_gibps);
  comm.cross_all_reduce_ms = comm.cross_all_reduce_bytes / BytesPerMs(bw.all_reduce_cross_gibps);
  comm.non_overlappable_ms = comm.global_all_to_all_ms + comm.global_all_reduce_ms;
  double row_wise_all_to_all = 0.0;
  for (size_t t = 0; t < in.tables.size(); ++t) {
    row_wise_all_to_all += b * setup.row_bytes[t] * in.tables[t].lookups_per_sample;
  }
  comm.all_to_all_reduction =
      row_wise_all_to_all > 0 ? 1.0 - comm.global_all_to_all_bytes / row_wise_all_to_all : 0.0;
  return plan;
}

ParetoPoint PointOf(const Setup& setup, std::string label, const std::vector<int64_t>& dp_end) {
  const TierPlan plan = Ledger(setup, "", dp_end, dp_end);
  const TierPlan row_wise =
      Ledger(setup, "", std::vector<int64_t>(dp_end.size(), 0),
             std::vector<int64_t>(dp_end.size(), 0));
  return ParetoPoint{.label = std::move(label),
                     .dp_rows = plan.dp.rows,
                     .coverage = plan.dp.coverage,
                     .marginal_memory_bytes = plan.memory.marginal_bytes,
                     .marginal_comm_ms =
                         plan.comm.non_overlappable_ms - row_wise.comm.non_overlappable_ms};
}

// DP'ing rows in merged order: every row down to p_mem (they save memory), then further rows
// while the marginal memory stays within `budget` (and, with `stop_at_comm`, while they save
// communication). Returns the per-table ends.
std::vector<int64_t> TwoTierEnds(const Setup& setup, double budget, bool stop_at_comm,
                                 const Breakpoints& breakpoints) {
  MergedRows rows(setup);
  double marginal = 0.0;
  while (!rows.done()) {
    const double p = rows.p();
    const double delta = setup.DpMarginalBytes(rows.table(), p);
    if (p < breakpoints.memory) {
      if (marginal + delta > budget || p <= 0.0) break;
      if (stop_at_comm && p < breakpoints.dp_comm) break;
    }
    marginal += delta;
    rows.Take();
  }
  return rows.taken();
}

absl::Status CheckInputs(const TierInputs& in) {
  if (in.tables.empty()) return absl::InvalidArgumentError("tables: at least one table");
  for (size_t t = 0; t < in.tables.size(); ++t) {
    const TierTable& table = in.tables[t];
    const std::string path = absl::StrCat("tables[", t, "] (", table.name, ")");
    if (table.curve == nullptr || table.curve->rows() < 1) {
      return absl::InvalidArgumentError(absl::StrCat(path, ".curve: needs a curve of >= 1 row"));
    }
    if (!(table.lookups_per_sample >= 0) || !std::isfinite(table.lookups_per_sample)) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ".lookups_per_sample: must be finite and >= 0, got ",
                       table.lookups_per_sample));
    }
    if (table.dim < 1 || table.element_bytes < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": dim and element_bytes must be >= 1, got ", table.dim, " and ",
                       table.element_bytes));
    }
  }
  if (in.hosts < 1 || in.devices_per_host < 1) {
    return absl::InvalidArgumentError(absl::StrCat("hosts and devices_per_host must be >= 1, got ",
                                                   in.hosts, " and ", in.devices_per_host));
  }
  if (in.local_batch < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("local_batch: must be >= 1 sample per device, got ", in.local_batch));
  }
  if (in.replicated_memory_multiplier < 0 || !std::isfinite(in.memory_budget_bytes)) {
    return absl::InvalidArgumentError(
        "replicated_memory_multiplier must be >= 0 and memory_budget_bytes finite");
  }
  const TierBandwidths& bw = in.bandwidths;
  for (double gibps : {bw.all_to_all_global_gibps, bw.all_to_all_intra_gibps,
                       bw.all_reduce_global_gibps, bw.all_reduce_cross_gibps}) {
    if (!(gibps > 0) || !std::isfinite(gibps)) {
      return absl::InvalidArgumentError(
          absl::StrCat("bandwidths: every bandwidth must be > 0 GiB/s, got ", gibps));
    }
  }
  return absl::OkStatus();
}

Setup SetupOf(const TierInputs& in) {
  Setup setup;
  setup.in = &in;
  setup.devices = in.hosts * in.devices_per_host;
  setup.local_batch = static_cast<double>(in.local_batch);
  setup.training = in.objective == Objective::kTraining;
  setup.passes = setup.training ? 2.0 : 1.0;
  setup.multiplier = in.replicated_memory_multiplier > 0 ? in.replicated_memory_multiplier
                     : setup.training                    ? kTrainingMultiplier
                                                         : 1.0;
  for (const TierTable& table : in.tables) {
    setup.row_bytes.push_back(static_cast<double>(table.dim) * table.element_bytes);
    setup.total_lookups += table.lookups_per_sample;
  }
  return setup;
}

}  // namespace

absl::StatusOr<TierPlan> RoundedToDevices(const TierInputs& in, const TierPlan& plan) {
  if (absl::Status status = CheckInputs(in); !status.ok()) return status;
  const size_t n = in.tables.size();
  if (plan.dp.ranks.size() != n || plan.flex.ranks.size() != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "plan: ", plan.name, " has tier ranks for ", plan.dp.ranks.size(), " and ",
        plan.flex.ranks.size(), " tables, the inputs ", n));
  }
  const Setup setup = SetupOf(in);
  const int64_t u = setup.devices;
  std::vector<int64_t> dp_ends, flex_ends;
  for (size_t t = 0; t < n; ++t) {
    const int64_t dp_rows = plan.dp.ranks[t].second - plan.dp.ranks[t].first;
    const int64_t flex_rows = plan.flex.ranks[t].second - plan.flex.ranks[t].first;
    dp_ends.push_back(dp_rows / u * u);
    flex_ends.push_back(dp_ends.back() + flex_rows / u * u);
  }
  return Ledger(setup, plan.name, dp_ends, flex_ends);
}

absl::StatusOr<TierResult> ComputeTiers(const TierInputs& in) {
  if (absl::Status status = CheckInputs(in); !status.ok()) return status;
  const Setup setup = SetupOf(in);

  TierResult result;
  result.multiplier = setup.multiplier;
  const TierBandwidths& bw = in.bandwidths;
  const double u = setup.devices;
  const double w = in.devices_per_host;
  Breakpoints& breakpoints = result.breakpoints;
  breakpoints.memory = (setup.multiplier - 1.0 / u) / setup.local_batch;
  // DP adds rb / ar_global (backward) and removes passes * B * p * rb / a2a_global.
  breakpoints.dp_comm = setup.training ? bw.all_to_all_global_gibps /
                                             (setup.passes * setup.local_batch *
                                              bw.all_reduce_global_gibps)
                                       : 0.0;
  // Flex adds (rb / W) / ar_cross and swaps the global all-to-all for the intra-host one.
  const double a2a_saving = 1.0 / bw.all_to_all_global_gibps - 1.0 / bw.all_to_all_intra_gibps;
  breakpoints.flex_comm =
      a2a_saving <= 0 ? kInfinity
      : setup.training
          ? 1.0 / (setup.passes * setup.local_batch * w * bw.all_reduce_cross_gibps * a2a_saving)
          : 0.0;

  const size_t n = in.tables.size();
  std::vector<int64_t> all;
  for (const TierTable& table : in.tables) all.push_back(table.curve->rows());
  const std::vector<int64_t> a_ends = RanksAtLeast(setup, breakpoints.memory);
  const std::vector<int64_t> b_ends = TwoTierEnds(setup, 0.0, false, breakpoints);
  std::vector<int64_t> c_ends = RanksAtLeast(setup, breakpoints.dp_comm);
  if (breakpoints.dp_comm <= 0) c_ends = RanksAtLeast(setup, std::numeric_limits<double>::min());
  result.points = {PointOf(setup, "A", a_ends), PointOf(setup, "B", b_ends),
                   PointOf(setup, "C", c_ends), PointOf(setup, "D", all)};

  // The curve: DP rows sampled by p threshold (geometric) between the hottest row and
  // min(p at B, p_comm), each sample the rows at or above it.
  double p_top = 0.0;
  for (size_t t = 0; t < n; ++t) p_top = std::max(p_top, setup.P(t, 0));
  double p_low = breakpoints.dp_comm > 0 ? breakpoints.dp_comm : breakpoints.memory;
  for (size_t t = 0; t < n; ++t) {
    if (b_ends[t] > 0) p_low = std::min(p_low, setup.P(t, b_ends[t] - 1));
  }
  if (p_top > 0 && p_low > 0 && p_low < p_top) {
    for (int i = 0; i <= kParetoCurveSamples; ++i) {
      const double threshold =
          p_top * std::pow(p_low / p_top, static_cast<double>(i) / kParetoCurveSamples);
      result.pareto_curve.push_back(PointOf(setup, "", RanksAtLeast(setup, threshold)));
    }
  }

  // 2-tier: DP to the budget (point B when memory-neutral), never past p_comm.
  const std::vector<int64_t> two_tier_ends =
      TwoTierEnds(setup, in.memory_budget_bytes, true, breakpoints);
  result.two_tier = Ledger(setup, "2-tier", two_tier_ends, two_tier_ends);

  // 3-tier: DP to point A, then Flex while the budget lasts (and, when asked, while a row still
  // saves communication against RW).
  MergedRows rows(setup);
  double marginal = 0.0;
  while (!rows.done() && rows.p() >= breakpoints.memory) {
    marginal += setup.DpMarginalBytes(rows.table(), rows.p());
    rows.Take();
  }
  const std::vector<int64_t> dp_ends = rows.taken();
  while (!rows.done() && rows.p() > 0) {
    const double delta = setup.FlexMarginalBytes(rows.table());
    if (marginal + delta > in.memory_budget_bytes) break;
    if (in.cut_flex_at_comm_breakpoint && rows.p() < breakpoints.flex_comm) break;
    marginal += delta;
    rows.Take();
  }
  result.three_tier = Ledger(setup, "3-tier", dp_ends, rows.taken());
  return result;
}

}  // namespace shardplan::flexshard
