#include "device.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iterator>

#include "buffer.h"
#include "descriptor_arrays.h"
#include "device_limits.h"
#include "indirect_validation.h"
#include "process_exit.h"
#include "queue.h"
#include "shader_module.h"
#include "submit_trace.h"
#include "timestamp_conversion.h"
#include "vk_check.h"

namespace wgpu::detail {

namespace {
constexpr uint64_t kSpinBeforeBlockNS = 200000;
constexpr uint64_t kLongestSpinNS = 2000000;
std::atomic<uint64_t> liveDevices{0};
}  // namespace

std::shared_ptr<DeviceImpl> DeviceImpl::Create(const std::shared_ptr<AdapterImpl>& adapter,
                                               const DeviceDescriptor& descriptor,
                                               std::string* error) {
  const auto features =
      DescriptorArray(descriptor.requiredFeatures, descriptor.requiredFeatureCount,
                      "requiredFeatures", "requiredFeatureCount", error);
  if (!features) return nullptr;
  FeatureSet enabled;
  if (std::string e = ResolveFeatures(*features, adapter->Features(), &enabled); !e.empty()) {
    *error = e;
    return nullptr;
  }
  const DawnCacheDeviceDescriptor* cacheDesc = nullptr;
  for (const ChainedStruct* c = descriptor.nextInChain; c; c = c->nextInChain)
    if (c->sType == SType::DawnCacheDeviceDescriptor)
      cacheDesc = static_cast<const DawnCacheDeviceDescriptor*>(c);
  Limits resolved;
  if (std::string e = ResolveLimits(adapter->SupportedLimits(), descriptor.requiredLimits, &resolved);
      !e.empty()) {
    *error = e;
    return nullptr;
  }
  auto device = std::make_shared<DeviceImpl>(adapter, descriptor);
  device->limits_ = resolved;
  device->features_ = enabled;
  device->self_ = device;
  if (cacheDesc) device->cache_ = BlobCache(*cacheDesc);

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo q{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  q.queueFamilyIndex = adapter->ComputeQueueFamily();
  q.queueCount = 1;
  q.pQueuePriorities = &priority;
  VkPhysicalDeviceTimelineSemaphoreFeatures timeline{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
  timeline.timelineSemaphore = VK_TRUE;
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f2.pNext = &timeline;
  // WebGPU forbids out-of-bounds accesses from reaching other memory.
  f2.features.robustBufferAccess = adapter->RobustBufferAccess() ? VK_TRUE : VK_FALSE;
  VulkanFeatureChain optional(enabled, adapter->Features());
  optional.Attach(f2);
  std::vector<const char*> extensions = adapter->DeviceExtensions();
  extensions.insert(extensions.end(), optional.Extensions().begin(), optional.Extensions().end());
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.pNext = &f2;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &q;
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  if (VkResult r = vkCreateDevice(adapter->Physical(), &info, nullptr, &device->device_);
      r != VK_SUCCESS) {
    device->device_ = VK_NULL_HANDLE;
    *error = VkFailure("vkCreateDevice", r);
    return nullptr;
  }
  VkDevice vk = device->device_;
  vkGetDeviceQueue(vk, q.queueFamilyIndex, 0, &device->vkQueue_);
  // Timeline semaphore commands by the name the device's version has (a 1.1 device has only
  // the extension's).
  const bool core12 = adapter->ApiVersion() >= VK_API_VERSION_1_2;
  device->getSemaphoreCounterValue_ = reinterpret_cast<PFN_vkGetSemaphoreCounterValue>(
      vkGetDeviceProcAddr(vk, core12 ? "vkGetSemaphoreCounterValue" : "vkGetSemaphoreCounterValueKHR"));
  device->waitSemaphores_ = reinterpret_cast<PFN_vkWaitSemaphores>(
      vkGetDeviceProcAddr(vk, core12 ? "vkWaitSemaphores" : "vkWaitSemaphoresKHR"));

  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo sem{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  sem.pNext = &type;
  VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool.queueFamilyIndex = q.queueFamilyIndex;
  VkPipelineCacheCreateInfo cache{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  std::vector<uint8_t> cached;
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(adapter->Physical(), &props);
  device->pollNearTheEnd_ = props.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU;
  device->timestampScale_ = AssumedTimestampScale(props.limits.timestampPeriod);
  if (device->cache_.CanLoad() || device->cache_.CanStore()) {
    char key[128];
    std::snprintf(key, sizeof key, "vkpipelinecache-%04x-%04x-%08x-", props.vendorID,
                  props.deviceID, props.driverVersion);
    std::string name = key;
    for (uint8_t b : props.pipelineCacheUUID) {
      std::snprintf(key, sizeof key, "%02x", b);
      name += key;
    }
    device->cacheKey_ = device->cache_.Key(name);
    if (auto bytes = device->cache_.Load(device->cacheKey_))
      cached.assign(bytes->begin(), bytes->end());
    cache.initialDataSize = cached.size();
    cache.pInitialData = cached.empty() ? nullptr : cached.data();
    device->storedCacheBytes_ = cached.size();
  }
  if (VkResult r = vkCreateSemaphore(vk, &sem, nullptr, &device->timeline_); r != VK_SUCCESS) {
    *error = VkFailure("vkCreateSemaphore", r);
    return nullptr;
  }
  if (VkResult r = vkCreateCommandPool(vk, &pool, nullptr, &device->commandPool_); r != VK_SUCCESS) {
    *error = VkFailure("vkCreateCommandPool", r);
    return nullptr;
  }
  if (VkResult r = vkCreatePipelineCache(vk, &cache, nullptr, &device->pipelineCache_);
      r != VK_SUCCESS) {
    *error = VkFailure("vkCreatePipelineCache", r);
    return nullptr;
  }
  vkGetPhysicalDeviceMemoryProperties(adapter->Physical(), &device->memoryProperties_);
  device->memory_ = std::make_unique<MemoryAllocator>(vk, device->memoryProperties_);
  device->queue_ = std::make_shared<QueueImpl>(
      device.get(), std::string(std::string_view(descriptor.defaultQueue.label)));
  device->trace_ = SubmitTrace::Open(*device, adapter->Physical(), adapter->ComputeQueueFamily());
  WatchProcessExit();  // after the driver set up what this device needs (see process_exit.h)
  return device;
}

DeviceImpl::DeviceImpl(const std::shared_ptr<AdapterImpl>& adapter,
                       const DeviceDescriptor& descriptor)
    : adapter_(adapter),
      label_(std::string_view(descriptor.label)),
      lostCallback_(descriptor.deviceLostCallback_),
      lostCallbackMode_(descriptor.deviceLostCallbackMode_),
      uncapturedCallback_(descriptor.uncapturedErrorCallback_) {
  ++liveDevices;
  TrackLiveDevice(this);
}

DeviceImpl::~DeviceImpl() {
  --liveDevices;
  UntrackLiveDevice(this);
  if (!device_) return;
  // At process exit the driver may be gone: its objects are left to the OS, deferred work is
  // dropped, and the members' destructors skip their Vulkan calls too (process_exit.h).
  if (ProcessExiting()) return;
  vkDeviceWaitIdle(device_);
  queue_.reset();
  completed_ = lastSubmitted_;
  while (!deferred_.empty()) {
    auto fn = std::move(deferred_.front().second);
    deferred_.pop_front();
    fn();
  }
  indirect_.reset();
  timestamps_.reset();
  if (trace_) trace_->Completed(completed_);
  trace_.reset();
  if (!freeCommandBuffers_.empty())
    vkFreeCommandBuffers(device_, commandPool_, static_cast<uint32_t>(freeCommandBuffers_.size()),
                         freeCommandBuffers_.data());
  StorePipelineCache();
  vkDestroyPipelineCache(device_, pipelineCache_, nullptr);
  vkDestroyCommandPool(device_, commandPool_, nullptr);
  vkDestroySemaphore(device_, timeline_, nullptr);
  memory_.reset();  // every buffer is gone: the deferred destructions above ran
  vkDestroyDevice(device_, nullptr);
}

std::string DeviceImpl::Name() const {
  return label_.empty() ? "[Device (unlabeled)]" : "[Device \"" + label_ + "\"]";
}

std::string ForeignDeviceMessage(const ObjectBase& object, const DeviceImpl& used) {
  return object.Name() + " is associated with " + object.Device().Name() +
         ", and cannot be used with " + used.Name() + ".";
}

IndirectValidator& DeviceImpl::Indirect() {
  if (!indirect_) indirect_ = std::make_unique<IndirectValidator>(*this);
  return *indirect_;
}

TimestampConverter& DeviceImpl::Timestamps() {
  if (!timestamps_) timestamps_ = std::make_unique<TimestampConverter>(*this);
  return *timestamps_;
}

void DeviceImpl::RunPipelineBuild(std::function<void()> build, std::function<void()> done) {
  ++buildsInFlight_;
  background_.Run([this, build = std::move(build), done = std::move(done)] {
    build();
    if (--buildsInFlight_ == 0) StorePipelineCache();
    done();
  });
}

void DeviceImpl::StorePipelineCache() {
  if (!cache_.CanStore() || cacheKey_.empty() || !pipelineCache_) return;
  std::lock_guard lock(storeMutex_);  // reading the cache needs no lock; the stores do
  size_t size = 0;
  if (vkGetPipelineCacheData(device_, pipelineCache_, &size, nullptr) != VK_SUCCESS) return;
  if (size == storedCacheBytes_) return;  // nothing new was compiled
  std::vector<uint8_t> data(size);
  if (vkGetPipelineCacheData(device_, pipelineCache_, &size, data.data()) != VK_SUCCESS) return;
  data.resize(size);
  cache_.Store(cacheKey_, std::string_view(reinterpret_cast<const char*>(data.data()), size));
  storedCacheBytes_ = size;
}

std::shared_ptr<QueueImpl> DeviceImpl::QueueHandle() {
  // Shares the device's ownership: a Queue handle keeps its device alive.
  return std::shared_ptr<QueueImpl>(shared_from_this(), queue_.get());
}

// ---- errors ----

void DeviceImpl::HandleError(ErrorType type, std::string message) {
  HandleError(type, std::move(message), ErrorScopeIds());
}

void DeviceImpl::HandleError(ErrorType type, std::string message,
                             const std::vector<uint64_t>& scopes) {
  if (lost_) return;
  for (auto it = errorScopes_.rbegin(); it != errorScopes_.rend(); ++it) {
    if (std::find(scopes.begin(), scopes.end(), it->id) == scopes.end()) continue;
    const bool matches = (it->filter == ErrorFilter::Validation && type == ErrorType::Validation) ||
                         (it->filter == ErrorFilter::OutOfMemory && type == ErrorType::OutOfMemory) ||
                         (it->filter == ErrorFilter::Internal && type == ErrorType::Internal);
    if (!matches) continue;
    if (it->type == ErrorType::NoError) {  // a scope keeps its first error only
      it->type = type;
      it->message = std::move(message);
    }
    return;
  }
  if (uncapturedCallback_) {
    wgpu::Device self(self_.lock());
    uncapturedCallback_(self, type, message);
  }
}

std::vector<uint64_t> DeviceImpl::ErrorScopeIds() const {
  std::vector<uint64_t> ids;
  for (const ErrorScope& s : errorScopes_) ids.push_back(s.id);
  return ids;
}

void DeviceImpl::RemovePendingModule(ShaderModuleImpl* module) {
  pendingModules_.erase(std::remove(pendingModules_.begin(), pendingModules_.end(), module),
                        pendingModules_.end());
}

void DeviceImpl::ResolvePendingModules(std::optional<uint64_t> scope) {
  // Resolving removes a module from the list (and may report an error, whose callback may
  // create modules): walk a copy.
  for (ShaderModuleImpl* m : std::vector<ShaderModuleImpl*>(pendingModules_)) {
    if (std::find(pendingModules_.begin(), pendingModules_.end(), m) == pendingModules_.end())
      continue;
    if (scope ? m->CreatedInScope(*scope) : m->Compiled()) m->Resolve();
  }
}

void DeviceImpl::PushErrorScope(ErrorFilter filter) {
  errorScopes_.push_back({filter, nextErrorScopeId_++});
}

Future DeviceImpl::PopErrorScope(CallbackMode mode, PopErrorScopeCallback<> callback) {
  // The scope holds the errors of the modules created in it: wait for their compilations.
  if (!errorScopes_.empty()) ResolvePendingModules(errorScopes_.back().id);
  std::function<void()> complete;
  if (errorScopes_.empty()) {
    complete = [callback] {
      callback(PopErrorScopeStatus::Error, ErrorType::NoError, "No error scopes to pop.");
    };
  } else {
    ErrorScope scope = std::move(errorScopes_.back());
    errorScopes_.pop_back();
    complete = [callback, scope] {
      callback(PopErrorScopeStatus::Success, scope.type, scope.message);
    };
  }
  return Instance().Events().Track(mode, shared_from_this(), 0, std::move(complete));
}

// ---- loss ----

void DeviceImpl::Destroy() {
  if (!lost_) WaitIdle();
  // WebGPU's destroy() unmaps every buffer of the device first (also on a device already lost):
  // pending maps are aborted and mapped ranges are given back.
  for (BufferImpl* b : std::vector<BufferImpl*>(buffers_.begin(), buffers_.end()))
    b->AbortMapForDeviceLoss("Device was destroyed before mapping was resolved.", true);
  Lose(DeviceLostReason::Destroyed, "Device was destroyed.");
}

void DeviceImpl::Lose(DeviceLostReason reason, std::string message) {
  if (lost_) return;
  lost_ = true;
  // No map can resolve any more: pending ones are aborted (mapped ranges stay readable).
  for (BufferImpl* b : std::vector<BufferImpl*>(buffers_.begin(), buffers_.end()))
    b->AbortMapForDeviceLoss("Device was lost before mapping was resolved.", false);
  if (lostCallback_) {
    auto callback = std::move(lostCallback_);
    std::weak_ptr<DeviceImpl> weak = self_;
    Instance().Events().Track(lostCallbackMode_, nullptr, 0, [callback, weak, reason, message] {
      wgpu::Device self(weak.lock());
      callback(self, reason, message);
    });
  }
}

bool DeviceImpl::CheckQueueResult(VkResult result, const char* call) {
  if (result == VK_SUCCESS) return true;
  if (result == VK_ERROR_DEVICE_LOST) {
    Lose(DeviceLostReason::Unknown, VkFailure(call, result));
  } else if (IsOutOfMemory(result)) {
    HandleError(ErrorType::OutOfMemory, VkFailure(call, result));
  } else {
    HandleError(ErrorType::Internal, VkFailure(call, result));
  }
  return false;
}

// ---- timeline ----

void DeviceImpl::Tick() {
  if (!device_) return;
  ResolvePendingModules(std::nullopt);
  PollCompleted();
  while (!submitTimes_.empty() && submitTimes_.front().first <= completed_) submitTimes_.pop_front();
  while (!deferred_.empty() && deferred_.front().first <= completed_) {
    auto fn = std::move(deferred_.front().second);
    deferred_.pop_front();
    fn();
  }
}

void DeviceImpl::PollCompleted() {
  uint64_t value = 0;
  VkResult r = getSemaphoreCounterValue_(device_, timeline_, &value);
  if (r == VK_ERROR_DEVICE_LOST) {
    Lose(DeviceLostReason::Unknown, VkFailure("vkGetSemaphoreCounterValue", r));
    value = lastSubmitted_;  // nothing will complete any more; release what waits
  }
  completed_ = std::max(completed_, value);
  if (trace_) trace_->Completed(completed_);
}

bool DeviceImpl::SerialDone(uint64_t serial) {
  if (serial > completed_ && device_) PollCompleted();
  return serial <= completed_;
}

bool DeviceImpl::WaitForSerial(uint64_t serial, uint64_t timeoutNS) {
  if (serial <= completed_) return true;
  if (serial > lastSubmitted_) return false;
  using Clock = std::chrono::steady_clock;
  using std::chrono::nanoseconds;
  const Clock::time_point start = Clock::now();
  const Clock::time_point deadline =
      timeoutNS >= static_cast<uint64_t>(nanoseconds::max().count())
          ? Clock::time_point::max()
          : start + std::min(nanoseconds(static_cast<int64_t>(timeoutNS)),
                             Clock::time_point::max() - start);
  Clock::time_point submitted = start;
  for (const auto& [s, at] : submitTimes_)
    if (s == serial) submitted = at;
  const auto reached = [&] {
    uint64_t value = 0;
    return getSemaphoreCounterValue_(device_, timeline_, &value) == VK_SUCCESS && value >= serial;
  };
  const auto block = [&](Clock::time_point until) {
    VkSemaphoreWaitInfo wait{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    wait.semaphoreCount = 1;
    wait.pSemaphores = &timeline_;
    wait.pValues = &serial;
    const auto left = until == Clock::time_point::max() ? UINT64_MAX
                      : until <= Clock::now()
                          ? 0
                          : static_cast<uint64_t>((until - Clock::now()).count());
    const VkResult r = waitSemaphores_(device_, &wait, left);
    if (r == VK_ERROR_DEVICE_LOST)
      Lose(DeviceLostReason::Unknown, VkFailure("vkWaitSemaphores", r));
    return r == VK_SUCCESS;
  };
  const auto done = [&] {
    lastRun_ = Clock::now() - submitted;
    Tick();
    return true;
  };
  // A blocking wait wakes through the kernel tens of microseconds late on some drivers: most of a
  // short submission's round trip, and on an H200 0.10–0.15 ms of a 0.7–2.6 ms training step
  // that was read back every step (bench/RESULTS.md). So on a GPU the wait blocks only until
  // shortly before the serial is expected to complete (as long after its submission as the last
  // waited-for serial took), then polls; a first wait, or a CPU device, polls briefly and blocks.
  Clock::time_point spinFrom = start;
  nanoseconds spin{kSpinBeforeBlockNS};
  if (pollNearTheEnd_ && lastRun_.count() > 0) {
    const nanoseconds margin = std::clamp(lastRun_ / 8, spin, nanoseconds(kLongestSpinNS));
    spinFrom = std::max(start, submitted + lastRun_ - margin);
    spin = 2 * margin;
  }
  if (spinFrom > start && block(std::min(spinFrom, deadline))) return done();
  const Clock::time_point spinUntil = std::min(deadline, Clock::now() + spin);
  while (Clock::now() < spinUntil)
    if (reached()) return done();
  if (block(deadline)) return done();
  Tick();
  return false;
}

void DeviceImpl::WaitIdle() {
  if (queue_) queue_->FlushPendingWrites();
  WaitForSerial(lastSubmitted_, UINT64_MAX);
}

void DeviceImpl::DeferUntilIdle(std::function<void()> fn) {
  if (ProcessExiting()) return;  // deferred work destroys Vulkan objects (process_exit.h)
  if (lastSubmitted_ <= completed_) {
    fn();
    return;
  }
  Defer(lastSubmitted_, std::move(fn));
}

void DeviceImpl::DeferUntilNextSubmitDone(std::function<void()> fn) {
  if (ProcessExiting()) return;
  Defer(lastSubmitted_ + 1, std::move(fn));
}

void DeviceImpl::Defer(uint64_t serial, std::function<void()> fn) {
  auto at = deferred_.end();
  while (at != deferred_.begin() && std::prev(at)->first > serial) --at;
  deferred_.emplace(at, serial, std::move(fn));
}

// ---- memory ----

uint32_t DeviceImpl::FindMemoryType(uint32_t allowedTypes, MemoryKind kind) const {
  using F = VkMemoryPropertyFlags;
  const F hostVisible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  // Preferences, best first; every host-visible choice is coherent so no flush/invalidate is needed.
  std::vector<F> wanted;
  switch (kind) {
    case MemoryKind::DeviceLocal:
      wanted = {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0};
      break;
    case MemoryKind::DeviceLocalWritable:
      wanted = {hostVisible | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0};
      break;
    case MemoryKind::Upload:
      wanted = {hostVisible};
      break;
    case MemoryKind::UploadNear:
      wanted = {hostVisible | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT};
      break;
    case MemoryKind::Readback:
      wanted = {hostVisible | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, hostVisible};
      break;
  }
  for (F flags : wanted) {
    for (uint32_t i = 0; i < memoryProperties_.memoryTypeCount; ++i) {
      if (!(allowedTypes & (1u << i))) continue;
      if ((memoryProperties_.memoryTypes[i].propertyFlags & flags) == flags) return i;
    }
  }
  return UINT32_MAX;
}

VkResult DeviceImpl::CreateRawBuffer(uint64_t size, VkBufferUsageFlags usage, MemoryKind kind,
                                     RawBuffer* out) {
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = std::max<uint64_t>(size, 4);
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  if (VkResult r = vkCreateBuffer(device_, &info, nullptr, &out->buffer); r != VK_SUCCESS) {
    out->buffer = VK_NULL_HANDLE;
    return r;
  }
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device_, out->buffer, &req);
  const uint32_t type = FindMemoryType(req.memoryTypeBits, kind);
  // Only GPU-side buffers share blocks (device-local ones the host can write too: small inputs,
  // many of them): host memory is pinned when allocated (with a 64 MiB host-visible block, a
  // compile's first upload took 19–29 ms on an H100, against 2–4 ms with its own memory), and
  // staging and map buffers are few and reused.
  VkResult result = type == UINT32_MAX ? VK_ERROR_OUT_OF_DEVICE_MEMORY
                                        : memory_->Allocate(req, type,
                                                            kind == MemoryKind::DeviceLocal ||
                                                                kind == MemoryKind::DeviceLocalWritable,
                                                            &out->allocation);
  if (result == VK_SUCCESS) {
    result = vkBindBufferMemory(device_, out->buffer, out->allocation.memory, out->allocation.offset);
  } else {
    out->allocation = Allocation{};
  }
  if (result != VK_SUCCESS) DestroyRawBuffer(*out);
  return result;
}

void DeviceImpl::DestroyRawBuffer(RawBuffer& buffer) {
  if (ProcessExiting()) {
    buffer = RawBuffer{};
    return;
  }
  if (buffer.buffer) vkDestroyBuffer(device_, buffer.buffer, nullptr);
  if (buffer.allocation.memory) memory_->Free(buffer.allocation);
  buffer = RawBuffer{};
}

// ---- command buffers ----

VkCommandBuffer DeviceImpl::AcquireCommandBuffer(bool reusable) {
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  if (!freeCommandBuffers_.empty()) {
    cmd = freeCommandBuffers_.back();
    freeCommandBuffers_.pop_back();
  } else {
    VkCommandBufferAllocateInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    info.commandPool = commandPool_;
    info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    info.commandBufferCount = 1;
    if (vkAllocateCommandBuffers(device_, &info, &cmd) != VK_SUCCESS) return VK_NULL_HANDLE;
  }
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = reusable ? VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT
                         : VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vkBeginCommandBuffer(cmd, &begin);
  return cmd;
}

void DeviceImpl::ReleaseCommandBuffer(VkCommandBuffer cmd) {
  if (!cmd || ProcessExiting()) return;
  vkResetCommandBuffer(cmd, 0);
  freeCommandBuffers_.push_back(cmd);
}

}  // namespace wgpu::detail

uint64_t wgpu::GetLiveDeviceCountForTesting() { return detail::liveDevices.load(); }
