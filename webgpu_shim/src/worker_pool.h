// Threads for work the driver can do in parallel (pipeline builds for CreateComputePipelineAsync).
// Started on first use; the destructor finishes the queued jobs and joins.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace wgpu::detail {

class WorkerPool {
 public:
  WorkerPool() = default;
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Jobs must not own the objects whose destruction could destroy this pool.
  void Run(std::function<void()> job);

 private:
  void Loop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  size_t idle_ = 0;  // threads waiting for a job
  bool stopping_ = false;
};

}  // namespace wgpu::detail
