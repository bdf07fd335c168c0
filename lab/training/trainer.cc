#include "lab/training/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <ostream>

#include "absl/strings/str_format.h"
#include "base/seeded_rng.h"
#include "base/worker_pool.h"
#include "lab/collection/progress.h"

namespace shardplan::training {
namespace {

// Streams of SampleRng(seed, stream), so the weights and the batch order draw independently.
constexpr uint64_t kInitStream = 1;
constexpr uint64_t kShuffleStream = 2;
// Samples per evaluation task (only the order of the per-task sums matters, and it is fixed).
constexpr int64_t kEvalChunkSamples = 256;

int64_t Chunks(int64_t n, int64_t size) { return (n + size - 1) / size; }

class Session {
 public:
  Session(Objective& objective, const TrainOptions& options)
      : objective_(objective), options_(options), pool_(std::max(1, options.threads)) {
    for (int w = 0; w < pool_.size(); ++w) workspaces_.push_back(objective.NewWorkspace());
    const int64_t chunks = Chunks(options.batch_size, kChunkSamples);
    chunk_grads_.assign(chunks, std::vector<float>(objective.num_params()));
    chunk_sse_.assign(chunks, 0.0);
    grad_.assign(objective.num_params(), 0.0f);
  }

  // One Adam step on `batch`; returns its sum of squared errors.
  double Step(std::span<const int64_t> batch, std::vector<float>& params, Adam& adam) {
    objective_.Prepare(params);
    const int64_t chunks = Chunks(static_cast<int64_t>(batch.size()), kChunkSamples);
    const float scale =
        2.0f / (static_cast<float>(batch.size()) * static_cast<float>(objective_.num_outputs()));
    pool_.Run(chunks, [&](int64_t task, int worker) {
      std::vector<float>& grad = chunk_grads_[task];
      std::fill(grad.begin(), grad.end(), 0.0f);
      const size_t begin = static_cast<size_t>(task) * kChunkSamples;
      const size_t size = std::min<size_t>(kChunkSamples, batch.size() - begin);
      chunk_sse_[task] =
          objective_.AddGradient(params, batch.subspan(begin, size), scale, grad, *workspaces_[worker]);
    });
    // Fixed-order reduction: grad[p] = chunk 0 + chunk 1 + ..., split over parameter ranges.
    const int64_t num_params = objective_.num_params();
    const int64_t ranges = pool_.size();
    pool_.Run(ranges, [&](int64_t range, int) {
      const int64_t begin = num_params * range / ranges;
      const int64_t end = num_params * (range + 1) / ranges;
      float* __restrict out = grad_.data();
      std::copy(chunk_grads_[0].begin() + begin, chunk_grads_[0].begin() + end, out + begin);
      for (int64_t c = 1; c < chunks; ++c) {
        const float* __restrict in = chunk_grads_[c].data();
        for (int64_t p = begin; p < end; ++p) out[p] += in[p];
      }
    });
    adam.Step(params, grad_);
    double sse = 0.0;
    for (int64_t c = 0; c < chunks; ++c) sse += chunk_sse_[c];
    return sse;
  }

  // MSE of `params` over `samples`; the predictions go to `predictions` when it is not null.
  double Evaluate(std::span<const float> params, std::span<const int64_t> samples,
                  std::vector<float>* predictions) {
    if (samples.empty()) return std::numeric_limits<double>::quiet_NaN();
    objective_.Prepare(params);
    const int outputs = objective_.num_outputs();
    const int64_t chunks = Chunks(static_cast<int64_t>(samples.size()), kEvalChunkSamples);
    std::vector<double> sse(chunks, 0.0);
    std::vector<float> local;
    std::vector<float>& out = predictions != nullptr ? *predictions : local;
    out.assign(samples.size() * outputs, 0.0f);
    pool_.Run(chunks, [&](int64_t task, int worker) {
      const size_t begin = static_cast<size_t>(task) * kEvalChunkSamples;
      const size_t size = std::min<size_t>(kEvalChunkSamples, samples.size() - begin);
      sse[task] = objective_.Predict(params, samples.subspan(begin, size),
                                     out.data() + begin * outputs, *workspaces_[worker]);
    });
    double total = 0.0;
    for (double s : sse) total += s;
    return total / (static_cast<double>(samples.size()) * outputs);
  }

 private:
  Objective& objective_;
  const TrainOptions& options_;
  WorkerPool pool_;
  std::vector<std::unique_ptr<Workspace>> workspaces_;
  std::vector<std::vector<float>> chunk_grads_;
  std::vector<double> chunk_sse_;
  std::vector<float> grad_;
};

void PrintEpoch(const TrainOptions& options, int64_t epoch, double train_mse, double valid_mse,
                double best_mse, int64_t best_epoch, double seconds_per_epoch) {
  // Without a better epoch the run stops at best_epoch + patience; at the latest at max_epochs.
  const int64_t last = std::min(options.max_epochs, best_epoch + options.patience);
  const double eta_stop = static_cast<double>(std::max<int64_t>(0, last - epoch)) * seconds_per_epoch;
  const double eta_max = static_cast<double>(options.max_epochs - epoch) * seconds_per_epoch;
  *options.progress << absl::StrFormat(
      "%s: epoch %d/%d  train %.6g  valid %.6g  best %.6g (epoch %d)  %.2f s/epoch  ETA %s "
      "(no better epoch) .. %s (max epochs)\n",
      options.label, epoch, options.max_epochs, train_mse, valid_mse, best_mse, best_epoch,
      seconds_per_epoch, FormatDuration(eta_stop), FormatDuration(eta_max));
  options.progress->flush();
}

}  // namespace

TrainResult Train(Objective& objective, const Split& split, const TrainOptions& options) {
  using Clock = std::chrono::steady_clock;
  Session session(objective, options);
  std::vector<float> params(objective.num_params());
  std::mt19937_64 init_rng = SampleRng(options.seed, kInitStream);
  objective.InitParams(init_rng, params);
  std::mt19937_64 shuffle_rng = SampleRng(options.seed, kShuffleStream);
  Adam adam(objective.num_params(), options.adam);

  TrainResult result;
  result.params = params;
  double best = std::numeric_limits<double>::infinity();
  std::vector<int64_t> order = split.train;
  const Clock::time_point start = Clock::now();
  for (int64_t epoch = 1; epoch <= options.max_epochs && !order.empty(); ++epoch) {
    ShuffleIndices(order, shuffle_rng);
    double sse = 0.0;
    for (size_t begin = 0; begin < order.size(); begin += options.batch_size) {
      const size_t size = std::min<size_t>(options.batch_size, order.size() - begin);
      sse += session.Step(std::span<const int64_t>(order).subspan(begin, size), params, adam);
    }
    const double train_mse = sse / (static_cast<double>(order.size()) * objective.num_outputs());
    const double valid_mse = session.Evaluate(params, split.valid, nullptr);
    result.epochs = epoch;
    // No validation split (tiny data): the last weights are the best.
    if (valid_mse < best || (split.valid.empty() && std::isfinite(train_mse))) {
      best = split.valid.empty() ? train_mse : valid_mse;
      result.best_epoch = epoch;
      result.params = params;
    }
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    result.seconds_per_epoch = elapsed / static_cast<double>(epoch);
    if (options.progress != nullptr) {
      PrintEpoch(options, epoch, train_mse, valid_mse, best, result.best_epoch,
                 result.seconds_per_epoch);
    }
    if (epoch - result.best_epoch >= options.patience) break;
  }
  result.train_mse = session.Evaluate(result.params, split.train, nullptr);
  result.valid_mse = session.Evaluate(result.params, split.valid, nullptr);
  result.test_mse = session.Evaluate(result.params, split.test, &result.test_predictions);
  return result;
}

}  // namespace shardplan::training
