// LoadDeviceSetCommDataset: comm cost records of any device count -> per-device rows
// (datasets.h).
#include <algorithm>
#include <cmath>
#include <span>

#include "absl/strings/str_cat.h"
#include "lab/training/datasets.h"
#include "lab/training/record_lines.h"

namespace shardplan::training {

absl::StatusOr<DeviceSetCommDataset> LoadDeviceSetCommDataset(
    const std::vector<std::string>& paths, const DefaultHostLayout& default_devices_per_host) {
  DeviceSetCommDataset data;
  int default_per_host = 0;  // of the first record's machine, which every record shares
  data.record_offsets.push_back(0);
  for (const std::string& path : paths) {
    const absl::Status status =
        ForEachRecord(path, "comm", [&](int64_t line, const CostRecord& record) -> absl::Status {
          if (data.record_offsets.size() == 1) {  // the first record of the first file
            data.backend = record.backend;
            data.hardware_profile = record.hardware_profile;
            data.batch_size = record.batch_size;
            default_per_host = default_devices_per_host(record.backend, record.hardware_profile);
          }
          if (record.backend != data.backend || record.hardware_profile != data.hardware_profile ||
              record.batch_size != data.batch_size) {
            return RecordError(
                path, line,
                absl::StrCat("backend ", record.backend, ", profile ", record.hardware_profile,
                             ", batch ", record.batch_size, "; the first record has ", data.backend,
                             ", ", data.hardware_profile, ", ", data.batch_size,
                             " (one dataset, one machine and batch)"));
          }
          const int n = record.num_devices;
          const DeviceLayout layout = DeviceLayout::Of(
              n, record.devices_per_host > 0 ? record.devices_per_host : default_per_host);
          const auto known = std::find(data.layouts.begin(), data.layouts.end(), layout);
          data.record_layout.push_back(static_cast<int32_t>(known - data.layouts.begin()));
          if (known == data.layouts.end()) data.layouts.push_back(layout);
          for (const std::vector<double>* values :
               {&record.forward_ms, &record.backward_ms, &record.start_offsets_ms}) {
            for (double v : *values) {
              if (!std::isfinite(v)) return RecordError(path, line, "a time is not finite");
            }
          }
          AppendDeviceSetCommFeatures(CommDirection::kForward, record.dim_sums,
                                      record.start_offsets_ms, layout.devices_per_host, 1.0,
                                      data.forward_rows);
          for (int d = 0; d < n; ++d) {
            data.forward_labels.push_back(static_cast<float>(record.forward_ms[d]));
            data.backward_labels.push_back(static_cast<float>(record.backward_ms[d]));
          }
          data.record_offsets.push_back(data.record_offsets.back() + n);
          return absl::OkStatus();
        });
    if (!status.ok()) return status;
    data.paths.push_back(path);
  }
  if (data.size() == 0) return absl::InvalidArgumentError("device-set comm data: no records");
  return data;
}

}  // namespace shardplan::training
