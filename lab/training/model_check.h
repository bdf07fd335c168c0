#ifndef SHARDPLAN_LAB_TRAINING_MODEL_CHECK_H_
#define SHARDPLAN_LAB_TRAINING_MODEL_CHECK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "costmodels/artifacts/model_bundle.h"
#include "lab/training/datasets.h"

namespace shardplan::training {

// `shardplan model check` (docs/training.md, "Has a model drifted?"): a shipped bundle's error
// on fresh cost data against the test error its manifest records.

// One sub-model ("compute", "comm_8_forward", ...) on the fresh data.
struct SubModelCheck {
  std::string name;
  std::string data_file;
  int64_t samples = 0;                 // fresh samples
  int64_t outputs = 0;                 // predictions compared (a comm sample has one per device)
  double mse = 0.0;                    // ms^2 on the fresh data
  double manifest_test_mse = 0.0;      // ms^2 on the test split it was trained with
  // Device-set comm models: the file's layout ("24x8"), and whether the training data held it
  // (then manifest_test_mse is that layout's; else the pooled one, and the file is held out:
  // reported, never `drifted`).
  std::string layout;
  bool held_out_layout = false;
  double mse_ratio = 0.0;              // mse / manifest_test_mse (+inf when that is 0 and mse > 0)
  double median_relative_error = 0.0;  // |predicted - measured| / measured, over outputs
  double p95_relative_error = 0.0;
  double max_relative_error = 0.0;
  bool drifted = false;  // mse_ratio > the threshold
};

struct ModelCheckReport {
  std::string model;  // name@version
  double max_mse_ratio = 0.0;
  std::vector<SubModelCheck> sub_models;
  bool drifted() const;
};

struct ModelCheckData {
  const ComputeDataset* compute = nullptr;  // may be null
  std::vector<const CommDataset*> comm;     // any number
  // Collective calls, for the collective model: one line per collective kind (its name in the
  // layout column), MSEs of ln(ms) as the manifest's, relative errors of ms. May be null.
  const CollectiveDataset* collectives = nullptr;
  // The hosts of comm records that do not record theirs, for device-set comm models.
  int default_devices_per_host = 0;
};

// Predicts every fresh sample with `bundle`'s model and compares with the measurement. A
// sub-model has drifted when its fresh MSE exceeds `max_mse_ratio` x the manifest's test MSE.
// FAILED_PRECONDITION naming the file when the data's hardware profile is not the bundle's, or
// the bundle has no model for it (compute data against a bundle without training record; comm
// data of a device count it has neither fixed-N nor device-set comm models for); INVALID_ARGUMENT
// for no data, an empty dataset or max_mse_ratio <= 0.
absl::StatusOr<ModelCheckReport> CheckModel(const LoadedBundle& bundle, const ModelCheckData& data,
                                            double max_mse_ratio);

// The report as a table for a terminal, one line per sub-model and a verdict.
std::string FormatModelCheck(const ModelCheckReport& report);

}  // namespace shardplan::training

#endif  // SHARDPLAN_LAB_TRAINING_MODEL_CHECK_H_
