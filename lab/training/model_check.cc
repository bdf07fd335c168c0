#include "lab/training/model_check.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/statistics.h"
#include "base/status_macros.h"
#include "costmodels/neural/collective_model.h"
#include "costmodels/neural/table_features.h"

namespace shardplan::training {
namespace {

// Squared and relative errors of predictions against measurements, output by output.
struct Errors {
  double squared_sum = 0.0;
  std::vector<double> relative;

  void Add(double predicted, double measured) {
    const double d = predicted - measured;
    squared_sum += d * d;
    // A measurement of 0 ms (an idle device's comm) has no relative error.
    if (measured > 0.0) relative.push_back(std::abs(d) / measured);
  }
};

absl::StatusOr<SubModelCheck> Summarise(const LoadedBundle& bundle, const std::string& name,
                                        const std::string& file, int64_t samples,
                                        const Errors& errors, int64_t outputs, double max_mse_ratio,
                                        const std::string& layout = "") {
  auto it = bundle.info.training.find(name);
  if (it == bundle.info.training.end()) {
    return absl::FailedPreconditionError(
        absl::StrCat(file, ": ", bundle.manifest.id(), " records no training of '", name,
                     "', so there is no test error to compare with"));
  }
  SubModelCheck check;
  check.name = name;
  check.data_file = file;
  check.samples = samples;
  check.outputs = outputs;
  check.mse = errors.squared_sum / static_cast<double>(outputs);
  check.manifest_test_mse = it->second.test_mse;
  check.layout = layout;
  if (!layout.empty()) {
    // Held out: a layout the training data did not hold. A trained layout is judged against its
    // own test MSE, or the pooled one when its records all fell in the other splits.
    const std::vector<DeviceLayout>& trained = bundle.model->device_set_comm()->trained_layouts;
    check.held_out_layout = std::none_of(trained.begin(), trained.end(),
                                         [&](const DeviceLayout& l) { return l.name() == layout; });
    const auto own = it->second.test_mse_by_layout.find(layout);
    if (own != it->second.test_mse_by_layout.end()) check.manifest_test_mse = own->second;
  }
  check.mse_ratio = check.manifest_test_mse > 0.0 ? check.mse / check.manifest_test_mse
                    : check.mse > 0.0             ? std::numeric_limits<double>::infinity()
                                                  : 0.0;
  check.median_relative_error = Percentile(errors.relative, 50);
  check.p95_relative_error = Percentile(errors.relative, 95);
  check.max_relative_error = Percentile(errors.relative, 100);
  // A layout the model never saw cannot have drifted from it: its error is reported (how well
  // the model generalises), not judged.
  check.drifted = !check.held_out_layout && check.mse_ratio > max_mse_ratio;
  return check;
}

absl::Status CheckProfile(const LoadedBundle& bundle, const std::string& file,
                          const std::string& profile) {
  if (profile != bundle.info.hardware_profile) {
    return absl::FailedPreconditionError(
        absl::StrCat(file, ": measured on hardware profile '", profile, "', but ",
                     bundle.manifest.id(), " models '", bundle.info.hardware_profile, "'"));
  }
  return absl::OkStatus();
}

absl::StatusOr<SubModelCheck> CheckCompute(const LoadedBundle& bundle, const ComputeDataset& data,
                                           double max_mse_ratio) {
  SHARDPLAN_RETURN_IF_ERROR(CheckProfile(bundle, data.path, data.hardware_profile));
  if (data.feature_set != bundle.model->compute().feature_set()) {
    return absl::FailedPreconditionError(
        absl::StrCat(data.path, ": read as ", ShardFeatureSetName(data.feature_set),
                     " features, but ", bundle.manifest.id(), "'s compute model takes ",
                     ShardFeatureSetName(bundle.model->compute().feature_set()), " ones"));
  }
  if (bundle.model->compute().calls() == ComputeCalls::kPerKernelCall &&
      data.multi_call_samples > 0) {
    // Raw feature rows do not say which call a shard runs in, so such a sample has no answer.
    return absl::FailedPreconditionError(absl::StrCat(
        data.path, ": ", data.multi_call_samples, " samples hold shards of several kernel calls; ",
        bundle.manifest.id(),
        " costs one call at a time (collect with --one-call or --sharding-type)"));
  }
  Errors errors;
  const std::span<const float> features(data.features);
  const size_t width = static_cast<size_t>(data.width);
  for (int64_t i = 0; i < data.size(); ++i) {
    const auto begin = static_cast<size_t>(data.row_offsets[i]) * width;
    const auto end = static_cast<size_t>(data.row_offsets[i + 1]) * width;
    errors.Add(bundle.model->compute().PredictFromFeatures(features.subspan(begin, end - begin)),
               data.labels[i]);
  }
  return Summarise(bundle, "compute", data.path, data.size(), errors, data.size(), max_mse_ratio);
}

absl::StatusOr<std::vector<SubModelCheck>> CheckComm(const LoadedBundle& bundle,
                                                     const CommDataset& data, double max_mse_ratio,
                                                     int default_devices_per_host) {
  SHARDPLAN_RETURN_IF_ERROR(CheckProfile(bundle, data.path, data.hardware_profile));
  const int n = data.num_devices;
  auto it = bundle.model->comm().find(n);
  const std::optional<DeviceSetCommModels>& any = bundle.model->device_set_comm();
  if (it == bundle.model->comm().end() && !any.has_value()) {
    return absl::FailedPreconditionError(absl::StrCat(data.path, ": ", bundle.manifest.id(),
                                                      " has no comm models for ", n, " devices"));
  }
  // A fixed-N pair where the bundle has one, else its device-set pair on the records' layout
  // (not recorded: the simulator profile's hosts, as the training data's).
  const bool fixed = it != bundle.model->comm().end();
  int per_host = data.devices_per_host;
  if (!fixed && per_host == 0) per_host = default_devices_per_host;
  const auto predict = [&](CommDirection direction, std::span<const int64_t> dims,
                           std::span<const double> waits) {
    if (fixed) {
      return (direction == CommDirection::kForward ? it->second.forward : it->second.backward)
          .Predict(dims, waits);
    }
    return (direction == CommDirection::kForward ? any->forward : any->backward)
        .Predict(dims, waits, per_host, data.batch_size);
  };
  Errors forward, backward;
  std::vector<int64_t> dim_sums(n);
  std::vector<double> waits(n);
  for (int64_t s = 0; s < data.size(); ++s) {
    const size_t f = static_cast<size_t>(s) * 2 * n;  // [dim_sums, waits]
    for (int d = 0; d < n; ++d) {
      dim_sums[d] = static_cast<int64_t>(std::llround(data.forward_inputs[f + d]));
      waits[d] = data.forward_inputs[f + n + d];
    }
    const std::vector<double> fwd = predict(CommDirection::kForward, dim_sums, waits);
    const std::vector<double> bwd = predict(CommDirection::kBackward, dim_sums, {});
    for (int d = 0; d < n; ++d) {
      const size_t label = static_cast<size_t>(s) * n + d;
      forward.Add(fwd[d], data.forward_labels[label]);
      backward.Add(bwd[d], data.backward_labels[label]);
    }
  }
  const int64_t outputs = data.size() * n;
  std::vector<SubModelCheck> checks;
  for (const auto& [direction, errors] :
       {std::pair<const char*, const Errors*>{"forward", &forward}, {"backward", &backward}}) {
    SHARDPLAN_ASSIGN_OR_RETURN(SubModelCheck check,
                               Summarise(bundle,
                                         fixed ? absl::StrCat("comm_", n, "_", direction)
                                               : absl::StrCat("comm_any_", direction),
                                         data.path, data.size(), *errors, outputs, max_mse_ratio,
                                         fixed ? "" : DeviceLayout::Of(n, per_host).name()));
    checks.push_back(std::move(check));
  }
  return checks;
}

absl::StatusOr<std::vector<SubModelCheck>> CheckCollectives(const LoadedBundle& bundle,
                                                            const CollectiveDataset& data,
                                                            double max_mse_ratio) {
  const std::string file = absl::StrJoin(data.paths, ",");
  SHARDPLAN_RETURN_IF_ERROR(CheckProfile(bundle, file, data.hardware_profile));
  const std::optional<NeuralCollectiveModel>& model = bundle.model->collectives();
  if (!model.has_value()) {
    return absl::FailedPreconditionError(
        absl::StrCat(file, ": ", bundle.manifest.id(), " has no collective model"));
  }
  // Per collective: squared errors of ln(ms) (the model's training loss), relative of ms.
  constexpr Collective kKinds[] = {Collective::kAllToAll, Collective::kReduceScatter,
                                   Collective::kAllGather, Collective::kAllReduce};
  std::vector<Errors> errors(4);
  std::vector<int64_t> count(4, 0);
  for (size_t r = 0; r < data.labels.size(); ++r) {
    const double ms = model->PredictMemberMs(std::span<const float>(
        data.rows.data() + r * kNumCollectiveCallFeatures, kNumCollectiveCallFeatures));
    const double measured = std::exp(static_cast<double>(data.labels[r]));
    Errors& e = errors[static_cast<size_t>(data.row_collective[r])];
    const double d = std::log(ms) - data.labels[r];
    e.squared_sum += d * d;
    e.relative.push_back(std::abs(ms - measured) / measured);
    ++count[static_cast<size_t>(data.row_collective[r])];
  }
  std::vector<SubModelCheck> checks;
  for (Collective kind : kKinds) {
    const size_t k = static_cast<size_t>(kind);
    if (count[k] == 0) continue;
    SHARDPLAN_ASSIGN_OR_RETURN(SubModelCheck check,
                               Summarise(bundle, "collectives", file, data.size(), errors[k],
                                         count[k], max_mse_ratio));
    check.layout = CollectiveName(kind);
    checks.push_back(std::move(check));
  }
  return checks;
}

}  // namespace

bool ModelCheckReport::drifted() const {
  return std::any_of(sub_models.begin(), sub_models.end(),
                     [](const SubModelCheck& c) { return c.drifted; });
}

absl::StatusOr<ModelCheckReport> CheckModel(const LoadedBundle& bundle, const ModelCheckData& data,
                                            double max_mse_ratio) {
  if (!(max_mse_ratio > 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_mse_ratio: must be > 0, got ", max_mse_ratio));
  }
  if (data.compute == nullptr && data.comm.empty() && data.collectives == nullptr) {
    return absl::InvalidArgumentError("no cost data to check the model on");
  }
  ModelCheckReport report;
  report.model = bundle.manifest.id();
  report.max_mse_ratio = max_mse_ratio;
  if (data.compute != nullptr) {
    if (data.compute->size() == 0) {
      return absl::InvalidArgumentError(absl::StrCat(data.compute->path, ": no samples"));
    }
    SHARDPLAN_ASSIGN_OR_RETURN(SubModelCheck check,
                               CheckCompute(bundle, *data.compute, max_mse_ratio));
    report.sub_models.push_back(std::move(check));
  }
  for (const CommDataset* comm : data.comm) {
    if (comm->size() == 0)
      return absl::InvalidArgumentError(absl::StrCat(comm->path, ": no samples"));
    SHARDPLAN_ASSIGN_OR_RETURN(
        std::vector<SubModelCheck> checks,
        CheckComm(bundle, *comm, max_mse_ratio, data.default_devices_per_host));
    for (SubModelCheck& check : checks) report.sub_models.push_back(std::move(check));
  }
  if (data.collectives != nullptr) {
    if (data.collectives->labels.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(absl::StrJoin(data.collectives->paths, ","), ": no samples"));
    }
    SHARDPLAN_ASSIGN_OR_RETURN(std::vector<SubModelCheck> checks,
                               CheckCollectives(bundle, *data.collectives, max_mse_ratio));
    for (SubModelCheck& check : checks) report.sub_models.push_back(std::move(check));
  }
  return report;
}

std::string FormatModelCheck(const ModelCheckReport& report) {
  std::string out = absl::StrFormat(
      "%s on fresh cost data (drifted: MSE above %.3gx the manifest's test MSE)\n"
      "%-20s %-8s %8s %12s %12s %8s %9s %9s %9s  %s\n",
      report.model, report.max_mse_ratio, "sub-model", "layout", "samples", "MSE ms^2", "test MSE",
      "ratio", "rel p50", "rel p95", "rel max", "verdict");
  bool held_out = false;
  for (const SubModelCheck& c : report.sub_models) {
    held_out = held_out || c.held_out_layout;
    const std::string layout = c.layout.empty()    ? "-"
                               : c.held_out_layout ? c.layout + "*"
                                                   : c.layout;
    absl::StrAppendFormat(&out, "%-20s %-8s %8d %12.4g %12.4g %8.3g %8.1f%% %8.1f%% %8.1f%%  %s\n",
                          c.name, layout, c.samples, c.mse, c.manifest_test_mse, c.mse_ratio,
                          100 * c.median_relative_error, 100 * c.p95_relative_error,
                          100 * c.max_relative_error,
                          c.held_out_layout ? "held out"
                          : c.drifted       ? "DRIFTED"
                                            : "ok");
  }
  if (held_out) {
    absl::StrAppend(
        &out,
        "* a layout the training data did not hold: its MSE is set against the pooled test MSE "
        "and not judged\n");
  }
  absl::StrAppend(
      &out, report.drifted() ? "verdict: drifted; retrain on fresh data\n" : "verdict: holds\n");
  return out;
}

}  // namespace shardplan::training
