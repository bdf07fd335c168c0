#include "costmodels/neural/neural_cost_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shardplan {
namespace {

// Per-thread buffers reused across calls: after a thread's first calls of a given size, the
// hot path does not allocate. Cost models are shared by many threads, so nothing here may live
// in the model.
struct ComputeScratch {
  std::vector<float> mlp;     // Mlp scratch
  std::vector<float> latent;  // one table latent
  std::vector<float> sum;     // the sum-pooled latent
  std::vector<int64_t> call_keys;  // the kernel calls of a device (kPerKernelCall)
};

ComputeScratch& ThreadComputeScratch() {
  thread_local ComputeScratch scratch;
  return scratch;
}

std::vector<float>& ThreadCommScratch() {
  thread_local std::vector<float> scratch;
  return scratch;
}

void Grow(std::vector<float>& v, size_t n) {
  if (v.size() < n) v.resize(n);
}

}  // namespace

const char* ComputeCallsName(ComputeCalls calls) {
  return calls == ComputeCalls::kPerKernelCall ? "kernel_call" : "device";
}

bool ParseComputeCalls(std::string_view name, ComputeCalls* calls) {
  if (name == "device") {
    *calls = ComputeCalls::kOnePerDevice;
  } else if (name == "kernel_call") {
    *calls = ComputeCalls::kPerKernelCall;
  } else {
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// NeuralComputeModel

absl::StatusOr<NeuralComputeModel> NeuralComputeModel::Create(FeatureNormalizer normalizer,
                                                              Mlp table_mlp, Mlp pred_mlp,
                                                              size_t latent_memo_capacity,
                                                              FeatureTransform transform,
                                                              ShardFeatureSet features,
                                                              ComputeCalls calls) {
  if (calls == ComputeCalls::kPerKernelCall && features != ShardFeatureSet::kServed) {
    // Only the served features tell a row block or a replica from its whole table.
    return absl::InvalidArgumentError(
        "compute model: per-kernel-call costs need the served feature set");
  }
  const int inputs = NumShardFeatures(features);
  if (normalizer.size() != inputs || table_mlp.input_size() != inputs) {
    return absl::InvalidArgumentError(absl::StrCat(
        "compute model: ", normalizer.size(), " normaliser entries and a table MLP of ",
        table_mlp.input_size(), " inputs; need ", inputs, " of each (feature set ",
        ShardFeatureSetName(features), ")"));
  }
  if (!table_mlp.relu_on_output()) {
    return absl::InvalidArgumentError(
        "compute model: the table MLP must end with ReLU, as the reference's does");
  }
  if (pred_mlp.input_size() != table_mlp.output_size() || pred_mlp.output_size() != 1 ||
      pred_mlp.relu_on_output()) {
    return absl::InvalidArgumentError(
        absl::StrCat("compute model: the pred MLP is ", pred_mlp.input_size(), "->",
                     pred_mlp.output_size(), pred_mlp.relu_on_output() ? " with" : " without",
                     " output ReLU; need ", table_mlp.output_size(), "->1 without"));
  }
  std::shared_ptr<LatentMemo> memo;
  if (latent_memo_capacity > 0) {
    memo = std::make_shared<LatentMemo>(latent_memo_capacity, table_mlp.output_size());
  }
  return NeuralComputeModel(std::move(normalizer), std::move(table_mlp), std::move(pred_mlp),
                            std::move(memo), transform, features, calls);
}

NeuralComputeModel::NeuralComputeModel(FeatureNormalizer normalizer, Mlp table_mlp, Mlp pred_mlp,
                                       std::shared_ptr<LatentMemo> memo, FeatureTransform transform,
                                       ShardFeatureSet features, ComputeCalls calls)
    : normalizer_(std::move(normalizer)),
      table_mlp_(std::move(table_mlp)),
      pred_mlp_(std::move(pred_mlp)),
      memo_(std::move(memo)),
      transform_(transform),
      features_(features),
      calls_(calls) {}

void NeuralComputeModel::LatentOfFeatures(const LatentMemo::Key& raw,
                                          std::span<float> latent) const {
  ComputeScratch& s = ThreadComputeScratch();
  Grow(s.mlp, std::max(table_mlp_.scratch_size(), pred_mlp_.scratch_size()));
  LatentMemo::Key features = raw;
  TransformFeatures(transform_, std::span<float>(features).first<kNumTableFeatures>());
  normalizer_.Apply(features);
  table_mlp_.Forward(features.data(), 1, latent.data(), s.mlp);
}

void NeuralComputeModel::LatentOfKey(const LatentMemo::Key& raw, std::span<float> latent) const {
  if (memo_ != nullptr && memo_->Find(raw, latent)) return;
  LatentOfFeatures(raw, latent);
  if (memo_ != nullptr) memo_->Insert(raw, latent);
}

void NeuralComputeModel::TableLatent(const Table& table, int32_t columns,
                                     std::span<float> latent) const {
  ShardLatentOf(ShardView{.table = &table, .rows = table.rows, .columns = columns}, latent);
}

void NeuralComputeModel::ShardLatentOf(const ShardView& shard, std::span<float> latent) const {
  LatentMemo::Key raw{};
  if (features_ == ShardFeatureSet::kServed && shard.rows <= 0 && !IsColumnLevel(shard.sharding) &&
      shard.sharding != ShardingType::kDataParallel) {
    // An empty block of rows serves nothing and runs no kernel (the simulator leaves it out).
    std::fill(latent.begin(), latent.end(), 0.0f);
    return;
  }
  if (features_ == ShardFeatureSet::kServed) {
    ServedShardFeatures(shard, std::span<float>(raw).first<kNumServedFeatures>());
  } else {
    TableFeatures(*shard.table, shard.columns, std::span<float>(raw).first<kNumTableFeatures>());
  }
  LatentOfKey(raw, latent);
}

double NeuralComputeModel::PredictFromLatentSum(std::span<const float> latent_sum) const {
  ComputeScratch& s = ThreadComputeScratch();
  Grow(s.mlp, std::max(table_mlp_.scratch_size(), pred_mlp_.scratch_size()));
  float out = 0.0f;
  pred_mlp_.Forward(latent_sum.data(), 1, &out, s.mlp);
  return out;
}

double NeuralComputeModel::Predict(std::span<const ShardView> shards) const {
  ComputeScratch& s = ThreadComputeScratch();
  const size_t k = static_cast<size_t>(latent_size());
  Grow(s.latent, k);
  Grow(s.sum, k);
  if (calls_ == ComputeCalls::kPerKernelCall && !shards.empty()) {
    // One pred MLP per kernel call, in key order (a device holds few: one per family and
    // replica count), each over the latents of its shards in their order.
    s.call_keys.clear();
    for (const ShardView& shard : shards) {
      const int64_t key = KernelCallKey(shard);
      if (key >= 0 && std::find(s.call_keys.begin(), s.call_keys.end(), key) == s.call_keys.end()) {
        s.call_keys.push_back(key);
      }
    }
    std::sort(s.call_keys.begin(), s.call_keys.end());
    double ms = 0.0;
    for (int64_t key : s.call_keys) {
      std::fill(s.sum.begin(), s.sum.begin() + k, 0.0f);
      for (const ShardView& shard : shards) {
        if (KernelCallKey(shard) != key) continue;
        ShardLatentOf(shard, std::span<float>(s.latent.data(), k));
        for (size_t j = 0; j < k; ++j) s.sum[j] += s.latent[j];
      }
      ms += PredictFromLatentSum(std::span<const float>(s.sum.data(), k));
    }
    return ms;
  }
  std::fill(s.sum.begin(), s.sum.begin() + k, 0.0f);
  for (const ShardView& shard : shards) {
    ShardLatentOf(shard, std::span<float>(s.latent.data(), k));
    for (size_t j = 0; j < k; ++j) s.sum[j] += s.latent[j];
  }
  return PredictFromLatentSum(std::span<const float>(s.sum.data(), k));
}

double NeuralComputeModel::PredictFromFeatures(std::span<const float> raw_rows) const {
  const size_t k = static_cast<size_t>(latent_size());
  std::vector<float> latent(k), sum(k, 0.0f);
  const size_t width = static_cast<size_t>(num_features());
  for (size_t row = 0; row + width <= raw_rows.size(); row += width) {
    LatentMemo::Key raw{};
    std::copy_n(raw_rows.begin() + static_cast<std::ptrdiff_t>(row), width, raw.begin());
    LatentOfFeatures(raw, latent);
    for (size_t j = 0; j < k; ++j) sum[j] += latent[j];
  }
  return PredictFromLatentSum(sum);
}

// ---------------------------------------------------------------------------------------------
// NeuralCommModel

absl::StatusOr<NeuralCommModel> NeuralCommModel::Create(int num_devices, Direction direction,
                                                        FeatureNormalizer normalizer, Mlp mlp) {
  const char* which = direction == Direction::kForward ? "forward" : "backward";
  if (num_devices <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(which, " comm model: ", num_devices, " devices; need at least 1"));
  }
  const int inputs = direction == Direction::kForward ? 2 * num_devices : num_devices;
  if (mlp.input_size() != inputs || mlp.output_size() != num_devices || mlp.relu_on_output() ||
      normalizer.size() != inputs) {
    return absl::InvalidArgumentError(
        absl::StrCat(which, " comm model for ", num_devices, " devices: MLP ", mlp.input_size(),
                     "->", mlp.output_size(), mlp.relu_on_output() ? " with" : " without",
                     " output ReLU and ", normalizer.size(), " normaliser entries; need ", inputs,
                     "->", num_devices, " without, and ", inputs, " entries"));
  }
  return NeuralCommModel(num_devices, direction, std::move(normalizer), std::move(mlp));
}

NeuralCommModel::NeuralCommModel(int num_devices, Direction direction, FeatureNormalizer normalizer,
                                 Mlp mlp)
    : num_devices_(num_devices),
      direction_(direction),
      normalizer_(std::move(normalizer)),
      mlp_(std::move(mlp)) {}

std::vector<double> NeuralCommModel::Predict(std::span<const int64_t> dim_sums,
                                             std::span<const double> waits) const {
  const size_t n = static_cast<size_t>(num_devices_);
  const size_t inputs = static_cast<size_t>(mlp_.input_size());
  std::vector<float>& s = ThreadCommScratch();
  Grow(s, inputs + n + mlp_.scratch_size());
  float* in = s.data();
  float* out = in + inputs;
  std::span<float> mlp_scratch(out + n, mlp_.scratch_size());
  for (size_t d = 0; d < n; ++d) {
    in[d] = d < dim_sums.size() ? static_cast<float>(dim_sums[d]) : 0.0f;
    if (direction_ == Direction::kForward) {
      in[n + d] = d < waits.size() ? static_cast<float>(waits[d]) : 0.0f;
    }
  }
  normalizer_.Apply(std::span<float>(in, inputs));
  mlp_.Forward(in, 1, out, mlp_scratch);
  return std::vector<double>(out, out + n);
}

// ---------------------------------------------------------------------------------------------
// NeuralCostModel

absl::StatusOr<NeuralCostModel> NeuralCostModel::Create(
    std::string name, std::string version, NeuralComputeModel compute,
    std::map<int, NeuralCommModels> comm, CommCosts comm_costs,
    std::optional<TableFeatureRange> training_range,
    std::optional<DeviceSetCommModels> device_set_comm,
    std::optional<NeuralCollectiveModel> collectives) {
  if (name.empty() || version.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("neural cost model: name \"", name,
                                                   "\" and version \"", version,
                                                   "\" must both be non-empty"));
  }
  for (const auto& [n, models] : comm) {
    if (models.forward.num_devices() != n || models.backward.num_devices() != n ||
        models.forward.direction() != NeuralCommModel::Direction::kForward ||
        models.backward.direction() != NeuralCommModel::Direction::kBackward) {
      return absl::InvalidArgumentError(
          absl::StrCat("neural cost model ", name, "@", version, ": the comm models under ", n,
                       " devices must be a forward and a backward model for ", n, " devices (got ",
                       models.forward.num_devices(), " and ", models.backward.num_devices(), ")"));
    }
  }
  if (comm_costs == CommCosts::kZero &&
      (!comm.empty() || device_set_comm.has_value() || collectives.has_value())) {
    return absl::InvalidArgumentError(absl::StrCat("neural cost model ", name, "@", version,
                                                   ": comm models given with zero comm costs"));
  }
  if (device_set_comm.has_value()) {
    const DeviceSetCommModels& any = *device_set_comm;
    if (any.forward.direction() != CommDirection::kForward ||
        any.backward.direction() != CommDirection::kBackward ||
        any.forward.trained_batch_size() != any.backward.trained_batch_size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "neural cost model ", name, "@", version,
          ": the device-set comm models must be a forward and a backward model trained at one "
          "batch size"));
    }
    for (const DeviceLayout& layout : any.trained_layouts) {
      if (layout.devices_per_host < 1 || layout.devices_per_host > layout.devices) {
        return absl::InvalidArgumentError(absl::StrCat(
            "neural cost model ", name, "@", version, ": trained layout ", layout.devices,
            " devices in hosts of ", layout.devices_per_host, " is not a layout"));
      }
    }
  }
  if (training_range.has_value()) {
    bool valid = training_range->min.size() == kNumTableFeatures &&
                 training_range->max.size() == kNumTableFeatures;
    for (size_t f = 0; valid && f < kNumTableFeatures; ++f) {
      valid = std::isfinite(training_range->min[f]) && std::isfinite(training_range->max[f]) &&
              training_range->min[f] <= training_range->max[f];
    }
    if (!valid) {
      return absl::InvalidArgumentError(
          absl::StrCat("neural cost model ", name, "@", version, ": the training range needs ",
                       kNumTableFeatures, " finite min <= max pairs, one per table feature"));
    }
  }
  return NeuralCostModel(std::move(name), std::move(version), std::move(compute), std::move(comm),
                         comm_costs, std::move(training_range), std::move(device_set_comm),
                         std::move(collectives));
}

absl::StatusOr<NeuralCostModel> NeuralCostModel::WithAccessShapes(
    NeuralCostModel model, std::optional<AccessShapeSummary> access_shapes) {
  if (access_shapes.has_value()) {
    if (absl::Status valid = CheckAccessShapeSummary(*access_shapes); !valid.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("neural cost model ", model.id(), ": ", valid.message()));
    }
  }
  model.access_shapes_ = std::move(access_shapes);
  return model;
}

std::vector<std::string> NeuralCostModel::OutsideTrainingRange(const Table& table) const {
  std::vector<std::string> outside;
  if (training_range_.has_value()) {
    outside = FeaturesOutsideRange(table, table.dim, *training_range_);
  }
  if (access_shapes_.has_value()) {
    if (std::string shape = AccessShapeOutside(table, *access_shapes_); !shape.empty()) {
      outside.push_back(std::move(shape));
    }
  }
  return outside;
}

std::string NeuralCostModel::OutsideTrainedTopology(const Topology& topology) const {
  const int n = topology.num_devices();
  if (comm_costs_ == CommCosts::kZero || comm_.count(n) > 0 || !device_set_comm_.has_value() ||
      device_set_comm_->trained_layouts.empty() || n == 0) {
    return "";
  }
  const std::vector<DeviceLayout>& trained = device_set_comm_->trained_layouts;
  DeviceLayout low = trained.front(), high = trained.front();
  int low_hosts = trained.front().hosts(), high_hosts = low_hosts;
  for (const DeviceLayout& l : trained) {
    low.devices = std::min(low.devices, l.devices);
    high.devices = std::max(high.devices, l.devices);
    low.devices_per_host = std::min(low.devices_per_host, l.devices_per_host);
    high.devices_per_host = std::max(high.devices_per_host, l.devices_per_host);
    low_hosts = std::min(low_hosts, l.hosts());
    high_hosts = std::max(high_hosts, l.hosts());
  }
  const DeviceLayout asked = DeviceLayout::Of(n, topology.local_world_size());
  const int hosts = asked.hosts();
  if (asked.devices >= low.devices && asked.devices <= high.devices &&
      asked.devices_per_host >= low.devices_per_host &&
      asked.devices_per_host <= high.devices_per_host && hosts >= low_hosts &&
      hosts <= high_hosts) {
    return "";
  }
  return absl::StrCat(n, n == 1 ? " device" : " devices", " in ", hosts,
                      hosts == 1 ? " host" : " hosts", " of ", asked.devices_per_host,
                      " (trained on ", low.devices, " to ", high.devices, " devices, hosts of ",
                      low.devices_per_host, " to ", high.devices_per_host, ", ", low_hosts, " to ",
                      high_hosts, " hosts)");
}

NeuralCostModel::NeuralCostModel(std::string name, std::string version, NeuralComputeModel compute,
                                 std::map<int, NeuralCommModels> comm, CommCosts comm_costs,
                                 std::optional<TableFeatureRange> training_range,
                                 std::optional<DeviceSetCommModels> device_set_comm,
                                 std::optional<NeuralCollectiveModel> collectives)
    : name_(std::move(name)),
      version_(std::move(version)),
      compute_(std::move(compute)),
      comm_(std::move(comm)),
      comm_costs_(comm_costs),
      training_range_(std::move(training_range)),
      device_set_comm_(std::move(device_set_comm)),
      collectives_(std::move(collectives)) {}

std::string NeuralCostModel::id() const { return absl::StrCat(name_, "@", version_); }

absl::Status NeuralCostModel::CheckSupports(const Task& task) const {
  // Its data are training steps of pooled tables: it has never seen a forward pass alone, nor
  // B x L x D outputs.
  if (task.objective == Objective::kInference) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cost model ", id(), " was trained on training steps and cannot cost INFERENCE"));
  }
  for (size_t t = 0; t < task.tables.size(); ++t) {
    if (task.tables[t].pooling == Pooling::kSequence) {
      return absl::FailedPreconditionError(
          absl::StrCat("cost model ", id(), " was trained on pooled tables and cannot cost tables[",
                       t, "] (\"", task.tables[t].name, "\"), a SEQUENCE table"));
    }
  }
  if (comm_costs_ == CommCosts::kZero) return absl::OkStatus();
  const int n = task.topology.num_devices();
  if (comm_.find(n) == comm_.end() && !device_set_comm_.has_value()) {
    std::vector<int> counts;
    for (const auto& entry : comm_) counts.push_back(entry.first);
    return absl::FailedPreconditionError(absl::StrCat(
        "cost model ", id(), " has no comm models for ", n, " devices (it has ",
        counts.empty() ? "none" : absl::StrCat("device counts ", absl::StrJoin(counts, ", ")),
        ")"));
  }
  return absl::OkStatus();
}

double NeuralCostModel::ComputeCost(const CostContext& context,
                                    std::span<const ShardView> shards) const {
  return compute_.Predict(shards);
}

bool NeuralCostModel::CostsShardingType(ShardingType type) const {
  if (IsColumnLevel(type)) return true;
  return compute_.feature_set() == ShardFeatureSet::kServed && collectives_.has_value();
}

CollectiveCosts NeuralCostModel::CostCollectives(const CostContext& context,
                                                 std::span<const CollectiveDemand> demands) const {
  if (!collectives_.has_value() || context.topology == nullptr) {
    return CostModel::CostCollectives(context, demands);
  }
  return collectives_->Predict(*context.topology, demands);
}

std::vector<double> NeuralCostModel::BackwardCommCosts(const CostContext& context,
                                                       std::span<const int64_t> dim_sums) const {
  return PredictComm(context, CommDirection::kBackward, dim_sums, {});
}

std::vector<double> NeuralCostModel::ForwardCommCosts(const CostContext& context,
                                                      std::span<const int64_t> dim_sums,
                                                      std::span<const double> waits) const {
  return PredictComm(context, CommDirection::kForward, dim_sums, waits);
}

std::vector<double> NeuralCostModel::PredictComm(const CostContext& context,
                                                 CommDirection direction,
                                                 std::span<const int64_t> dim_sums,
                                                 std::span<const double> waits) const {
  if (comm_costs_ == CommCosts::kZero) return std::vector<double>(dim_sums.size(), 0.0);
  // No device holds a column-level shard: TorchRec makes no table-wise/column-wise sharding, so
  // no pooled all-to-all runs (the simulator issues none either). The comm models never saw an
  // all-zero placement and answered about 0.5 ms forward and 0.9 ms backward for it.
  if (std::all_of(dim_sums.begin(), dim_sums.end(), [](int64_t d) { return d == 0; })) {
    return std::vector<double>(dim_sums.size(), 0.0);
  }
  const bool forward = direction == CommDirection::kForward;
  const auto it = comm_.find(static_cast<int>(dim_sums.size()));
  if (it != comm_.end()) {
    return (forward ? it->second.forward : it->second.backward).Predict(dim_sums, waits);
  }
  if (device_set_comm_.has_value()) {
    const int per_host = context.topology != nullptr ? context.topology->local_world_size() : 0;
    return (forward ? device_set_comm_->forward : device_set_comm_->backward)
        .Predict(dim_sums, waits, per_host, context.batch_size);
  }
  return std::vector<double>(dim_sums.size(), std::numeric_limits<double>::quiet_NaN());
}

}  // namespace shardplan
