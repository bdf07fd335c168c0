#ifndef SHARDPLAN_SERVER_HARDWARE_H_
#define SHARDPLAN_SERVER_HARDWARE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "costmodels/model_registry.h"
#include "server/planning_result.h"

namespace shardplan {

// PlanWarning::code of a plan whose task names no hardware (task.topology.hardware): its costs
// assume the hardware of the model the server chose.
inline constexpr char kHardwareAssumed[] = "HARDWARE_ASSUMED";

// The hardware a model's costs are of, as a task names it (Topology::hardware): the manifest's
// hardware_profile without the simulator's "sim-" prefix ("sim-h100-sxm" -> "h100-sxm", as the
// simulator's profiles are called; "cpu-amd-epyc" stays). "" when the manifest names none.
std::string HardwareOf(const ModelManifest& manifest);

// The hardware a task may name: the simulator's profiles and the hardware of every loaded
// neural model, sorted and distinct.
std::vector<std::string> KnownHardware(const ModelRegistry& models);

// OK for "" (not named) and for a known name; INVALID_ARGUMENT
// "task.topology.hardware: unknown hardware "x"; known: a100-sxm4, h100-sxm, ..." otherwise.
absl::Status CheckHardware(const std::string& hardware, const ModelRegistry& models);

// For a request whose task names no hardware and whose model the server chose: a warning
// saying which hardware the plan's costs assume (`model`'s); nullopt when the task names its
// hardware, or the model is analytic (of no particular device) or records no hardware.
std::optional<PlanWarning> HardwareAssumedWarning(const std::string& task_hardware,
                                                  const ModelManifest& model,
                                                  const ModelRegistry& models);

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_HARDWARE_H_
