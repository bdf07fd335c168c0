#include "client/cli/catalog_format.h"

#include <vector>

#include "absl/strings/str_cat.h"
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
  TextTable table(
      {"model", "version", "kind", "default", "latest", "hardware", "devices", "description"});
  for (const auto& model : response.models()) {
    table.AddRow({model.name(), model.version(), model.kind(), model.is_default() ? "*" : "",
                  model.is_latest() ? "*" : "", model.hardware_profile(),
                  model.device_counts().empty() ? "any" : absl::StrJoin(model.device_counts(), ","),
                  model.description()});
  }
  return table.Render();
}

}  // namespace shardplan::cli
