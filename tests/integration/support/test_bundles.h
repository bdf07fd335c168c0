#ifndef SHARDPLAN_TESTS_INTEGRATION_SUPPORT_TEST_BUNDLES_H_
#define SHARDPLAN_TESTS_INTEGRATION_SUPPORT_TEST_BUNDLES_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "costmodels/neural/neural_cost_model.h"

namespace shardplan::testing_bundles {

// A neural cost model with weights drawn from `seed` and zero comm costs, so it costs tasks of
// any device count.
absl::StatusOr<NeuralCostModel> TinyNeuralModel(const std::string& name,
                                                const std::string& version, unsigned seed = 1);

// Writes TinyNeuralModel(name, version, seed) as a bundle under `models_root` with
// WriteModelBundle (atomic), with a hardware profile, data size and test MSE to list.
absl::Status WriteTinyBundle(const std::string& models_root, const std::string& name,
                             const std::string& version, unsigned seed = 1);

// Overwrites `file` of the bundle `models_root`/`name`/`version` with `bytes` (to corrupt it).
absl::Status OverwriteBundleFile(const std::string& models_root, const std::string& name,
                                 const std::string& version, const std::string& file,
                                 const std::string& bytes);

// A fresh empty directory under the test's temporary directory.
std::string FreshTempDir(const std::string& label);

}  // namespace shardplan::testing_bundles

#endif  // SHARDPLAN_TESTS_INTEGRATION_SUPPORT_TEST_BUNDLES_H_
