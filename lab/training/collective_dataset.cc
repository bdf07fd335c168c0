// LoadCollectiveDataset: collective cost records -> call-feature rows (datasets.h).
#include <array>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "costmodels/neural/collective_model.h"
#include "lab/training/datasets.h"
#include "lab/training/record_lines.h"

namespace shardplan::training {

absl::StatusOr<CollectiveDataset> LoadCollectiveDataset(const std::vector<std::string>& paths) {
  CollectiveDataset data;
  data.paths = paths;
  data.record_offsets.push_back(0);
  for (const std::string& path : paths) {
    std::string backend, profile;
    const absl::Status status = ForEachRecord(
        path, "collective", [&](int64_t line, const CostRecord& record) -> absl::Status {
          if (backend.empty()) {
            backend = record.backend;
            profile = record.hardware_profile;
            if (data.backend.empty()) {
              data.backend = backend;
              data.hardware_profile = profile;
            } else if (backend != data.backend || profile != data.hardware_profile) {
              return RecordError(path, line,
                                 absl::StrCat("backend/hardware_profile '", backend, "/", profile,
                                              "' differs from ", paths.front(), "'s '",
                                              data.backend, "/", data.hardware_profile, "'"));
            }
          }
          const Topology topology = CollectiveLayoutOf(record);
          const std::vector<CollectiveCall> calls =
              FuseCollectiveCalls(CollectiveDemandsOf(record));
          if (calls.size() != 1) {
            return RecordError(path, line,
                               absl::StrCat("demands: they make ", calls.size(),
                                            " collective calls; a record holds one"));
          }
          const CollectiveCall& call = calls.front();
          const std::vector<double>& ms =
              call.pass == Pass::kForward ? record.forward_ms : record.backward_ms;
          std::array<float, kNumCollectiveCallFeatures> features;
          for (size_t i = 0; i < call.peers.size(); ++i) {
            if (CollectiveCallIsFree(call, i)) continue;
            const double member_ms = ms[static_cast<size_t>(call.peers[i])];
            if (!(member_ms > 0.0) || !std::isfinite(member_ms)) {
              return RecordError(path, line,
                                 absl::StrCat("device ", call.peers[i], " spends ", member_ms,
                                              " ms in the call; need a positive time"));
            }
            CollectiveCallFeatures(call, i, topology, features);
            data.rows.insert(data.rows.end(), features.begin(), features.end());
            data.labels.push_back(static_cast<float>(std::log(member_ms)));
            data.row_collective.push_back(static_cast<int32_t>(call.collective));
          }
          data.record_offsets.push_back(static_cast<int64_t>(data.labels.size()));
          return absl::OkStatus();
        });
    if (!status.ok()) return status;
  }
  return data;
}

}  // namespace shardplan::training
