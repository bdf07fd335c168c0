#include "server/hardware.h"

#include <algorithm>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "groundtruth/sim/hardware_profiles.h"

namespace shardplan {
namespace {

constexpr char kSimPrefix[] = "sim-";

// Task fields are echoed in errors; a hostile megabyte-long name is not.
std::string Quoted(const std::string& name) {
  constexpr size_t kMaxShown = 128;
  return absl::StrCat("\"", name.size() > kMaxShown ? name.substr(0, kMaxShown) + "..." : name,
                      "\"");
}

}  // namespace

std::string HardwareOf(const ModelManifest& manifest) {
  if (manifest.kind == "analytic") return manifest.hardware_profile;  // "torchrec-default"
  const std::string& profile = manifest.hardware_profile;
  if (absl::StartsWith(profile, kSimPrefix)) return profile.substr(sizeof(kSimPrefix) - 1);
  return profile;
}

std::vector<std::string> KnownHardware(const ModelRegistry& models) {
  std::set<std::string> names;
  for (const HardwareProfile& profile : HardwareProfiles()) names.insert(profile.name);
  for (const ModelRegistry::Entry& entry : models.List()) {
    if (entry.manifest.kind == "analytic") continue;  // TorchRec's defaults are no device
    if (std::string hardware = HardwareOf(entry.manifest); !hardware.empty()) {
      names.insert(std::move(hardware));
    }
  }
  return {names.begin(), names.end()};
}

absl::Status CheckHardware(const std::string& hardware, const ModelRegistry& models) {
  if (hardware.empty()) return absl::OkStatus();
  const std::vector<std::string> known = KnownHardware(models);
  if (std::find(known.begin(), known.end(), hardware) != known.end()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "task.topology.hardware: unknown hardware ", Quoted(hardware), "; known: ",
      absl::StrJoin(known, ", "), " (the simulator's profiles and the loaded models' hardware)"));
}

std::optional<PlanWarning> HardwareAssumedWarning(const std::string& task_hardware,
                                                  const ModelManifest& model,
                                                  const ModelRegistry& models) {
  // analytic@1 is TorchRec's estimator of no particular device: its selection says why.
  if (!task_hardware.empty() || model.kind == "analytic") return std::nullopt;
  const std::string assumed = HardwareOf(model);
  if (assumed.empty()) return std::nullopt;
  return PlanWarning{
      .code = kHardwareAssumed,
      .field = "task.topology.hardware",
      .message = absl::StrCat(
          "the task names no hardware, so its costs assume ", assumed, ", the hardware cost model ",
          model.id(), " was trained on",
          "; name the devices' hardware (known: ", absl::StrJoin(KnownHardware(models), ", "),
          ") for the newest model trained on it (docs/server.md, \"Defaults\")")};
}

}  // namespace shardplan
