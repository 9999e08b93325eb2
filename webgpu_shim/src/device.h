// The device: Vulkan device and queue, the submission timeline, memory, deferred destruction,
// error scopes and device loss.
#pragma once

#include <webgpu/webgpu_cpp.h>
#include <vulkan/vulkan.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>
#include <functional>
#include <unordered_set>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "blob_cache.h"
#include "instance.h"
#include "memory_allocator.h"
#include "timestamp_conversion.h"
#include "worker_pool.h"

namespace wgpu::detail {

class QueueImpl;
class BufferImpl;
class ShaderModuleImpl;

// What a buffer's memory is for: GPU-only work, host writes (upload), or host reads (readback).
// UploadNear: host-visible memory on the device (a BAR window), where the GPU reads a staged copy
// without crossing the bus; a caller falls back to Upload where there is none or it is full.
// DeviceLocalWritable: device-local memory the host can also write (a GPU's BAR window), else
// plain device-local memory.
enum class MemoryKind { DeviceLocal, DeviceLocalWritable, Upload, UploadNear, Readback };

// A Vulkan buffer and its memory.
struct RawBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  Allocation allocation;
};

class DeviceImpl : public std::enable_shared_from_this<DeviceImpl> {
 public:
  static std::shared_ptr<DeviceImpl> Create(const std::shared_ptr<AdapterImpl>& adapter,
                                            const DeviceDescriptor& descriptor,
                                            std::string* error);
  DeviceImpl(const std::shared_ptr<AdapterImpl>& adapter, const DeviceDescriptor& descriptor);
  ~DeviceImpl();
  DeviceImpl(const DeviceImpl&) = delete;
  DeviceImpl& operator=(const DeviceImpl&) = delete;

  // ---- errors ----
  // Routes an error to the innermost matching scope, else to the uncaptured-error callback.
  // Errors on a lost device are dropped, as WebGPU specifies.
  void HandleError(ErrorType type, std::string message);
  // The same, as if made when only the scopes `scopes` (from ErrorScopeIds) were pushed: for work
  // that finishes after its call returned (a WGSL module's compilation).
  void HandleError(ErrorType type, std::string message, const std::vector<uint64_t>& scopes);
  std::vector<uint64_t> ErrorScopeIds() const;
  void PushErrorScope(ErrorFilter filter);
  Future PopErrorScope(CallbackMode mode, PopErrorScopeCallback<> callback);

  // ---- loss ----
  bool IsLost() const { return lost_; }
  // Destroy() unmaps every buffer of the device and loss aborts their pending maps, so the
  // device knows its buffers (registered for their whole life; single-threaded per device).
  void RegisterBuffer(BufferImpl* buffer) { buffers_.insert(buffer); }
  void UnregisterBuffer(BufferImpl* buffer) { buffers_.erase(buffer); }
  void Destroy();
  void Lose(DeviceLostReason reason, std::string message);
  // Checks a Vulkan result from the queue; device loss and internal failures are reported.
  bool CheckQueueResult(VkResult result, const char* call);

  // ---- timeline ----
  uint64_t LastSubmittedSerial() const { return lastSubmitted_; }
  uint64_t NextSerial() {
    submitTimes_.emplace_back(lastSubmitted_ + 1, std::chrono::steady_clock::now());
    return ++lastSubmitted_;
  }
  uint64_t CompletedSerial() const { return completed_; }
  // Whether submission `serial` is done; asks the GPU when the last answer said not (without
  // running the deferred work Tick runs).
  bool SerialDone(uint64_t serial);
  VkSemaphore Timeline() const { return timeline_; }
  // Refreshes the completed serial and runs what was waiting on it.
  void Tick();
  // Waits (up to timeoutNS) until `serial` completes. False on timeout or loss.
  bool WaitForSerial(uint64_t serial, uint64_t timeoutNS);
  // Whether WaitForSerial blocks until shortly before a serial's expected end and polls from
  // there (on by default on a GPU).
  void SetWaitsPollNearTheEnd(bool on) { pollNearTheEnd_ = on; }
  void WaitIdle();
  // Runs `fn` once the GPU has finished all work submitted so far (or at once if idle).
  // Deferred work runs on the device (its destructor runs what is left), so `fn` must not own
  // the device or any object that does: it captures the DeviceImpl by plain pointer and only
  // Vulkan handles besides, or the device would keep itself alive.
  void DeferUntilIdle(std::function<void()> fn);
  // Runs `fn` once the next submission (the one that will carry the queue's pending batch) has
  // finished: for what the pending, not yet submitted, commands still use.
  void DeferUntilNextSubmitDone(std::function<void()> fn);

  // ---- memory ----
  // Creates a buffer with memory of the given kind. VK_ERROR_OUT_OF_DEVICE_MEMORY when the heap
  // would be over-committed, so that oversubscription is a WebGPU OOM error, not a driver crash.
  VkResult CreateRawBuffer(uint64_t size, VkBufferUsageFlags usage, MemoryKind kind,
                           RawBuffer* out);
  void DestroyRawBuffer(RawBuffer& buffer);

  // ---- command buffers ----
  // A command buffer in the recording state. A reusable one may be pending several times at once
  // (VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT); otherwise it is submitted once.
  VkCommandBuffer AcquireCommandBuffer(bool reusable = false);
  void ReleaseCommandBuffer(VkCommandBuffer cmd);  // only once the GPU is done with it

  // WEBGPU_SHIM_SUBMIT_TRACE's trace of this device's submissions, or null (submit_trace.h).
  class SubmitTrace* Trace() const { return trace_.get(); }

  // ---- accessors ----
  VkDevice Vk() const { return device_; }
  VkQueue VkQueueHandle() const { return vkQueue_; }
  const Limits& GetLimits() const { return limits_; }
  const FeatureSet& Features() const { return features_; }  // those requiredFeatures enabled
  const std::shared_ptr<AdapterImpl>& Adapter() const { return adapter_; }
  InstanceImpl& Instance() const { return *adapter_->Instance(); }
  QueueImpl& Queue() const { return *queue_; }
  std::shared_ptr<QueueImpl> QueueHandle();
  VkPipelineCache PipelineCache() const { return pipelineCache_; }
  const std::string& Label() const { return label_; }
  // `[Device "label"]`, as objects are named in messages.
  std::string Name() const;
  void SetLabel(std::string_view label) { label_ = label; }
  void SetHandleForCallbacks(const wgpu::Device& self);
  // Runs a pipeline build on the device's threads (CreateComputePipelineAsync); once no build is
  // left in flight, the pipeline cache is handed to storeCacheData (as Dawn's blob cache stores
  // as it goes), then `done` runs. The device must outlive the build.
  void RunPipelineBuild(std::function<void()> build, std::function<void()> done);
  // Runs a job on the device's threads (a WGSL module's compilation). The job must not own the
  // device; whoever started it must wait for it before the device can go.
  void RunInBackground(std::function<void()> job) { background_.Run(std::move(job)); }
  // WGSL modules still compiling: PopErrorScope resolves them first (their errors may belong to
  // the scope), Tick resolves the finished ones (their uncaptured errors are reported).
  void AddPendingModule(ShaderModuleImpl* module) { pendingModules_.push_back(module); }
  void RemovePendingModule(ShaderModuleImpl* module);
  // Stores the pipeline cache if it grew, for the exit handler (process_exit.h).
  void StorePipelineCacheBeforeExit() { StorePipelineCache(); }
  // DeviceDescriptor's DawnCacheDeviceDescriptor hooks (none: an empty cache).
  const BlobCache& Cache() const { return cache_; }
  // The internal pipeline that makes indirect dispatches safe (see indirect_validation.cpp),
  // created on first use: most devices never dispatch indirectly.
  class IndirectValidator& Indirect();
  // Resolved timestamps are scaled by TimestampScale() / 65536 (timestamp_conversion.h) where it
  // is not kNsTimestampScale, by the converter, created on first use.
  uint32_t TimestampScale() const { return timestampScale_; }
  class TimestampConverter& Timestamps();

 private:
  struct ErrorScope {
    ErrorFilter filter;
    uint64_t id = 0;
    ErrorType type = ErrorType::NoError;
    std::string message;
  };
  uint32_t FindMemoryType(uint32_t allowedTypes, MemoryKind kind) const;
  // Reads the timeline's value into completed_ (a lost device completes everything).
  void PollCompleted();
  void Defer(uint64_t serial, std::function<void()> fn);  // keeps deferred_ sorted by serial

  std::shared_ptr<AdapterImpl> adapter_;
  std::string label_;
  Limits limits_;
  FeatureSet features_;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue vkQueue_ = VK_NULL_HANDLE;
  VkSemaphore timeline_ = VK_NULL_HANDLE;
  VkCommandPool commandPool_ = VK_NULL_HANDLE;
  VkPipelineCache pipelineCache_ = VK_NULL_HANDLE;
  // The pipeline cache persists through the blob cache. Stores may come from build threads.
  void StorePipelineCache();
  BlobCache cache_;
  std::string cacheKey_;
  std::mutex storeMutex_;
  size_t storedCacheBytes_ = 0;  // the size last loaded or stored
  std::atomic<int> buildsInFlight_{0};
  std::vector<ShaderModuleImpl*> pendingModules_;
  PFN_vkGetSemaphoreCounterValue getSemaphoreCounterValue_ = nullptr;
  PFN_vkWaitSemaphores waitSemaphores_ = nullptr;
  std::vector<VkCommandBuffer> freeCommandBuffers_;
  VkPhysicalDeviceMemoryProperties memoryProperties_{};
  std::unique_ptr<MemoryAllocator> memory_;
  WorkerPool background_;  // last: its threads stop before anything they use is destroyed
  uint64_t lastSubmitted_ = 0;
  uint64_t completed_ = 0;
  // When each serial not yet seen complete was submitted, and how long the last serial waited for
  // took from its submission to its completion: WaitForSerial blocks until shortly before that
  // much time has passed and polls from there where pollNearTheEnd_ (a GPU; a CPU device would
  // lose a core to the polling).
  std::deque<std::pair<uint64_t, std::chrono::steady_clock::time_point>> submitTimes_;
  std::chrono::nanoseconds lastRun_{0};
  bool pollNearTheEnd_ = false;
  std::deque<std::pair<uint64_t, std::function<void()>>> deferred_;  // sorted by serial
  std::unordered_set<BufferImpl*> buffers_;
  std::vector<ErrorScope> errorScopes_;
  uint64_t nextErrorScopeId_ = 1;
  // Resolves the pending modules created in error scope `scope` (waiting for them), or with no
  // scope given, those whose compilation is done.
  void ResolvePendingModules(std::optional<uint64_t> scope);
  bool lost_ = false;
  DeviceLostCallback<> lostCallback_;
  CallbackMode lostCallbackMode_ = CallbackMode::AllowProcessEvents;
  UncapturedErrorCallback<> uncapturedCallback_;
  // A non-owning handle to this device for the callbacks' `const Device&` argument.
  std::weak_ptr<DeviceImpl> self_;
  std::shared_ptr<QueueImpl> queue_;
  std::unique_ptr<class IndirectValidator> indirect_;
  std::unique_ptr<class TimestampConverter> timestamps_;
  uint32_t timestampScale_ = kNsTimestampScale;
  std::unique_ptr<class SubmitTrace> trace_;
};

}  // namespace wgpu::detail
