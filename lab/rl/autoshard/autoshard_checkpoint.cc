#include "lab/rl/autoshard/autoshard_checkpoint.h"

#include <cstring>
#include <fstream>
#include <sstream>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "base/atomic_file.h"
#include "lab/rl/checkpoint_bytes.h"

namespace shardplan::autoshard {
namespace {

constexpr char kMagic[] = "shardplan-autoshard-checkpoint-1\n";

}  // namespace

void CostBuffer::Append(CostSample sample) {
  if (size() < capacity) {
    samples.push_back(std::move(sample));
  } else {
    samples[static_cast<size_t>(start)] = std::move(sample);
  }
  start = (start + 1) % capacity;
}

absl::Status WriteCheckpoint(const std::string& path, const TrainerState& state) {
  CheckpointWriter out;
  out.bytes() = kMagic;
  out.String(state.fingerprint);
  out.Pod(state.next_update);
  out.Pod(state.episodes);
  out.Vector(state.params);
  out.Vector(state.adam_m);
  out.Vector(state.adam_v);
  out.Pod(state.adam_steps);
  out.String(state.rng);
  out.Pod(state.buffer.capacity);
  out.Pod(state.buffer.start);
  out.Pod<uint64_t>(state.buffer.samples.size());
  for (const CostSample& sample : state.buffer.samples) {
    out.Vector(sample.features);
    out.Pod(sample.cost);
  }
  out.Vector(state.curve);
  return WriteFileAtomically(path, out.bytes());
}

absl::StatusOr<TrainerState> ReadCheckpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": no checkpoint"));
  std::ostringstream contents;
  contents << in.rdbuf();
  const std::string bytes = contents.str();
  auto corrupt = [&](const char* what) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, ": not an AutoShard checkpoint of this build (", what, ")"));
  };
  if (bytes.rfind(kMagic, 0) != 0) return corrupt("header");
  CheckpointReader reader(std::string_view(bytes).substr(sizeof(kMagic) - 1));
  TrainerState state;
  uint64_t samples = 0;
  if (!reader.String(state.fingerprint) || !reader.Pod(state.next_update) ||
      !reader.Pod(state.episodes) || !reader.Vector(state.params) || !reader.Vector(state.adam_m) ||
      !reader.Vector(state.adam_v) || !reader.Pod(state.adam_steps) || !reader.String(state.rng) ||
      !reader.Pod(state.buffer.capacity) || !reader.Pod(state.buffer.start) ||
      !reader.Pod(samples)) {
    return corrupt("truncated");
  }
  if (state.buffer.capacity <= 0 || samples > static_cast<uint64_t>(state.buffer.capacity)) {
    return corrupt("cost buffer");
  }
  state.buffer.samples.resize(samples);
  for (CostSample& sample : state.buffer.samples) {
    if (!reader.Vector(sample.features) || !reader.Pod(sample.cost)) return corrupt("truncated");
  }
  if (!reader.Vector(state.curve) || !reader.AtEnd()) return corrupt("trailing bytes");
  return state;
}

}  // namespace shardplan::autoshard
