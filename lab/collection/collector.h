#ifndef SHARDPLAN_LAB_COLLECTION_COLLECTOR_H_
#define SHARDPLAN_LAB_COLLECTION_COLLECTOR_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>

#include "absl/status/statusor.h"
#include "groundtruth/hardware_backend.h"
#include "lab/collection/cost_record.h"
#include "lab/data/table_pool.h"

namespace shardplan {

// One collection run. The run fields (kind, seed, batch_size, num_devices, pool, pool_sha256,
// plus the backend's name and profile) go into every record, and a resumed run must match them.
struct CollectOptions {
  std::string kind;      // "compute" or "comm"
  int64_t samples = 0;   // the file ends up holding ids 0..samples-1
  std::string out_path;  // JSONL, created or resumed
  uint64_t seed = 0;
  int64_t batch_size = 65536;  // the reference's global batch
  int32_t num_devices = 0;     // comm: the device count; compute: unused (0)
  // comm: hosts of this many devices (recorded); 0: the backend's own layout (not recorded).
  int32_t devices_per_host = 0;
  std::string pool;            // the pool's path as recorded (relative to the repository)
  std::string pool_sha256;     // hex SHA-256 of the pool file
  // Records written between fsyncs (and one at the end): bounds what a power cut can lose.
  int64_t fsync_every = 256;
  // Checked between records; set from a SIGINT handler to stop cleanly. May be null.
  const std::atomic<bool>* stop = nullptr;
  // The record's timestamp, RFC 3339 UTC; null means the wall clock. Tests pin it.
  std::function<std::string()> now;
  // Progress lines (done/total, rate, ETA) go here at most a few times a second; null: none.
  std::ostream* progress = nullptr;
  std::chrono::milliseconds progress_interval{500};
};

// Fills the inputs of sample `id` into `record`: `tables` (compute, pool indices and dims) or
// `dim_sums` and `start_offsets_ms` (comm, num_devices entries each). It must depend only on
// (seed, id) so that a resumed run regenerates exactly the missing samples
// (base/seeded_rng.h SampleRng).
using SampleGenerator = std::function<absl::Status(int64_t id, CostRecord& record)>;

struct CollectResult {
  int64_t already_present = 0;     // ids < samples found in the file before this run
  int64_t appended = 0;            // records this run wrote
  int64_t torn_bytes_dropped = 0;  // an unfinished last line removed before resuming
  bool interrupted = false;        // stopped by `stop` before all ids were present
};

// Measures the samples 0..samples-1 missing from `out_path` on `backend` and appends one record
// per line, in id order. An unterminated last line (a killed writer) is truncated away first.
// FAILED_PRECONDITION if the file's records come from another run (backend, profile, kind,
// seed, batch size, device count or pool differ); INVALID_ARGUMENT naming the line for a
// malformed record. Errors from the generator or the backend stop the run after the records
// already written, which stay valid: rerunning resumes after them. `pool` supplies the tables of
// compute samples (may be null for comm).
absl::StatusOr<CollectResult> Collect(HardwareBackend& backend, const TablePool* pool,
                                      const SampleGenerator& generator,
                                      const CollectOptions& options);

}  // namespace shardplan

#endif  // SHARDPLAN_LAB_COLLECTION_COLLECTOR_H_
