#include "wire/access_figures_proto.h"

namespace shardplan::wire {

v1::AccessFigures AccessFiguresToProto(const AccessFigures& figures) {
  v1::AccessFigures proto;
  for (int d = 0; d < figures.num_devices(); ++d) {
    v1::AccessFigures::Device* device = proto.add_devices();
    device->set_device(d);
    device->set_memory_bytes(figures.memory_bytes[d]);
    device->set_lookups(figures.lookups[d]);
    device->set_lookup_bytes(figures.lookup_bytes[d]);
    device->set_fetch_us(figures.fetch_us[d]);
    device->set_fetch_bytes(figures.fetch_bytes[d]);
    device->set_serve_us(figures.serve_us[d]);
  }
  if (figures.num_devices() <= kMaxDevicesWithMatrix) {
    proto.mutable_communication_us()->Add(figures.communication_us.begin(),
                                          figures.communication_us.end());
  } else {
    proto.set_matrix_omitted(true);
  }
  proto.set_total_communication_us(figures.total_communication_us);
  proto.set_total_fetch_bytes(figures.total_fetch_bytes);
  proto.set_memory_balance(figures.memory_balance);
  proto.set_lookup_balance(figures.lookup_balance);
  proto.set_communication_balance(figures.communication_balance);
  return proto;
}

}  // namespace shardplan::wire
