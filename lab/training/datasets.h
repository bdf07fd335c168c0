#ifndef SHARDPLAN_LAB_TRAINING_DATASETS_H_
#define SHARDPLAN_LAB_TRAINING_DATASETS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "costmodels/neural/device_set_comm_model.h"
#include "costmodels/neural/table_features.h"
#include "lab/data/table_pool.h"

namespace shardplan::training {

// Cost data (docs/cost-data.md) turned into training samples. Every loader error names the
// file, the line and the field ("compute.jsonl.gz:17: tables[2]: pool index 900 ...").

// Compute samples: each is a set of shard rows (raw features of the feature set: the reference's
// 20 per table, TableFeatures order, or the 21 served ones per shard) and the device's measured
// ms.
struct ComputeDataset {
  std::string path;
  std::string backend;           // of the records (all must agree)
  std::string hardware_profile;  // idem
  ShardFeatureSet feature_set = ShardFeatureSet::kReference;
  int width = kNumTableFeatures;  // NumShardFeatures(feature_set)
  std::vector<float> features;   // rows x width, raw
  // (pool index, dim) of every row: the normaliser's statistics are over distinct configs.
  std::vector<std::pair<int32_t, int32_t>> row_keys;
  // Per row, what else tells configs apart (a shard's type, group and rows; 0 for a whole
  // table); empty: 0 for every row.
  std::vector<int64_t> row_variants;
  std::vector<int64_t> row_offsets;  // sample i's rows are [row_offsets[i], row_offsets[i+1])
  std::vector<float> labels;         // ms per sample
  // Samples whose shards run in several kernel calls (KernelCallKey): a device's total.
  int64_t multi_call_samples = 0;

  int64_t size() const { return static_cast<int64_t>(labels.size()); }
};

// Comm samples of one device count N: the forward model's inputs [dim_sums, waits] (2N) and
// labels forward_ms (N), the backward model's inputs dim_sums (N) and labels backward_ms (N).
struct CommDataset {
  std::string path;
  std::string backend;
  std::string hardware_profile;
  int num_devices = 0;
  int devices_per_host = 0;             // the records' (0: not recorded, the backend's own layout)
  int64_t batch_size = 0;               // the first record's
  std::vector<float> forward_inputs;    // samples x 2N
  std::vector<float> forward_labels;    // samples x N
  std::vector<float> backward_inputs;   // samples x N
  std::vector<float> backward_labels;   // samples x N

  int64_t size() const {
    return num_devices == 0 ? 0 : static_cast<int64_t>(forward_labels.size()) / num_devices;
  }
};

// Comm samples of many device counts and host layouts for the device-set comm models
// (DeviceSetCommModel): one row of AppendDeviceSetCommFeatures per (record, device), the
// device's forward and backward ms as labels. Records stay whole in a split (record_offsets).
struct DeviceSetCommDataset {
  std::vector<std::string> paths;
  std::string backend;
  std::string hardware_profile;
  int64_t batch_size = 0;               // of every record
  std::vector<DeviceLayout> layouts;    // distinct, in order of appearance
  // The forward model's rows; the backward model's are the same less the last column (wait_gap:
  // DeviceSetCommInputNames).
  std::vector<float> forward_rows;      // rows x DeviceSetCommNumInputs(kForward), raw
  std::vector<float> forward_labels;    // per row
  std::vector<float> backward_labels;   // per row
  std::vector<int64_t> record_offsets;  // record i's rows are [offsets[i], offsets[i+1])
  std::vector<int32_t> record_layout;   // record i's index in `layouts`

  int64_t size() const {
    return record_offsets.empty() ? 0 : static_cast<int64_t>(record_offsets.size()) - 1;
  }
};

// A table pool and the hex SHA-256 of its file's bytes.
struct HashedPool {
  TablePool pool;
  std::string sha256;
};
// Loads the pool a record names (its `pool` field, relative to the repository root).
using PoolLoader = std::function<absl::StatusOr<HashedPool>(const std::string& pool_path)>;

// Reads a compute cost-data file (gzip or plain JSONL). Each distinct pool is loaded once and
// its SHA-256 must equal the records' pool_sha256 (FAILED_PRECONDITION otherwise: the features
// would not be the ones measured). INVALID_ARGUMENT naming file:line for a bad record, a record
// of another kind, backend or hardware profile than the first, a pool index out of range or a
// dim <= 0, a non-finite ms; also for an empty file.
// With ShardFeatureSet::kServed it also reads "shards" records (one device's shards of any
// type: ServedShardFeatures rows; empty row blocks, which run no kernel, are left out), and a
// "compute" record's tables become whole-table shards (batch_share 1).
absl::StatusOr<ComputeDataset> LoadComputeDataset(
    const std::string& path, const PoolLoader& load_pool,
    ShardFeatureSet feature_set = ShardFeatureSet::kReference);

// Appends `more` (another file of the same backend, profile and feature set) to `data`; `path`
// becomes both paths joined by ','. INVALID_ARGUMENT naming both files when they differ.
absl::Status AppendComputeDataset(ComputeDataset& data, const ComputeDataset& more);

// Collective samples for the collective model (NeuralCollectiveModel): one row of
// CollectiveCallFeatures per (record, member of its call) whose time is not zero by
// construction, labelled ln(ms) of the member's time in the call's pass. Records stay whole in
// a split (record_offsets).
struct CollectiveDataset {
  std::vector<std::string> paths;
  std::string backend;
  std::string hardware_profile;
  std::vector<float> rows;              // rows x kNumCollectiveCallFeatures, raw
  std::vector<float> labels;            // ln(ms), per row
  std::vector<int32_t> row_collective;  // per row, its Collective (for errors by kind)
  std::vector<int64_t> record_offsets;  // record i's rows are [offsets[i], offsets[i+1])

  int64_t size() const {
    return record_offsets.empty() ? 0 : static_cast<int64_t>(record_offsets.size()) - 1;
  }
};

// Reads "collective" cost-data files. INVALID_ARGUMENT naming file:line for a bad record,
// demands that make more than one call, a member's time that is not positive, and for files of
// different backends or profiles.
absl::StatusOr<CollectiveDataset> LoadCollectiveDataset(const std::vector<std::string>& paths);

// Reads a comm cost-data file. INVALID_ARGUMENT naming file:line for a bad record, another kind,
// backend, profile or num_devices than the first record, arrays of the wrong length, non-finite
// values; also for an empty file.
absl::StatusOr<CommDataset> LoadCommDataset(const std::string& path);

// The devices per host of the backend's own machines, for records that do not record theirs
// (0: one host), from the records' backend and hardware profile.
using DefaultHostLayout =
    std::function<int(const std::string& backend, const std::string& hardware_profile)>;

// Reads comm cost-data files of any device counts into one device-set dataset. A record without
// devices_per_host takes `default_devices_per_host` of the records' machine.
// INVALID_ARGUMENT as LoadCommDataset, and for files of different backends, profiles or batch
// sizes.
absl::StatusOr<DeviceSetCommDataset> LoadDeviceSetCommDataset(
    const std::vector<std::string>& paths, const DefaultHostLayout& default_devices_per_host);

}  // namespace shardplan::training

#endif  // SHARDPLAN_LAB_TRAINING_DATASETS_H_
