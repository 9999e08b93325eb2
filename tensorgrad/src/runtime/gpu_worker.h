// The GPU thread (upstream's worker): it opens the device and runs every piece of GPU work of one
// compile, in the order the calls were made, so the device is never used from two threads.
#pragma once

#include <webgpu/webgpu_cpp.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "pipeline_cache.h"
#include "tensorgrad/future.h"
#include "tensorgrad/runtime.h"

namespace tg::detail {

// The device and what hangs off it. Touched only on the GPU thread.
struct GpuContext {
  wgpu::Instance instance;
  wgpu::Device device;
  wgpu::Queue queue;
  wgpu::Limits limits;
  std::string adapterName;
  bool cpuAdapter = false;  // a software device (lavapipe, SwiftShader)
  std::unique_ptr<PipelineCache> pipelines;
  std::vector<std::string> errors;  // uncaptured device errors and device loss, oldest first
  // Set by the device-lost callback (on the GPU thread); read by sharedWorker on any thread, which
  // then opens a new device for later compiles.
  std::atomic<bool> lost{false};
  std::string lostMessage;  // GPU thread only

  // Blocks until `future` completes.
  void wait(wgpu::Future future) const { instance.WaitAny(future, UINT64_MAX); }

  // The second halves of pipelined jobs (GpuWorker::postPipelined), oldest first: a step's
  // readback, run once the next step is submitted, before any other job, or when no job waits.
  struct Unfinished {
    std::function<void(GpuContext&)> finish;
    std::function<bool()> ready{};  // whether `finish` would not wait on the device (none: never)
  };
  std::deque<Unfinished> unfinished;
  // Runs the unfinished work, oldest first, until only `keep` remain.
  void finishUnfinished(size_t keep = 0);
  // Whether the oldest unfinished work would finish without waiting on the device (a poll).
  bool oldestUnfinishedReady() const;
  // The errors reported since the last call, joined, and the loss once the device is lost; empty
  // if none.
  std::string takeErrors();
};

// How long a GPU thread with a step in flight and no job watches for the next job before it
// waits on that step (200 µs; the spin ends sooner once the step is ready). For tests, which
// lengthen it so that a loaded machine's scheduling cannot decide them. Returns the previous.
std::chrono::microseconds setStepInFlightSpinForTesting(std::chrono::microseconds spin);

// Opens the device an options' adapter names; throws CompileError with checkWebGPU's advice.
// A WebGPU instance on the Vulkan driver the options select (vulkanDriver, device); throws
// CompileError when the driver named is missing.
wgpu::Instance createInstance(const RuntimeOptions& options);
std::unique_ptr<GpuContext> openGpu(const RuntimeOptions& options);

class GpuWorker {
 public:
  explicit GpuWorker(const RuntimeOptions& options);  // throws CompileError when no device opens
  ~GpuWorker();
  GpuWorker(const GpuWorker&) = delete;
  GpuWorker& operator=(const GpuWorker&) = delete;

  // Whether the device runs on the CPU (readable from any thread).
  bool onCpu() const { return onCpu_; }
  // The device's maxComputeWorkgroupStorageSize (readable from any thread).
  int64_t workgroupStorageBytes() const { return workgroupStorageBytes_; }
  // The device's maxBufferSize (readable from any thread).
  uint64_t maxBufferSize() const { return maxBufferSize_; }
  // Whether the device was lost (readable from any thread). A lost worker stays with the compiles
  // made on it, whose calls then fail; sharedWorker hands later compiles a new one.
  bool lost() const { return lostFlag_->load(); }

  // Runs fn(GpuContext&) on the GPU thread after everything posted before it; its value or
  // exception arrives through the future.
  template <class F>
  auto post(F fn) -> std::future<std::invoke_result_t<F&, GpuContext&>> {
    using R = std::invoke_result_t<F&, GpuContext&>;
    auto promise = std::make_shared<std::promise<R>>();
    std::future<R> result = promise->get_future();
    enqueue([promise, fn = std::make_shared<std::optional<F>>(std::move(fn))](GpuContext& gpu) {
      // The job's captures are released before the caller wakes, so the caller — not this
      // thread — drops the last reference to what they own (this worker included).
      try {
        if constexpr (std::is_void_v<R>) {
          (**fn)(gpu);
          fn->reset();
          promise->set_value();
        } else {
          R value = (**fn)(gpu);
          fn->reset();
          promise->set_value(std::move(value));
        }
      } catch (...) {
        fn->reset();
        promise->set_exception(std::current_exception());
      }
    });
    return result;
  }

  // Posts a job that may leave work to finish later in GpuContext::unfinished (a submitted step
  // whose readback is not yet mapped). Other jobs first finish all unfinished work; after a
  // pipelined job, everything but the newest unfinished item is finished, so the GPU holds at most
  // two steps and results arrive in call order.
  void postPipelined(std::function<void(GpuContext&)> job) { enqueue(std::move(job), true); }

 private:
  struct State {
    std::mutex mutex;
    std::condition_variable wake;
    struct Job {
      std::function<void(GpuContext&)> run;
      bool pipelined = false;
    };
    std::deque<Job> jobs;
    std::atomic<uint64_t> enqueued{0};  // jobs posted so far: what an idle GPU thread spins on
    bool stop = false;
    std::unique_ptr<GpuContext> gpu;
  };
  void enqueue(std::function<void(GpuContext&)> job, bool pipelined = false);
  static void loop(const std::shared_ptr<State>& state);

  std::shared_ptr<State> state_;
  std::thread thread_;
  bool onCpu_ = false;
  int64_t workgroupStorageBytes_ = 0;
  uint64_t maxBufferSize_ = 0;
  const std::atomic<bool>* lostFlag_ = nullptr;  // the GpuContext's, which the state keeps
};

// How long calls of one kind (a compile's steps, a forward's runs) take from the call to the
// result, learnt from the last one, and the wait plan that gives a caller (tg::Future): on a GPU,
// sleep until shortly before the expected end (an eighth of the expected time early, at least
// 200 µs and at most 2 ms, as the shim's waits do) and poll from there, for as long again past
// it; with no call before, poll for 200 µs. On a software device, no plan (sleep at once).
class ResultLatency {
 public:
  WaitPlan planFor(WaitPlan::Clock::time_point call, bool onCpu) const;
  void record(WaitPlan::Clock::duration took) {
    last_.store(std::chrono::duration_cast<std::chrono::nanoseconds>(took).count(),
                std::memory_order_relaxed);
  }

 private:
  std::atomic<int64_t> last_{-1};  // ns; -1 before the first result
};

// The GPU thread for `options`' device: one per adapter and cache directory, started on first
// use and kept until releaseDevices() (as a browser keeps one GPU process).
std::shared_ptr<GpuWorker> sharedWorker(const RuntimeOptions& options);

}  // namespace tg::detail
