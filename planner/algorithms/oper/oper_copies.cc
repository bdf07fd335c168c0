#include "planner/algorithms/oper/oper_copies.h"

namespace shardplan::oper {

void Copies::AddReplica(const Partition& partition, int32_t p, int32_t device) {
  devices[p].push_back(device);
  path[p][device] = device;
  replica_bytes[device] += partition.bytes;
}

int64_t Copies::replicas() const {
  int64_t count = 0;
  for (const std::vector<int32_t>& holders : devices) {
    count += static_cast<int64_t>(holders.size()) - 1;
  }
  return count;
}

Copies OwnersOnly(const std::vector<int32_t>& owner, int num_devices) {
  Copies copies;
  copies.replica_bytes.assign(num_devices, 0);
  for (int32_t device : owner) {
    copies.devices.push_back({device});
    copies.path.emplace_back(num_devices, device);
  }
  return copies;
}

std::vector<std::vector<double>> CommunicationMatrix(const std::vector<Partition>& partitions,
                                                     const Copies& copies,
                                                     const FetchCostMatrix& cost) {
  const int devices = cost.num_devices();
  std::vector<std::vector<double>> matrix(devices, std::vector<double>(devices, 0.0));
  for (size_t p = 0; p < partitions.size(); ++p) {
    const Partition& partition = partitions[p];
    for (int i = 0; i < devices; ++i) {
      const int j = copies.path[p][i];
      matrix[i][j] +=
          partition.lookups * cost.FetchUs(i, j, static_cast<double>(partition.fetch_bytes));
    }
  }
  return matrix;
}

double OffDiagonalTotal(const std::vector<std::vector<double>>& matrix) {
  double total = 0.0;
  for (size_t i = 0; i < matrix.size(); ++i) {
    for (size_t j = 0; j < matrix[i].size(); ++j) {
      if (i != j) total += matrix[i][j];
    }
  }
  return total;
}

}  // namespace shardplan::oper
