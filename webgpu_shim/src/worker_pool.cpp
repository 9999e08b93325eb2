#include "worker_pool.h"

#include <algorithm>

namespace wgpu::detail {

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerPool::Run(std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(job));
    // One more thread when more jobs wait than threads idle, up to the machine's cores.
    const size_t cores = std::max(1u, std::thread::hardware_concurrency());
    if (jobs_.size() > idle_ && threads_.size() < cores) threads_.emplace_back([this] { Loop(); });
  }
  wake_.notify_one();
}

void WorkerPool::Loop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      ++idle_;
      wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      --idle_;
      if (jobs_.empty()) return;  // stopping, and nothing left
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
}

}  // namespace wgpu::detail
