#include "client/cli/catalog_format.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/text_wrap.h"
#include "client/cli/plan_format.h"
#include "client/cli/text_table.h"

namespace shardplan::cli {
namespace {

std::string Range(const shardplan::v1::AlgorithmParameter& parameter) {
  if (parameter.min_value().empty() && parameter.max_value().empty()) return "";
  return absl::StrCat("[", parameter.min_value().empty() ? "-inf" : parameter.min_value(), ", ",
                      parameter.max_value().empty() ? "inf" : parameter.max_value(), "]");
}

}  // namespace

std::string FormatAlgorithmsText(const shardplan::v1::ListAlgorithmsResponse& response) {
  // The long cells wrap: the sharding types first (down to the longest one), then the description.
  TextTable table({"algorithm", "default", "cost model", "sharding", "description"});
  table.Wrap(3).Wrap(4);
  for (const auto& algorithm : response.algorithms()) {
    std::vector<std::string> types;
    for (int type : algorithm.sharding_types()) {
      types.push_back(ShardingTypeName(static_cast<shardplan::v1::ShardingType>(type)));
    }
    table.AddRow({algorithm.name(), algorithm.is_default() ? "*" : "",
                  algorithm.uses_cost_model() ? "yes" : "no", absl::StrJoin(types, ", "),
                  algorithm.description()});
  }
  std::string text = table.Render();
  for (const auto& algorithm : response.algorithms()) {
    if (algorithm.parameters().empty()) continue;
    TextTable parameters({"parameter", "type", "default", "range", "description"});
    parameters.Wrap(4);
    for (const auto& parameter : algorithm.parameters()) {
      parameters.AddRow({parameter.name(), parameter.type(), parameter.default_value(),
                         Range(parameter), parameter.description()});
    }
    absl::StrAppend(&text, "\n", algorithm.name(), " parameters (--param NAME=VALUE):\n",
                    parameters.Render());
  }
  return text;
}

namespace {

// "compute=0.25 comm_4_forward=0.11" by sub-model name (proto maps have no order), or "-".
std::string TestMse(const shardplan::v1::ModelInfo& model) {
  const std::map<std::string, double> mse(model.test_mse().begin(), model.test_mse().end());
  std::vector<std::string> parts;
  for (const auto& [sub_model, value] : mse) {
    parts.push_back(absl::StrCat(sub_model, "=", absl::StrFormat("%.4g", value)));
  }
  return parts.empty() ? "-" : absl::StrJoin(parts, " ");
}

std::string Hardware(const shardplan::v1::ModelInfo& model) {
  return model.backend().empty()
             ? model.hardware_profile()
             : absl::StrCat(model.hardware_profile(), " (", model.backend(), ")");
}

bool IsPolicy(const shardplan::v1::ModelInfo& model) { return model.kind() == "policy"; }

std::string Devices(const shardplan::v1::ModelInfo& model) {
  if (IsPolicy(model)) return "-";  // a policy plans for any device count its algorithm takes
  return !model.device_counts().empty() ? absl::StrJoin(model.device_counts(), ",")
         : model.costs_interconnect()   ? "any"
                                        : "any (no comm)";
}

std::string DataSize(const shardplan::v1::ModelInfo& model) {
  return model.data_size() > 0 ? absl::StrCat(model.data_size()) : "-";
}

// `models --long`: a block per version, every field, long ones wrapped.
std::string ModelBlocks(const shardplan::v1::ListModelsResponse& response) {
  std::string text;
  for (const auto& model : response.models()) {
    std::vector<std::string> marks;
    if (model.is_default()) marks.push_back("default");
    if (model.is_latest()) marks.push_back("latest");
    if (!text.empty()) text += "\n";
    absl::StrAppend(&text, model.name(), "@", model.version(),
                    marks.empty() ? "" : absl::StrCat("  (", absl::StrJoin(marks, ", "), ")"),
                    "\n");
    absl::StrAppend(&text, "  kind:         ", model.kind(), "\n");
    if (IsPolicy(model)) {
      absl::StrAppend(&text, "  algorithm:    ", model.algorithm(), "\n");
      absl::StrAppend(&text, "  trained on:   ", Hardware(model), "\n");
      absl::StrAppend(&text, "  data:         ", DataSize(model),
                      model.data_size() > 0 ? " training tasks" : "", "\n");
    } else {
      absl::StrAppend(&text, "  hardware:     ", Hardware(model), "\n");
      absl::StrAppend(&text, "  devices:      ", Devices(model), "\n");
      absl::StrAppend(&text, "  data:         ", DataSize(model),
                      model.data_size() > 0 ? " samples" : "", "\n");
      absl::StrAppend(
          &text,
          HangingIndent("  test mse:     ",
                        absl::StrCat(TestMse(model), model.test_mse().empty() ? "" : " (ms^2)")));
    }
    absl::StrAppend(&text, "  created:      ", model.created().empty() ? "-" : model.created(),
                    "\n");
    if (!model.description().empty()) {
      absl::StrAppend(&text, HangingIndent("  description:  ", model.description()));
    }
  }
  return text;
}

}  // namespace

std::string FormatModelsText(const shardplan::v1::ListModelsResponse& response, bool long_view) {
  if (long_view) return ModelBlocks(response);
  TextTable table({"model", "version", "kind", "default", "latest", "hardware", "devices", "data"},
                  {false, false, false, false, false, false, false, true});
  // Policies have no devices or samples but an algorithm: a table of their own, which also
  // keeps the models' table within 100 columns beside their longer names.
  TextTable policies({"policy", "version", "algorithm", "latest", "trained on", "tasks"},
                     {false, false, false, false, false, true});
  bool any_policy = false;
  for (const auto& model : response.models()) {
    if (IsPolicy(model)) {
      any_policy = true;
      policies.AddRow({model.name(), model.version(), model.algorithm(),
                       model.is_latest() ? "*" : "", model.hardware_profile(), DataSize(model)});
      continue;
    }
    table.AddRow({model.name(), model.version(), model.kind(), model.is_default() ? "*" : "",
                  model.is_latest() ? "*" : "", Hardware(model), Devices(model), DataSize(model)});
  }
  std::string text = absl::StrCat(
      table.Render(), "(--long: test MSE per sub-model, creation time and description)\n");
  if (any_policy) {
    absl::StrAppend(&text, "\n", policies.Render(),
                    "(trained policies of the learned planners, docs/policies.md; --long: creation "
                    "time and description)\n");
  }
  return text;
}

std::string FormatReloadText(const shardplan::v1::ReloadModelsResponse& response) {
  std::string text;
  for (const std::string& id : response.loaded()) absl::StrAppend(&text, "loaded    ", id, "\n");
  for (const std::string& id : response.removed()) absl::StrAppend(&text, "removed   ", id, "\n");
  for (const std::string& id : response.policies_loaded()) {
    absl::StrAppend(&text, "loaded    ", id, " (policy)\n");
  }
  for (const std::string& id : response.policies_removed()) {
    absl::StrAppend(&text, "removed   ", id, " (policy)\n");
  }
  for (const auto& refused : response.refused()) {
    absl::StrAppend(&text, HangingIndent("refused   ", absl::StrCat(refused.directory(), ": ",
                                                                    refused.reason())));
  }
  absl::StrAppend(&text, response.loaded_size(), " loaded, ", response.unchanged_size(),
                  " unchanged, ", response.removed_size(), " removed, ", response.refused_size(),
                  " refused");
  const int policies = response.policies_loaded_size() + response.policies_unchanged_size() +
                       response.policies_removed_size();
  if (policies > 0) {
    absl::StrAppend(&text, "; policies: ", response.policies_loaded_size(), " loaded, ",
                    response.policies_unchanged_size(), " unchanged, ",
                    response.policies_removed_size(), " removed");
  }
  text += "\n";
  return text;
}

}  // namespace shardplan::cli
