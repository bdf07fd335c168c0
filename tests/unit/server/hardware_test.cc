#include "server/hardware.h"

#include <memory>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

using ::testing::ElementsAre;

ModelManifest Manifest(const std::string& kind, const std::string& hardware_profile) {
  ModelManifest manifest;
  manifest.name = hardware_profile.empty() ? "anon" : hardware_profile;
  manifest.version = "1";
  manifest.kind = kind;
  manifest.hardware_profile = hardware_profile;
  return manifest;
}

TEST(HardwareTest, ABundlesHardwareIsItsProfileWithoutTheSimulatorsPrefix) {
  EXPECT_EQ(HardwareOf(Manifest("neural", "sim-h100-sxm")), "h100-sxm");
  EXPECT_EQ(HardwareOf(Manifest("neural", "cpu-amd-epyc")), "cpu-amd-epyc");
  EXPECT_EQ(HardwareOf(Manifest("neural", "")), "");
}

TEST(HardwareTest, KnownHardwareIsTheSimulatorsProfilesAndTheLoadedModels) {
  ModelRegistry models;
  ASSERT_TRUE(RegisterBuiltinModels(models).ok());  // analytic@1: no device
  EXPECT_THAT(KnownHardware(models), ElementsAre("a100-sxm4", "a100-sxm4-roce", "h100-sxm", "rtx2080ti"));
  const std::shared_ptr<const CostModel> any = models.Resolve("analytic@1")->model;
  ASSERT_TRUE(models.Add(Manifest("neural", "cpu-amd-epyc"), any).ok());
  ASSERT_TRUE(models.Add(Manifest("neural", "sim-h100-sxm"), any).ok());
  EXPECT_THAT(KnownHardware(models),
              ElementsAre("a100-sxm4", "a100-sxm4-roce", "cpu-amd-epyc", "h100-sxm", "rtx2080ti"));
  EXPECT_TRUE(CheckHardware("", models).ok());
  EXPECT_TRUE(CheckHardware("cpu-amd-epyc", models).ok());
  const absl::Status status = CheckHardware("sim-h100-sxm", models);  // a profile, not a device
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "task.topology.hardware: unknown hardware \"sim-h100-sxm\"; known: a100-sxm4, a100-sxm4-roce, "
            "cpu-amd-epyc, h100-sxm, rtx2080ti (the simulator's profiles and the loaded models' "
            "hardware)");
  // A hostile name is cut in the message.
  EXPECT_LT(CheckHardware(std::string(100000, 'x'), models).message().size(), 400u);
}

TEST(HardwareTest, TheWarningIsForAChosenLearnedModelOfAKnownHardware) {
  ModelRegistry models;
  ASSERT_TRUE(RegisterBuiltinModels(models).ok());
  const std::optional<PlanWarning> warning =
      HardwareAssumedWarning("", Manifest("neural", "sim-rtx2080ti"), models);
  ASSERT_TRUE(warning.has_value());
  EXPECT_EQ(warning->code, "HARDWARE_ASSUMED");
  EXPECT_EQ(warning->field, "task.topology.hardware");
  EXPECT_EQ(warning->message,
            "the task names no hardware, so its costs assume rtx2080ti, the hardware cost model "
            "sim-rtx2080ti@1 was trained on; name the devices' hardware (known: a100-sxm4, a100-sxm4-roce, "
            "h100-sxm, rtx2080ti) for the newest model trained on it (docs/server.md, "
            "\"Defaults\")");
  EXPECT_FALSE(HardwareAssumedWarning("rtx2080ti", Manifest("neural", "sim-rtx2080ti"), models));
  EXPECT_FALSE(HardwareAssumedWarning("", Manifest("analytic", "torchrec-default"), models));
  EXPECT_FALSE(HardwareAssumedWarning("", Manifest("neural", ""), models));
}

}  // namespace
}  // namespace shardplan
