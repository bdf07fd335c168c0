#ifndef SHARDPLAN_BASE_WORKER_POOL_H_
#define SHARDPLAN_BASE_WORKER_POOL_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace shardplan {

// A fixed set of threads that run the tasks of one parallel loop at a time; the calling thread
// is worker 0 and takes tasks too, so a pool of 1 runs everything inline. Kept for many loops
// (training batches, search steps) so threads are not started per loop. Which worker runs which task varies; callers keep results
// per task (not per worker) to stay deterministic.
class WorkerPool {
 public:
  explicit WorkerPool(int threads);  // threads >= 1
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int size() const { return static_cast<int>(helpers_.size()) + 1; }

  // Runs fn(task, worker) for every task in [0, num_tasks); returns when all are done.
  void Run(int64_t num_tasks, const std::function<void(int64_t task, int worker)>& fn);

 private:
  void HelperLoop(int worker);
  void TakeTasks(int worker);

  std::vector<std::thread> helpers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void(int64_t, int)>* fn_ = nullptr;
  int64_t num_tasks_ = 0;
  int64_t next_task_ = 0;
  int64_t unfinished_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

}  // namespace shardplan

#endif  // SHARDPLAN_BASE_WORKER_POOL_H_
