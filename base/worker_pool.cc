#include "base/worker_pool.h"

namespace shardplan {

WorkerPool::WorkerPool(int threads) {
  for (int w = 1; w < threads; ++w) helpers_.emplace_back([this, w] { HelperLoop(w); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& helper : helpers_) helper.join();
}

void WorkerPool::TakeTasks(int worker) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (next_task_ < num_tasks_) {
    const int64_t task = next_task_++;
    const auto* fn = fn_;
    lock.unlock();
    (*fn)(task, worker);
    lock.lock();
    if (--unfinished_ == 0) done_.notify_all();
  }
}

void WorkerPool::HelperLoop(int worker) {
  uint64_t seen = 0;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    TakeTasks(worker);
  }
}

void WorkerPool::Run(int64_t num_tasks, const std::function<void(int64_t, int)>& fn) {
  if (num_tasks <= 0) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    fn_ = &fn;
    num_tasks_ = num_tasks;
    next_task_ = 0;
    unfinished_ = num_tasks;
    ++generation_;
  }
  if (!helpers_.empty()) wake_.notify_all();
  TakeTasks(0);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return unfinished_ == 0; });
  fn_ = nullptr;
  num_tasks_ = 0;
}

}  // namespace shardplan
