// LoadCommDataset: comm cost records -> forward and backward model inputs (datasets.h).
#include <cmath>
#include <span>

#include "absl/strings/str_cat.h"
#include "lab/training/datasets.h"
#include "lab/training/record_lines.h"

namespace shardplan::training {
namespace {

// Appends `values` to `out` unless one is not finite; the error names `field`.
template <typename T>
absl::Status AppendFinite(std::span<const T> values, const char* field, std::vector<float>& out) {
  for (size_t i = 0; i < values.size(); ++i) {
    const double value = static_cast<double>(values[i]);
    if (!std::isfinite(value)) return absl::InvalidArgumentError(absl::StrCat(field, "[", i, "]: not finite"));
    out.push_back(static_cast<float>(value));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CommDataset> LoadCommDataset(const std::string& path) {
  CommDataset data;
  data.path = path;
  const absl::Status status = ForEachRecord(
      path, "comm", [&](int64_t line, const CostRecord& record) -> absl::Status {
        if (data.num_devices == 0) {
          if (record.num_devices <= 0) {
            return RecordError(path, line, absl::StrCat("num_devices: ", record.num_devices,
                                                        " <= 0"));
          }
          data.num_devices = record.num_devices;
          data.devices_per_host = record.devices_per_host;
          data.batch_size = record.batch_size;
          data.backend = record.backend;
          data.hardware_profile = record.hardware_profile;
        } else if (record.num_devices != data.num_devices) {
          return RecordError(path, line,
                             absl::StrCat("num_devices: ", record.num_devices, ", line 1 has ",
                                          data.num_devices, " (one file, one device count)"));
        } else if (record.devices_per_host != data.devices_per_host) {
          return RecordError(
              path, line,
              absl::StrCat("devices_per_host: ", record.devices_per_host, ", line 1 has ",
                           data.devices_per_host, " (one file, one host layout)"));
        }
        // CostRecordFromJsonLine checked that every list has num_devices entries.
        const std::span<const int64_t> dim_sums(record.dim_sums);
        for (absl::Status s : {AppendFinite(dim_sums, "dim_sums", data.forward_inputs),
                               AppendFinite(std::span<const double>(record.start_offsets_ms),
                                            "start_offsets_ms", data.forward_inputs),
                               AppendFinite(std::span<const double>(record.forward_ms),
                                            "forward_ms", data.forward_labels),
                               AppendFinite(dim_sums, "dim_sums", data.backward_inputs),
                               AppendFinite(std::span<const double>(record.backward_ms),
                                            "backward_ms", data.backward_labels)}) {
          if (!s.ok()) return s;
        }
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return data;
}

}  // namespace shardplan::training
