#include "planner/domain/task.h"

#include <algorithm>

namespace shardplan {

Task CanonicalTask(Task task) {
  std::stable_sort(task.tables.begin(), task.tables.end(),
                   [](const Table& a, const Table& b) { return a.name < b.name; });
  for (std::vector<std::string>& group : task.colocate) std::sort(group.begin(), group.end());
  std::sort(task.colocate.begin(), task.colocate.end());
  return task;
}

}  // namespace shardplan
