#include "gpu_worker.h"

#include "cache_files.h"
#include "tensorgrad/vulkan_driver.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>

namespace tg::detail {

namespace {
std::atomic<int> spinOverride{-1};  // spinWaitsForTesting: -1 the device decides, 0 off, 1 on
std::atomic<uint64_t> spinsStarted{0};  // gpuThreadSpinsForTesting
std::atomic<uint64_t> stepsQueuedBehind{0};  // pipelinedJobsBehindUnfinishedForTesting
std::atomic<int64_t> stepInFlightSpinUs{200};  // setStepInFlightSpinForTesting
std::atomic<uint64_t> resultPolls{0};   // resultPollsForTesting

// Whether waits on this device spin or poll rather than sleep at once.
bool spinsOn(bool cpuAdapter) {
  const int spin = spinOverride.load();
  return spin < 0 ? !cpuAdapter : spin > 0;
}
}  // namespace

void countResultPoll() { resultPolls.fetch_add(1, std::memory_order_relaxed); }

WaitPlan ResultLatency::planFor(WaitPlan::Clock::time_point call, bool onCpu) const {
  using std::chrono::microseconds, std::chrono::nanoseconds;
  if (!spinsOn(onCpu)) return {};
  const int64_t last = last_.load(std::memory_order_relaxed);
  if (last < 0) return {.pollFrom = call, .pollUntil = call + microseconds(200)};
  const nanoseconds expected(last);
  const nanoseconds margin =
      std::clamp<nanoseconds>(expected / 8, microseconds(200), microseconds(2000));
  return {.pollFrom = call + expected - margin, .pollUntil = call + expected + margin};
}

std::chrono::microseconds setStepInFlightSpinForTesting(std::chrono::microseconds spin) {
  return std::chrono::microseconds(stepInFlightSpinUs.exchange(spin.count()));
}

void GpuContext::finishUnfinished(size_t keep) {
  while (unfinished.size() > keep) {
    Unfinished next = std::move(unfinished.front());
    unfinished.pop_front();
    next.finish(*this);
  }
}

bool GpuContext::oldestUnfinishedReady() const {
  return unfinished.empty() || (unfinished.front().ready && unfinished.front().ready());
}

std::string GpuContext::takeErrors() {
  std::string all;
  for (const std::string& e : errors) all += (all.empty() ? "" : "\n") + e;
  errors.clear();
  // A lost device fails every call from then on, each saying so.
  if (lost)
    all += (all.empty() ? "" : "\n") + std::string("device lost: ") + lostMessage +
           " (calls on compiles made on this device fail; a new compile opens a new device)";
  return all;
}

wgpu::Instance createInstance(const RuntimeOptions& options) {
  std::string driver;
  try {
    driver = resolveVulkanDriver(options.vulkanDriver, options.device);
  } catch (const std::runtime_error& e) {
    throw CompileError(e.what());
  }
  wgpu::InstanceDescriptor desc;
  desc.vulkanDriverFile = driver;
  return wgpu::CreateInstance(&desc);
}

std::unique_ptr<GpuContext> openGpu(const RuntimeOptions& options) {
  auto gpu = std::make_unique<GpuContext>();
  gpu->instance = createInstance(options);
  wgpu::RequestAdapterOptions ao;
  ao.adapterName = options.device;
  wgpu::Adapter adapter;
  std::string why;
  gpu->wait(gpu->instance.RequestAdapter(
      &ao, wgpu::CallbackMode::WaitAnyOnly,
      [&](wgpu::RequestAdapterStatus, wgpu::Adapter a, std::string_view message) {
        adapter = std::move(a);
        why = message;
      }));
  if (!adapter) throw CompileError("tensorgrad: no WebGPU adapter. " + why);
  wgpu::AdapterInfo info;
  adapter.GetInfo(&info);
  gpu->adapterName = info.device;
  gpu->cpuAdapter = info.adapterType == wgpu::AdapterType::CPU;
  adapter.GetLimits(&gpu->limits);
  // The adapter's full limits, as upstream requests them.
  wgpu::DeviceDescriptor dd;
  dd.label = "tensorgrad";
  dd.requiredLimits = &gpu->limits;
  GpuContext* raw = gpu.get();
  // The device's blob cache, one file per key: the SPIR-V the shim translates each kernel's WGSL
  // to, and the driver's compiled pipelines.
  wgpu::DawnCacheDeviceDescriptor cache;
  if (const auto dir = resolveCacheDir(options.cacheDir); !dir.empty()) {
    const auto file = [dir](std::span<const std::byte> key) {
      return dir / (std::string(reinterpret_cast<const char*>(key.data()), key.size()) + ".bin");
    };
    // Asked first with no room (the size) and then, on the same thread, with room for the bytes,
    // as Dawn asks: the file is read once, on the first call, and kept for the second. The shim
    // loads from several threads at once, hence one kept file per thread.
    cache.SetLoadCacheDataCallback(
        [file](std::span<const std::byte> key, std::span<std::byte> value) {
          thread_local std::filesystem::path keptPath;
          thread_local std::optional<std::string> kept;
          const std::filesystem::path path = file(key);
          if (value.empty() || path != keptPath) {
            kept = readCacheFile(path);
            keptPath = path;
          }
          const size_t size = kept ? kept->size() : 0;
          if (kept && !value.empty())
            std::memcpy(value.data(), kept->data(), std::min(value.size(), size));
          if (!value.empty()) {
            kept.reset();
            keptPath.clear();
          }
          return size;
        });
    cache.SetStoreCacheDataCallback([file](std::span<const std::byte> key,
                                           std::span<const std::byte> value) {
      writeCacheFile(file(key),
                     std::string_view(reinterpret_cast<const char*>(value.data()), value.size()));
    });
    dd.nextInChain = &cache;
  }
  dd.SetUncapturedErrorCallback(
      [raw](const wgpu::Device&, wgpu::ErrorType, std::string_view m) { raw->errors.emplace_back(m); });
  dd.SetDeviceLostCallback(wgpu::CallbackMode::AllowSpontaneous,
                           [raw](const wgpu::Device&, wgpu::DeviceLostReason reason, std::string_view m) {
                             if (reason == wgpu::DeviceLostReason::Destroyed) return;
                             raw->lostMessage = m;
                             raw->lost = true;
                           });
  gpu->wait(adapter.RequestDevice(&dd, wgpu::CallbackMode::WaitAnyOnly,
                                  [&](wgpu::RequestDeviceStatus, wgpu::Device d, std::string_view m) {
                                    gpu->device = std::move(d);
                                    why = m;
                                  }));
  if (!gpu->device) throw CompileError("tensorgrad: could not open " + gpu->adapterName + ": " + why);
  gpu->queue = gpu->device.GetQueue();
  gpu->pipelines = std::make_unique<PipelineCache>(gpu->instance, gpu->device);
  return gpu;
}

namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<GpuWorker>> workers;
};
// Never destroyed: a device torn down from a static destructor could outlive its driver's own
// exit handlers.
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

// One worker (one device) per adapter choice, driver and cache directory.
std::string workerKey(const RuntimeOptions& options) {
  return options.device + '\n' + options.vulkanDriver + '\n' + resolveCacheDir(options.cacheDir).string();
}

}  // namespace

std::shared_ptr<GpuWorker> sharedWorker(const RuntimeOptions& options) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::shared_ptr<GpuWorker>& w = r.workers[workerKey(options)];
  if (!w || w->lost()) w = std::make_shared<GpuWorker>(options);
  return w;
}

}  // namespace tg::detail

namespace tg {

void releaseDevices() {
  std::map<std::string, std::shared_ptr<detail::GpuWorker>> released;
  {
    detail::Registry& r = detail::registry();
    std::lock_guard lock(r.mutex);
    released.swap(r.workers);
  }
  // Idle workers stop here, outside the lock (joining their threads).
}

void spinWaitsForTesting(std::optional<bool> on) {
  detail::spinOverride.store(on ? (*on ? 1 : 0) : -1);
}
uint64_t gpuThreadSpinsForTesting() { return detail::spinsStarted.load(); }
uint64_t pipelinedJobsBehindUnfinishedForTesting() { return detail::stepsQueuedBehind.load(); }
uint64_t resultPollsForTesting() { return detail::resultPolls.load(); }

bool loseDeviceForTesting(const RuntimeOptions& options, std::string_view message) {
  std::shared_ptr<detail::GpuWorker> worker;
  {
    detail::Registry& r = detail::registry();
    std::lock_guard lock(r.mutex);
    auto it = r.workers.find(detail::workerKey(options));
    if (it == r.workers.end() || it->second->lost()) return false;
    worker = it->second;
  }
  worker
      ->post([m = std::string(message)](detail::GpuContext& gpu) {
        gpu.device.ForceLoss(wgpu::DeviceLostReason::Unknown, m);
      })
      .get();
  return true;
}

}  // namespace tg

namespace tg::detail {

GpuWorker::GpuWorker(const RuntimeOptions& options) : state_(std::make_shared<State>()) {
  std::promise<void> opened;
  std::future<void> ready = opened.get_future();
  thread_ = std::thread([state = state_, options, opened = std::move(opened)]() mutable {
    try {
      state->gpu = openGpu(options);
      opened.set_value();
    } catch (...) {
      opened.set_exception(std::current_exception());
      return;
    }
    loop(state);
  });
  try {
    ready.get();
  } catch (...) {
    thread_.join();
    throw;
  }
  onCpu_ = state_->gpu->cpuAdapter;  // written before `opened` was set, never after
  workgroupStorageBytes_ = state_->gpu->limits.maxComputeWorkgroupStorageSize;
  maxBufferSize_ = state_->gpu->limits.maxBufferSize;
  lostFlag_ = &state_->gpu->lost;
}

GpuWorker::~GpuWorker() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stop = true;
  }
  state_->wake.notify_all();
  // The last owner may be a job running on the GPU thread itself; the loop then ends on its own
  // once that job returns (it holds its own reference to the state).
  if (thread_.get_id() == std::this_thread::get_id()) {
    thread_.detach();
  } else {
    thread_.join();
  }
}

void GpuWorker::enqueue(std::function<void(GpuContext&)> job, bool pipelined) {
  {
    std::lock_guard lock(state_->mutex);
    state_->jobs.push_back({std::move(job), pipelined});
    state_->enqueued.fetch_add(1, std::memory_order_release);
  }
  state_->wake.notify_one();
}

namespace {

// How long an idle GPU thread on a GPU watches for the next job before it sleeps. A thread woken
// from a condition variable started its job 19-51 µs after the post on an H100 host
// (bench/RESULTS.md, sixteenth session), a cost every step read back before the next is posted
// pays; the caller itself wakes 27-71 µs after the last result, so the next call comes well
// within the spin. On a software device it never spins: it would take a core from the
// rasterizer's own threads.
constexpr auto kSpinForNextJob = std::chrono::microseconds(200);

// Spins until a job is posted after `seen` or the spin's time is up.
void awaitNextJobBriefly(const std::atomic<uint64_t>& enqueued, uint64_t seen) {
  const auto until = std::chrono::steady_clock::now() + kSpinForNextJob;
  while (enqueued.load(std::memory_order_acquire) == seen &&
         std::chrono::steady_clock::now() < until) {
  }
}

// With a step in flight and no job: whether a job is posted after `seen` before that step's
// results are ready (and within the spin's time). A pipelined caller posts its next step as soon
// as it holds the previous result, just delivered; submitting it now queues it behind the step in
// flight, where finishing that step first would leave the GPU idle from the step's end until the
// next submit reaches it (pipelined MLP H64 B4096 steps on an H100: 0.098-0.100 ms so, 0.092 with
// the next step queued; bench/RESULTS.md).
bool jobBeforeStepEnds(const std::atomic<uint64_t>& enqueued, uint64_t seen,
                       const GpuContext& gpu) {
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::microseconds(stepInFlightSpinUs.load());
  for (;;) {
    if (enqueued.load(std::memory_order_acquire) != seen) return true;
    // A job posted while the step became ready still goes first: it keeps the GPU busy, and a
    // caller that posts and then lets the step end sees the same order however it is scheduled.
    if (gpu.oldestUnfinishedReady() || std::chrono::steady_clock::now() >= until)
      return enqueued.load(std::memory_order_acquire) != seen;
  }
}

}  // namespace

void GpuWorker::loop(const std::shared_ptr<State>& state) {
  GpuContext& gpu = *state->gpu;
  for (;;) {
    State::Job job;
    {
      std::unique_lock lock(state->mutex);
      if (state->jobs.empty() && !gpu.unfinished.empty()) {
        const uint64_t seen = state->enqueued.load(std::memory_order_relaxed);
        lock.unlock();  // no job yet: finish what is in flight, unless the next step comes first
        if (!spinsOn(gpu.cpuAdapter) || !jobBeforeStepEnds(state->enqueued, seen, gpu))
          gpu.finishUnfinished();
        continue;
      }
      if (state->jobs.empty() && !state->stop && spinsOn(gpu.cpuAdapter)) {
        const uint64_t seen = state->enqueued.load(std::memory_order_relaxed);
        spinsStarted.fetch_add(1, std::memory_order_relaxed);
        lock.unlock();
        awaitNextJobBriefly(state->enqueued, seen);
        lock.lock();
      }
      state->wake.wait(lock, [&] { return state->stop || !state->jobs.empty(); });
      if (state->jobs.empty()) break;  // stopping, and nothing left to run
      job = std::move(state->jobs.front());
      state->jobs.pop_front();
    }
    if (!job.pipelined) gpu.finishUnfinished();
    if (job.pipelined && !gpu.unfinished.empty())
      stepsQueuedBehind.fetch_add(1, std::memory_order_relaxed);
    job.run(gpu);
    if (job.pipelined) gpu.finishUnfinished(1);
  }
  gpu.finishUnfinished();
  state->gpu.reset();  // the device is released on the thread that used it
}

}  // namespace tg::detail
