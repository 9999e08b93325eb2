// The GPU thread (upstream's worker): it opens the device and runs every piece of GPU work of one
// compile, in the order the calls were made, so the device is never used from two threads.
#pragma once

#include <webgpu/webgpu_cpp.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

#include "pipeline_cache.h"
#include "tensorgrad/runtime.h"

namespace tg::detail {

// The device and what hangs off it. Touched only on the GPU thread.
struct GpuContext {
  wgpu::Instance instance;
  wgpu::Device device;
  wgpu::Queue queue;
  wgpu::Limits limits;
  std::string adapterName;
  std::unique_ptr<PipelineCache> pipelines;
  std::vector<std::string> errors;  // uncaptured device errors and device loss, oldest first

  // Blocks until `future` completes.
  void wait(wgpu::Future future) const { instance.WaitAny(future, UINT64_MAX); }
  // The errors reported since the last call, joined; empty if none.
  std::string takeErrors();
};

// Opens the device an options' adapter names; throws CompileError with checkWebGPU's advice.
std::unique_ptr<GpuContext> openGpu(const RuntimeOptions& options);

class GpuWorker {
 public:
  explicit GpuWorker(const RuntimeOptions& options);  // throws CompileError when no device opens
  ~GpuWorker();
  GpuWorker(const GpuWorker&) = delete;
  GpuWorker& operator=(const GpuWorker&) = delete;

  // Runs fn(GpuContext&) on the GPU thread after everything posted before it; its value or
  // exception arrives through the future.
  template <class F>
  auto post(F fn) -> std::future<std::invoke_result_t<F&, GpuContext&>> {
    using R = std::invoke_result_t<F&, GpuContext&>;
    auto task = std::make_shared<std::packaged_task<R(GpuContext&)>>(std::move(fn));
    std::future<R> result = task->get_future();
    enqueue([task](GpuContext& gpu) { (*task)(gpu); });
    return result;
  }

 private:
  struct State {
    std::mutex mutex;
    std::condition_variable wake;
    std::deque<std::function<void(GpuContext&)>> jobs;
    bool stop = false;
    std::unique_ptr<GpuContext> gpu;
  };
  void enqueue(std::function<void(GpuContext&)> job);
  static void loop(const std::shared_ptr<State>& state);

  std::shared_ptr<State> state_;
  std::thread thread_;
};

}  // namespace tg::detail
