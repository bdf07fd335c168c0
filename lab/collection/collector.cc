#include "lab/collection/collector.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "groundtruth/shard_kernels.h"
#include "lab/collection/progress.h"
#include "planner/domain/topology.h"

namespace shardplan {
namespace {

std::string ErrnoMessage(const std::string& what, const std::string& path) {
  return absl::StrCat(what, " ", path, ": ", std::strerror(errno));
}

std::string WallClockNow() {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone());
}

// Measurements are kept to 0.1 us: far below any backend's noise, and it keeps lines short
// (a 100K-sample file is mostly digits).
double RoundMs(double ms) { return std::round(ms * 1e4) / 1e4; }

// Closes the descriptor on every path out.
class FileCloser {
 public:
  explicit FileCloser(int fd) : fd_(fd) {}
  ~FileCloser() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileCloser(const FileCloser&) = delete;
  FileCloser& operator=(const FileCloser&) = delete;

 private:
  int fd_;
};

// The records already in the file: which ids are present, and whether a torn last line was cut.
struct ExistingFile {
  std::vector<bool> present;  // by id, for ids < samples
  int64_t present_count = 0;
  int64_t torn_bytes = 0;
};

// Names the first header field where `record` differs from this run, or "".
std::string HeaderMismatch(const CostRecord& record, const CostRecord& run) {
  const auto differs = [](const char* field, const auto& file, const auto& now) {
    std::ostringstream text;
    text << field << " is " << file << " in the file but " << now << " in this run";
    return text.str();
  };
  if (record.kind != run.kind) return differs("kind", record.kind, run.kind);
  if (record.backend != run.backend) return differs("backend", record.backend, run.backend);
  if (record.hardware_profile != run.hardware_profile) {
    return differs("hardware_profile", record.hardware_profile, run.hardware_profile);
  }
  if (record.seed != run.seed) return differs("seed", record.seed, run.seed);
  if (record.batch_size != run.batch_size) {
    return differs("batch_size", record.batch_size, run.batch_size);
  }
  const bool layout = record.kind == "comm" || record.kind == "collective";
  if (layout && record.num_devices != run.num_devices) {
    return differs("num_devices", record.num_devices, run.num_devices);
  }
  if (layout && record.devices_per_host != run.devices_per_host) {
    return differs("devices_per_host", record.devices_per_host, run.devices_per_host);
  }
  if (record.pool_sha256 != run.pool_sha256) {
    return differs("pool_sha256", record.pool_sha256, run.pool_sha256);
  }
  return "";
}

// Reads `path` (absent: empty), truncating an unterminated last line, and checks every record
// against the run's header fields.
absl::StatusOr<ExistingFile> ReadExisting(const std::string& path, const CostRecord& run,
                                          int64_t samples) {
  ExistingFile existing;
  existing.present.assign(static_cast<size_t>(samples), false);
  struct stat info;
  if (::stat(path.c_str(), &info) != 0 && errno == ENOENT) return existing;
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::PermissionDeniedError(ErrnoMessage("cannot read", path));
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  if (!content.empty() && content.back() != '\n') {
    // A writer killed mid-line (or a partial copy): the record never completed. It is cut off
    // the file below, once the whole records have shown that the file is this run's.
    const size_t keep = content.rfind('\n') == std::string::npos ? 0 : content.rfind('\n') + 1;
    existing.torn_bytes = static_cast<int64_t>(content.size() - keep);
    content.resize(keep);
  }
  size_t begin = 0;
  for (int64_t line_number = 1; begin < content.size(); ++line_number) {
    const size_t end = content.find('\n', begin);
    const std::string line = content.substr(begin, end - begin);
    begin = end + 1;
    absl::StatusOr<CostRecord> record = CostRecordFromJsonLine(line);
    if (!record.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", line_number, ": ", record.status().message()));
    }
    if (const std::string mismatch = HeaderMismatch(*record, run); !mismatch.empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat(path, ":", line_number, ": the file holds another collection (", mismatch,
                       "); use another --out or the same options"));
    }
    if (record->id < samples && !existing.present[static_cast<size_t>(record->id)]) {
      existing.present[static_cast<size_t>(record->id)] = true;
      ++existing.present_count;
    }
  }
  if (existing.torn_bytes > 0 &&
      ::truncate(path.c_str(), static_cast<off_t>(content.size())) != 0) {
    return absl::PermissionDeniedError(ErrnoMessage("cannot truncate the torn last line of", path));
  }
  return existing;
}

// The whole line in one write() where the kernel allows, so a reader never sees half of it.
absl::Status WriteLine(int fd, const std::string& line, const std::string& path) {
  size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(fd, line.data() + written, line.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError(ErrnoMessage("cannot write", path));
    }
    written += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::Status CheckMeasuredMs(const CostRecord& record, double ms) {
  if (std::isfinite(ms) && ms >= 0) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("sample ", record.id, ": backend returned ", ms, " ms"));
}

// A "shards" record: the device's fused kernels (DeviceKernelCalls), one after another, as
// ground truth measures a device (groundtruth/ground_truth.h).
absl::Status MeasureShards(HardwareBackend& backend, const TablePool* pool, CostRecord& record) {
  if (pool == nullptr) return absl::InvalidArgumentError("shards collection needs a table pool");
  std::vector<Table> tables;
  tables.reserve(record.shards.size());
  for (const CostShard& shard : record.shards) {
    if (shard.table < 0 || static_cast<size_t>(shard.table) >= pool->tables.size()) {
      return absl::InvalidArgumentError(absl::StrCat("sample ", record.id, ": pool index ",
                                                     shard.table, " is outside the pool of ",
                                                     pool->tables.size(), " tables"));
    }
    tables.push_back(pool->tables[static_cast<size_t>(shard.table)]);
    tables.back().dim = shard.dim;
  }
  std::vector<ShardView> views;
  for (size_t i = 0; i < record.shards.size(); ++i) {
    const CostShard& shard = record.shards[i];
    views.push_back(ShardView{.table = &tables[i],
                              .rows = shard.rows,
                              .columns = shard.dim,
                              .sharding = shard.type,
                              .group_size = shard.group_size});
  }
  double total_ms = 0.0;
  for (const KernelCall& call : DeviceKernelCalls(views, record.batch_size)) {
    SHARDPLAN_ASSIGN_OR_RETURN(const double ms,
                               backend.MeasureCompute(call.tables, call.batch_size));
    SHARDPLAN_RETURN_IF_ERROR(CheckMeasuredMs(record, ms));
    total_ms += ms;
  }
  record.ms = RoundMs(total_ms);
  return absl::OkStatus();
}

// A "collective" record: every device's time in the call its demands make.
absl::Status MeasureCollective(HardwareBackend& backend, CostRecord& record) {
  const size_t n = static_cast<size_t>(record.num_devices);
  if (n == 0 || record.devices_per_host <= 0 || record.demands.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("sample ", record.id, ": the generator gave no layout or no demands"));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(
      const CollectiveCosts measured,
      backend.MeasureCollectives(CollectiveLayoutOf(record), CollectiveDemandsOf(record)));
  if (measured.forward_ms.size() != n || measured.backward_ms.size() != n) {
    return absl::InternalError(absl::StrCat("sample ", record.id, ": backend returned times for ",
                                            measured.forward_ms.size(), " devices, expected ", n));
  }
  record.forward_ms.clear();
  record.backward_ms.clear();
  for (size_t d = 0; d < n; ++d) {
    SHARDPLAN_RETURN_IF_ERROR(CheckMeasuredMs(record, measured.forward_ms[d]));
    SHARDPLAN_RETURN_IF_ERROR(CheckMeasuredMs(record, measured.backward_ms[d]));
    record.forward_ms.push_back(RoundMs(measured.forward_ms[d]));
    record.backward_ms.push_back(RoundMs(measured.backward_ms[d]));
  }
  return absl::OkStatus();
}

absl::Status Measure(HardwareBackend& backend, const TablePool* pool, CostRecord& record) {
  if (record.kind == "shards") return MeasureShards(backend, pool, record);
  if (record.kind == "collective") return MeasureCollective(backend, record);
  if (record.kind == "compute") {
    if (pool == nullptr) return absl::InvalidArgumentError("compute collection needs a table pool");
    std::vector<Table> tables;
    tables.reserve(record.tables.size());
    for (const auto& [index, dim] : record.tables) {
      if (index < 0 || static_cast<size_t>(index) >= pool->tables.size()) {
        return absl::InvalidArgumentError(absl::StrCat("sample ", record.id, ": pool index ", index,
                                                       " is outside the pool of ",
                                                       pool->tables.size(), " tables"));
      }
      tables.push_back(pool->tables[static_cast<size_t>(index)]);
      tables.back().dim = dim;
    }
    SHARDPLAN_ASSIGN_OR_RETURN(const double ms, backend.MeasureCompute(tables, record.batch_size));
    if (!std::isfinite(ms) || ms < 0) {
      return absl::InternalError(
          absl::StrCat("sample ", record.id, ": backend returned ", ms, " ms"));
    }
    record.ms = RoundMs(ms);
    return absl::OkStatus();
  }
  const size_t n = static_cast<size_t>(record.num_devices);
  if (record.dim_sums.size() != n || record.start_offsets_ms.size() != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sample ", record.id, ": the generator gave ", record.dim_sums.size(), " dim sums and ",
        record.start_offsets_ms.size(), " start offsets for ", n, " devices"));
  }
  // A comm record without devices_per_host describes the backend's own machines (for the
  // simulator, hosts of its profile's devices_per_host: one host at 4 and 8 devices, as the
  // reference); with it, hosts of that many devices.
  std::optional<Topology> topology;
  if (record.devices_per_host > 0) {
    topology.emplace();
    topology->memory_bytes.assign(n, 0);
    topology->devices_per_host = record.devices_per_host;
  }
  SHARDPLAN_ASSIGN_OR_RETURN(
      CommMeasurement measured,
      backend.MeasureComm(topology.has_value() ? &*topology : nullptr, record.dim_sums,
                          record.start_offsets_ms, record.batch_size));
  if (measured.forward_ms.size() != n || measured.backward_ms.size() != n) {
    return absl::InternalError(absl::StrCat("sample ", record.id, ": backend returned times for ",
                                            measured.forward_ms.size(), " devices, expected ", n));
  }
  record.forward_ms.clear();
  record.backward_ms.clear();
  for (double ms : measured.forward_ms) record.forward_ms.push_back(RoundMs(ms));
  for (double ms : measured.backward_ms) record.backward_ms.push_back(RoundMs(ms));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CollectResult> Collect(HardwareBackend& backend, const TablePool* pool,
                                      const SampleGenerator& generator,
                                      const CollectOptions& options) {
  if (options.kind != "compute" && options.kind != "comm" && options.kind != "shards" &&
      options.kind != "collective") {
    return absl::InvalidArgumentError(absl::StrCat(
        "kind is '", options.kind, "', expected 'compute', 'comm', 'shards' or 'collective'"));
  }
  if (options.kind == "collective" && !backend.measures_collectives()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the ", backend.name(), " backend does not measure collectives"));
  }
  if (options.samples < 0) return absl::InvalidArgumentError("samples is negative");
  if (options.batch_size <= 0) return absl::InvalidArgumentError("batch_size is not positive");
  const bool layout = options.kind == "comm" || options.kind == "collective";
  if (layout && options.num_devices <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(options.kind, " collection needs num_devices > 0"));
  }
  if (options.kind == "collective" && options.devices_per_host <= 0) {
    return absl::InvalidArgumentError("collective collection needs devices_per_host > 0");
  }
  CostRecord header;
  header.kind = options.kind;
  header.backend = backend.name();
  header.hardware_profile = backend.hardware_profile();
  header.seed = options.seed;
  header.batch_size = options.batch_size;
  header.num_devices = layout ? options.num_devices : 0;
  header.devices_per_host = layout ? options.devices_per_host : 0;
  header.pool = options.pool;
  header.pool_sha256 = options.pool_sha256;

  SHARDPLAN_ASSIGN_OR_RETURN(ExistingFile existing,
                             ReadExisting(options.out_path, header, options.samples));
  CollectResult result;
  result.already_present = existing.present_count;
  result.torn_bytes_dropped = existing.torn_bytes;
  if (existing.present_count == options.samples) return result;

  const int fd = ::open(options.out_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return absl::PermissionDeniedError(ErrnoMessage("cannot open", options.out_path));
  FileCloser closer(fd);
  const auto sync = [&]() -> absl::Status {
    if (::fsync(fd) != 0)
      return absl::InternalError(ErrnoMessage("cannot fsync", options.out_path));
    return absl::OkStatus();
  };

  ProgressReporter progress(options.progress, absl::StrCat("collect ", options.kind),
                            options.samples, existing.present_count, options.progress_interval);
  int64_t done = existing.present_count;
  int64_t unsynced = 0;
  absl::Status failure;
  for (int64_t id = 0; id < options.samples; ++id) {
    if (existing.present[static_cast<size_t>(id)]) continue;
    if (options.stop != nullptr && options.stop->load(std::memory_order_relaxed)) {
      result.interrupted = true;
      break;
    }
    CostRecord record = header;
    record.id = id;
    failure = generator(id, record);
    if (failure.ok()) {
      backend.BeginSample(record.id);
      failure = Measure(backend, pool, record);
    }
    if (!failure.ok()) break;
    record.time = options.now ? options.now() : WallClockNow();
    failure = WriteLine(fd, CostRecordToJsonLine(record) + "\n", options.out_path);
    if (!failure.ok()) break;
    ++result.appended;
    ++done;
    if (++unsynced >= options.fsync_every) {
      failure = sync();
      if (!failure.ok()) break;
      unsynced = 0;
    }
    progress.Update(done);
  }
  // Everything written so far stays valid, also when the run failed: sync it before reporting.
  const absl::Status synced = sync();
  if (result.appended > 0 || result.interrupted) progress.Finish(done);
  if (!failure.ok()) {
    return absl::Status(failure.code(),
                        absl::StrCat(failure.message(), " (", result.appended,
                                     " records written this run are kept; rerun to resume)"));
  }
  SHARDPLAN_RETURN_IF_ERROR(synced);
  return result;
}

}  // namespace shardplan
