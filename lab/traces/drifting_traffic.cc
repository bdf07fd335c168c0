#include "lab/traces/drifting_traffic.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "base/seeded_rng.h"

namespace shardplan::traces {
namespace {

std::vector<double> ZipfCdf(int64_t n, double exponent) {
  std::vector<double> cdf(static_cast<size_t>(n));
  double total = 0.0;
  for (int64_t r = 0; r < n; ++r) {
    total += std::pow(static_cast<double>(r + 1), -exponent);
    cdf[r] = total;
  }
  return cdf;
}

int64_t SampleCdf(const std::vector<double>& cdf, std::mt19937_64& rng) {
  const double u = Uniform01(rng) * cdf.back();
  return std::min<int64_t>(std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin(),
                           static_cast<int64_t>(cdf.size()) - 1);
}

}  // namespace

DriftingTraffic::DriftingTraffic(const DriftingTrafficOptions& options)
    : options_(options), rng_(options.seed) {}

absl::StatusOr<DriftingTraffic> DriftingTraffic::Create(const DriftingTrafficOptions& o) {
  auto bad = [](const char* field, auto value, const char* range) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": ", value, " must be ", range));
  };
  if (o.fields < 1 || o.fields > 4096) return bad("fields", o.fields, "in [1, 4096]");
  if (o.rows_per_field < 2 || o.rows_per_field >= kMaxRowKeyRows) {
    return bad("rows_per_field", o.rows_per_field, "in [2, 2^44)");
  }
  if (o.row_bytes < 1) return bad("row_bytes", o.row_bytes, ">= 1");
  if (o.groups < 1) return bad("groups", o.groups, ">= 1");
  if (!(o.group_exponent >= 0.0 && o.group_exponent <= 4.0)) {
    return bad("group_exponent", o.group_exponent, "in [0, 4]");
  }
  if (!(o.id_exponent >= 0.0 && o.id_exponent <= 4.0)) {
    return bad("id_exponent", o.id_exponent, "in [0, 4]");
  }
  if (!(o.noise_share >= 0.0 && o.noise_share <= 1.0)) {
    return bad("noise_share", o.noise_share, "in [0, 1]");
  }
  if (!(o.redraw_share >= 0.0 && o.redraw_share <= 1.0)) {
    return bad("redraw_share", o.redraw_share, "in [0, 1]");
  }
  if (o.drift_every < 0) return bad("drift_every", o.drift_every, ">= 0");
  DriftingTraffic traffic(o);
  for (int f = 0; f < o.fields; ++f) {
    traffic.tables_.push_back(RowSpaceTable{
        .name = absl::StrCat("f", f), .rows = o.rows_per_field, .row_bytes = o.row_bytes});
    const uint64_t mix = MixSeed(o.seed, static_cast<uint64_t>(f));
    uint64_t a = 1 + SplitMix64(mix) % static_cast<uint64_t>(o.rows_per_field - 1);
    while (std::gcd(a, static_cast<uint64_t>(o.rows_per_field)) != 1) ++a;
    traffic.rank_multiplier_.push_back(a);
    traffic.rank_offset_.push_back(SplitMix64(mix + 1) % static_cast<uint64_t>(o.rows_per_field));
  }
  traffic.group_cdf_ = ZipfCdf(o.groups, o.group_exponent);
  traffic.id_cdf_ = ZipfCdf(o.rows_per_field, o.id_exponent);
  traffic.group_rows_.resize(static_cast<size_t>(o.groups) * o.fields);
  const uint64_t group_seed = MixSeed(o.seed, 0x9b0u);
  for (int64_t g = 0; g < o.groups; ++g) {
    for (int f = 0; f < o.fields; ++f) {
      const uint64_t h = SplitMix64(MixSeed(group_seed, static_cast<uint64_t>(g)) + f);
      traffic.group_rows_[g * o.fields + f] =
          static_cast<int64_t>(h % static_cast<uint64_t>(o.rows_per_field));
    }
  }
  return traffic;
}

int64_t DriftingTraffic::NoiseRow(int field) {
  const uint64_t rank = static_cast<uint64_t>(SampleCdf(id_cdf_, rng_));
  // (a r + b) mod rows without overflow: rows < 2^44 and a < rows, so reduce in 128 bits.
  const unsigned __int128 product =
      static_cast<unsigned __int128>(rank_multiplier_[field]) * rank + rank_offset_[field];
  return static_cast<int64_t>(product % static_cast<uint64_t>(options_.rows_per_field));
}

void DriftingTraffic::Drift() {
  ++drifts_;
  std::mt19937_64 rng = SampleRng(MixSeed(options_.seed, 0xd71f7u), drifts_);
  std::vector<int64_t> redrawn;
  for (int64_t g = 0; g < options_.groups; ++g) {
    if (Uniform01(rng) < options_.redraw_share) redrawn.push_back(g);
  }
  const int fields = options_.fields;
  for (int f = 0; f < fields; ++f) {
    for (int64_t i = static_cast<int64_t>(redrawn.size()) - 1; i > 0; --i) {
      const int64_t j = static_cast<int64_t>(UniformBelow(rng, static_cast<uint64_t>(i) + 1));
      std::swap(group_rows_[redrawn[i] * fields + f], group_rows_[redrawn[j] * fields + f]);
    }
  }
}

void DriftingTraffic::Next(std::vector<uint64_t>& request) {
  if (options_.drift_every > 0 && requests_ > 0 && requests_ % options_.drift_every == 0) Drift();
  ++requests_;
  const int64_t group = SampleCdf(group_cdf_, rng_);
  request.resize(options_.fields);
  for (int f = 0; f < options_.fields; ++f) {
    const bool noise = Uniform01(rng_) < options_.noise_share;
    request[f] = PackRowKey(f, noise ? NoiseRow(f) : group_rows_[group * options_.fields + f]);
  }
}

}  // namespace shardplan::traces
