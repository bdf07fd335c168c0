#include "server/result_proto.h"

#include <utility>

#include "wire/plan_proto.h"

namespace shardplan {

v1::Plan ResultToProto(const PlanningResult& result) {
  v1::Plan proto = wire::PlanToProto(result.plan);
  proto.set_request_hash(result.request_hash);
  proto.set_selection(result.selection);
  for (const PlanWarning& warning : result.warnings) {
    v1::PlanWarning* out = proto.add_warnings();
    out->set_code(warning.code);
    out->set_field(warning.field);
    out->set_message(warning.message);
  }
  return proto;
}

absl::StatusOr<PlanningResult> ResultFromProto(const v1::Plan& proto) {
  absl::StatusOr<Plan> plan = wire::PlanFromProto(proto);
  if (!plan.ok()) return plan.status();
  PlanningResult result;
  result.plan = *std::move(plan);
  result.request_hash = proto.request_hash();
  result.selection = proto.selection();
  for (const v1::PlanWarning& warning : proto.warnings()) {
    result.warnings.push_back({warning.code(), warning.field(), warning.message()});
  }
  return result;
}

}  // namespace shardplan
