#ifndef SHARDPLAN_LAB_TRAINING_TRAINER_H_
#define SHARDPLAN_LAB_TRAINING_TRAINER_H_

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "lab/training/objective.h"
#include "lab/training/split.h"
#include "nn/adam.h"

namespace shardplan::training {

// Samples per gradient chunk. A mini-batch is cut into chunks of this size whatever the thread
// count; each chunk's gradient is summed in its own buffer and the buffers are added in chunk
// order, so the weights are bit-identical for any --threads.
inline constexpr int kChunkSamples = 32;

struct TrainOptions {
  int64_t max_epochs = 1000;   // the reference's --epochs
  int64_t patience = 30;       // stop after this many epochs without a better validation MSE
  int batch_size = 512;
  int threads = 1;
  uint64_t seed = 0;           // initial weights and the per-epoch shuffles
  AdamOptions adam;
  std::ostream* progress = nullptr;  // one line per epoch when set
  std::string label;                 // names the sub-model in progress lines
};

struct TrainResult {
  std::vector<float> params;   // the best-validation weights
  int64_t epochs = 0;          // epochs run
  int64_t best_epoch = 0;      // 1-based; 0 when no epoch had a finite validation MSE
  double train_mse = 0.0;      // of `params`, over the whole split
  double valid_mse = 0.0;
  double test_mse = 0.0;
  double seconds_per_epoch = 0.0;  // mean wall time of a training epoch (with its validation)
  std::vector<float> test_predictions;  // split.test order, num_outputs per sample
};

// Mini-batch Adam on the MSE with early stopping on the validation MSE, keeping the best
// weights (the reference's procedure). Batches are the training split reshuffled every epoch
// (ShuffleIndices, the generator seeded from options.seed); the last batch may be short.
// Deterministic for a seed and independent of options.threads.
TrainResult Train(Objective& objective, const Split& split, const TrainOptions& options);

}  // namespace shardplan::training

#endif  // SHARDPLAN_LAB_TRAINING_TRAINER_H_
