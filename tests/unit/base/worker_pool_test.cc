#include "base/worker_pool.h"

#include <atomic>
#include <vector>

#include "gtest/gtest.h"

namespace shardplan {
namespace {

TEST(WorkerPoolTest, RunsEveryTaskOnceOnAValidWorker) {
  for (int threads : {1, 2, 4}) {
    WorkerPool pool(threads);
    EXPECT_EQ(pool.size(), threads);
    for (int64_t tasks : {0, 1, 7, 1000}) {  // one pool serves many loops
      std::vector<std::atomic<int>> runs(tasks);
      std::atomic<int> bad_worker{0};
      pool.Run(tasks, [&](int64_t task, int worker) {
        runs[task].fetch_add(1);
        if (worker < 0 || worker >= threads) bad_worker.fetch_add(1);
      });
      for (int64_t t = 0; t < tasks; ++t) EXPECT_EQ(runs[t].load(), 1) << threads << " " << t;
      EXPECT_EQ(bad_worker.load(), 0);
    }
  }
}

TEST(WorkerPoolTest, OneThreadRunsInlineInOrder) {
  WorkerPool pool(1);
  std::vector<int64_t> order;
  pool.Run(5, [&](int64_t task, int worker) {
    EXPECT_EQ(worker, 0);
    order.push_back(task);
  });
  EXPECT_EQ(order, (std::vector<int64_t>{0, 1, 2, 3, 4}));
}

}  // namespace
}  // namespace shardplan
