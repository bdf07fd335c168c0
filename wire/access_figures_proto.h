#ifndef SHARDPLAN_WIRE_ACCESS_FIGURES_PROTO_H_
#define SHARDPLAN_WIRE_ACCESS_FIGURES_PROTO_H_

// The domain's AccessFigures (planner/domain/access_figures.h) -> shardplan.v1.AccessFigures.

#include "planner/domain/access_figures.h"
#include "shardplan/v1/planner.pb.h"

namespace shardplan::wire {

// Above this many devices the M x M matrix stays out of the message (matrix_omitted): 128^2
// doubles are 128 KiB; 1,024^2 would be 8 MiB, past gRPC's default message limit.
inline constexpr int kMaxDevicesWithMatrix = 128;

v1::AccessFigures AccessFiguresToProto(const AccessFigures& figures);

}  // namespace shardplan::wire

#endif  // SHARDPLAN_WIRE_ACCESS_FIGURES_PROTO_H_
