#include "planner/domain/task.h"

#include <algorithm>

namespace shardplan {

bool IsCanonical(const Task& task) {
  const auto by_name = [](const Table& a, const Table& b) { return a.name < b.name; };
  if (!std::is_sorted(task.tables.begin(), task.tables.end(), by_name)) return false;
  for (const std::vector<std::string>& group : task.colocate) {
    if (!std::is_sorted(group.begin(), group.end())) return false;
  }
  return std::is_sorted(task.colocate.begin(), task.colocate.end());
}

Task CanonicalTask(Task task) {
  std::stable_sort(task.tables.begin(), task.tables.end(),
                   [](const Table& a, const Table& b) { return a.name < b.name; });
  for (std::vector<std::string>& group : task.colocate) std::sort(group.begin(), group.end());
  std::sort(task.colocate.begin(), task.colocate.end());
  return task;
}

}  // namespace shardplan
