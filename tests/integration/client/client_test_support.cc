#include "tests/integration/client/client_test_support.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"

namespace shardplan::testing {

shardplan::v1::Task ExampleTask(const std::string& name) {
  const std::string path = absl::StrCat(SHARDPLAN_EXAMPLES_DIR, "/", name);
  std::ifstream file(path);
  std::ostringstream json;
  json << file.rdbuf();
  shardplan::v1::Task task;
  const auto status = google::protobuf::util::JsonStringToMessage(json.str(), &task);
  EXPECT_TRUE(file && status.ok()) << path << ": " << status.ToString();
  return task;
}

shardplan::v1::Task SmallTask(int num_tables, int num_devices) {
  shardplan::v1::Task task;
  for (int i = 0; i < num_tables; ++i) {
    shardplan::v1::Table* table = task.add_tables();
    table->set_name(absl::StrCat("t", i));
    table->set_rows(1000 * (i + 1));
    table->set_dim(16);
    table->set_pooling_factor(2.0 + i);
  }
  task.mutable_topology()->set_num_devices(num_devices);
  task.mutable_topology()->set_device_memory_gib(16);
  return task;
}

shardplan::v1::PlanRequest SlowRequest() {
  shardplan::v1::PlanRequest request;
  *request.mutable_task() = SmallTask(14, 4);
  request.set_algorithm("exhaustive");
  (*request.mutable_parameters())["max_placements"] = "1000000000";
  return request;
}

}  // namespace shardplan::testing
