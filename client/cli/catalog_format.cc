#include "client/cli/catalog_format.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
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
  TextTable table({"algorithm", "default", "cost model", "sharding", "description"});
  for (const auto& algorithm : response.algorithms()) {
    std::vector<std::string> types;
    for (int type : algorithm.sharding_types()) {
      types.push_back(ShardingTypeName(static_cast<shardplan::v1::ShardingType>(type)));
    }
    table.AddRow({algorithm.name(), algorithm.is_default() ? "*" : "",
                  algorithm.uses_cost_model() ? "yes" : "no", absl::StrJoin(types, ","),
                  algorithm.description()});
  }
  std::string text = table.Render();
  for (const auto& algorithm : response.algorithms()) {
    if (algorithm.parameters().empty()) continue;
    TextTable parameters({"parameter", "type", "default", "range", "description"});
    for (const auto& parameter : algorithm.parameters()) {
      parameters.AddRow({parameter.name(), parameter.type(), parameter.default_value(),
                         Range(parameter), parameter.description()});
    }
    absl::StrAppend(&text, "\n", algorithm.name(), " parameters (--param NAME=VALUE):\n",
                    parameters.Render());
  }
  return text;
}

std::string FormatModelsText(const shardplan::v1::ListModelsResponse& response) {
  TextTable table({"model", "version", "kind", "default", "latest", "hardware", "devices", "data",
                   "test mse (ms^2)", "created", "description"});
  for (const auto& model : response.models()) {
    // proto maps have no order; sub-models sorted by name read the same on every call.
    const std::map<std::string, double> mse(model.test_mse().begin(), model.test_mse().end());
    std::vector<std::string> mse_text;
    for (const auto& [sub_model, value] : mse) {
      mse_text.push_back(absl::StrCat(sub_model, "=", absl::StrFormat("%.4g", value)));
    }
    table.AddRow({model.name(), model.version(), model.kind(), model.is_default() ? "*" : "",
                  model.is_latest() ? "*" : "",
                  model.backend().empty()
                      ? model.hardware_profile()
                      : absl::StrCat(model.hardware_profile(), " (", model.backend(), ")"),
                  !model.device_counts().empty() ? absl::StrJoin(model.device_counts(), ",")
                  : model.costs_interconnect()   ? "any"
                                                 : "any (no comm)",
                  model.data_size() > 0 ? absl::StrCat(model.data_size()) : "-",
                  mse_text.empty() ? "-" : absl::StrJoin(mse_text, " "),
                  model.created().empty() ? "-" : model.created(), model.description()});
  }
  return table.Render();
}

std::string FormatReloadText(const shardplan::v1::ReloadModelsResponse& response) {
  std::string text;
  for (const std::string& id : response.loaded()) absl::StrAppend(&text, "loaded    ", id, "\n");
  for (const std::string& id : response.removed()) absl::StrAppend(&text, "removed   ", id, "\n");
  for (const auto& refused : response.refused()) {
    absl::StrAppend(&text, "refused   ", refused.directory(), ": ", refused.reason(), "\n");
  }
  absl::StrAppend(&text, response.loaded_size(), " loaded, ", response.unchanged_size(),
                  " unchanged, ", response.removed_size(), " removed, ", response.refused_size(),
                  " refused\n");
  return text;
}

}  // namespace shardplan::cli
