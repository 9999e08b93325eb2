#include "buffer.h"

#include <cstring>

#include "instance.h"
#include "queue.h"
#include "vk_check.h"

namespace wgpu::detail {

namespace {

constexpr BufferUsage kAllUsages = BufferUsage::MapRead | BufferUsage::MapWrite |
                                   BufferUsage::CopySrc | BufferUsage::CopyDst |
                                   BufferUsage::Index | BufferUsage::Vertex |
                                   BufferUsage::Uniform | BufferUsage::Storage |
                                   BufferUsage::Indirect | BufferUsage::QueryResolve;

std::string ValidateDescriptor(const BufferDescriptor& d, const Limits& limits) {
  const std::string usage = "usage (" + ToString(d.usage) + ")";
  if (d.usage == BufferUsage::None) return "usage must not be None.";
  const uint64_t bits = static_cast<uint64_t>(d.usage);
  if (bits & ~static_cast<uint64_t>(kAllUsages)) return usage + " has unknown bits.";
  if (HasFlag(d.usage, BufferUsage::MapRead) && HasFlag(d.usage, BufferUsage::MapWrite))
    return usage + " has both MapRead and MapWrite.";
  if (HasFlag(d.usage, BufferUsage::MapRead) &&
      (bits & ~static_cast<uint64_t>(BufferUsage::MapRead | BufferUsage::CopyDst)))
    return usage + ": MapRead may only be combined with CopyDst.";
  if (HasFlag(d.usage, BufferUsage::MapWrite) &&
      (bits & ~static_cast<uint64_t>(BufferUsage::MapWrite | BufferUsage::CopySrc)))
    return usage + ": MapWrite may only be combined with CopySrc.";
  if (d.mappedAtCreation && d.size % 4 != 0)
    return "size (" + std::to_string(d.size) + ") must be a multiple of 4 when mappedAtCreation is true.";
  if (d.size > limits.maxBufferSize)
    return "size (" + std::to_string(d.size) + ") exceeds the maxBufferSize limit (" +
           std::to_string(limits.maxBufferSize) + ").";
  return {};
}

VkBufferUsageFlags VulkanUsage(BufferUsage u) {
  // Every buffer may be zero-filled and written by the queue (and by query resolves' copies);
  // indirect buffers are also read by the indirect-validation shader, and query-resolve buffers
  // rewritten by the timestamp conversion shader where a tick is not a nanosecond.
  VkBufferUsageFlags f = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  if (HasFlag(u, BufferUsage::CopySrc)) f |= VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
  if (HasFlag(u, BufferUsage::Storage)) f |= VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  if (HasFlag(u, BufferUsage::Uniform)) f |= VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT;
  if (HasFlag(u, BufferUsage::Indirect))
    f |= VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  if (HasFlag(u, BufferUsage::QueryResolve)) f |= VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  return f;
}

}  // namespace

BufferImpl::BufferImpl(const std::shared_ptr<DeviceImpl>& device, const BufferDescriptor& d)
    : ObjectBase(device, "Buffer", d.label), size_(d.size), usage_(d.usage), directWrites_(d.directWrites) {
  device->RegisterBuffer(this);
}

std::shared_ptr<BufferImpl> BufferImpl::Create(const std::shared_ptr<DeviceImpl>& device,
                                               const BufferDescriptor& d) {
  auto buffer = std::make_shared<BufferImpl>(device, d);
  std::string error = ValidateDescriptor(d, device->GetLimits());
  if (!error.empty() || device->IsLost()) {
    buffer->MarkInvalid();
    if (!error.empty())
      device->HandleError(ErrorType::Validation, buffer->Name() + " " + error +
                                                     "\n - While calling [Device].CreateBuffer.");
    // WebGPU still hands out a mapped range for an invalid mappedAtCreation buffer.
    if (d.mappedAtCreation && d.size <= (uint64_t{1} << 31)) {
      buffer->creationStaging_.assign(d.size, 0);
      buffer->state_ = State::MappedAtCreation;
      buffer->mapSize_ = d.size;
    }
    return buffer;
  }
  if (VkResult r = buffer->Initialize(d.mappedAtCreation); r != VK_SUCCESS) {
    buffer->MarkInvalid();
    const ErrorType type = IsOutOfMemory(r) ? ErrorType::OutOfMemory : ErrorType::Internal;
    device->HandleError(type, buffer->Name() + " allocation of " + std::to_string(d.size) +
                                  " bytes failed (" + VkResultName(r) +
                                  ").\n - While calling [Device].CreateBuffer.");
  }
  return buffer;
}

std::shared_ptr<BufferImpl> BufferImpl::CreateInternal(const std::shared_ptr<DeviceImpl>& device,
                                                       std::string label, uint64_t size,
                                                       BufferUsage usage) {
  BufferDescriptor d;
  d.label = label;
  d.size = size;
  d.usage = usage;
  auto buffer = std::make_shared<BufferImpl>(device, d);
  if (buffer->Initialize(false) != VK_SUCCESS) buffer->MarkInvalid();
  return buffer;
}

VkResult BufferImpl::Initialize(bool mappedAtCreation) {
  MemoryKind kind = directWrites_ ? MemoryKind::DeviceLocalWritable : MemoryKind::DeviceLocal;
  if (HasFlag(usage_, BufferUsage::MapRead)) kind = MemoryKind::Readback;
  if (HasFlag(usage_, BufferUsage::MapWrite)) kind = MemoryKind::Upload;
  // Vulkan buffers are 4-byte granular for fills and copies; a zero-sized buffer still gets a
  // tiny allocation so every valid WebGPU buffer has a Vulkan one.
  const uint64_t vkSize = (std::max<uint64_t>(size_, 4) + 3) & ~uint64_t{3};
  VkResult r = Device().CreateRawBuffer(vkSize, VulkanUsage(usage_), kind, &raw_);
  // The host-writable part of device memory may be small (a 256 MiB BAR window): past it, the
  // buffer is an ordinary one.
  if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY && kind == MemoryKind::DeviceLocalWritable)
    r = Device().CreateRawBuffer(vkSize, VulkanUsage(usage_), MemoryKind::DeviceLocal, &raw_);
  if (r != VK_SUCCESS) return r;
  // WebGPU buffers start zeroed.
  if (raw_.allocation.mapped) {
    std::memset(raw_.allocation.mapped, 0, vkSize);
  } else if (!mappedAtCreation) {
    auto& queue = Device().Queue();
    VkCommandBuffer cmd = queue.PendingCommands();
    queue.UseInPendingBatch(this);
    vkCmdFillBuffer(cmd, raw_.buffer, 0, VK_WHOLE_SIZE, 0);
  }
  if (mappedAtCreation) {
    if (!raw_.allocation.mapped) creationStaging_.assign(size_, 0);
    state_ = State::MappedAtCreation;
    mapMode_ = MapMode::Write;
    mapOffset_ = 0;
    mapSize_ = size_;
  }
  return VK_SUCCESS;
}

BufferImpl::~BufferImpl() {
  if (pendingMap_) AbortPendingMap("Buffer was destroyed before mapping was resolved.");
  DeviceImpl* device = device_.get();
  device->UnregisterBuffer(this);
  if (raw_.buffer) {
    // Deferred work must not own the device (see DeferUntilIdle).
    RawBuffer raw = raw_;
    auto destroy = [device, raw]() mutable { device->DestroyRawBuffer(raw); };
    if (usedByPendingWrites) {
      // The queue's pending (unsubmitted) commands still use it: free it after they have run.
      device->Queue().ForgetPendingBuffer(this);
      device->DeferUntilNextSubmitDone(std::move(destroy));
    } else {
      device->DeferUntilIdle(std::move(destroy));
    }
  }
}

BufferMapState BufferImpl::MapState() const {
  switch (state_) {
    case State::MapPending: return BufferMapState::Pending;
    case State::Mapped:
    case State::MappedAtCreation: return BufferMapState::Mapped;
    default: return BufferMapState::Unmapped;
  }
}

std::string BufferImpl::CheckUsableInSubmit() const {
  if (!IsValid()) return Name() + " is invalid.";
  switch (state_) {
    case State::Destroyed: return Name() + " used in submit while destroyed.";
    case State::MapPending: return Name() + " used in submit while a map is pending.";
    case State::Mapped:
    case State::MappedAtCreation: return Name() + " used in submit while mapped.";
    default: return {};
  }
}

Future BufferImpl::MapAsync(MapMode mode, size_t offset, size_t size, CallbackMode callbackMode,
                            BufferMapCallback<> callback) {
  auto& events = Device().Instance().Events();
  auto fail = [&](MapAsyncStatus status, std::string message, bool report) {
    if (report) Device().HandleError(ErrorType::Validation, message);
    return events.Track(callbackMode, device_, 0, [callback, status, message] {
      callback(status, message);
    });
  };
  const std::string where = "\n - While calling " + Name() + ".MapAsync.";
  if (Device().IsLost()) return fail(MapAsyncStatus::Aborted, "The device is lost.", false);
  if (!IsValid()) return fail(MapAsyncStatus::Error, Name() + " is invalid." + where, true);
  if (state_ == State::Destroyed)
    return fail(MapAsyncStatus::Error, Name() + " is destroyed." + where, true);
  if (state_ == State::MapPending)
    return fail(MapAsyncStatus::Error, Name() + " already has a map pending." + where, true);
  if (state_ != State::Unmapped)
    return fail(MapAsyncStatus::Error, Name() + " is already mapped." + where, true);
  if (mode != MapMode::Read && mode != MapMode::Write)
    return fail(MapAsyncStatus::Error, Name() + " map mode must be exactly Read or Write." + where,
                true);
  if (offset % 8 != 0)
    return fail(MapAsyncStatus::Error,
                Name() + " map offset (" + std::to_string(offset) + ") is not a multiple of 8." + where,
                true);
  if (offset > size_)
    return fail(MapAsyncStatus::Error,
                Name() + " map offset (" + std::to_string(offset) + ") is larger than the size (" +
                    std::to_string(size_) + ")." + where,
                true);
  if (size == kWholeMapSize) size = static_cast<size_t>(size_ - offset);
  if (size % 4 != 0)
    return fail(MapAsyncStatus::Error,
                Name() + " map size (" + std::to_string(size) + ") is not a multiple of 4." + where,
                true);
  if (size > size_ - offset)  // offset <= size_ here: no wrap
    return fail(MapAsyncStatus::Error,
                Name() + " map range (offset " + std::to_string(offset) + ", size " +
                    std::to_string(size) + ") exceeds the buffer size (" + std::to_string(size_) +
                    ")." + where,
                true);
  if (mode == MapMode::Read && !HasFlag(usage_, BufferUsage::MapRead))
    return fail(MapAsyncStatus::Error,
                Name() + " usage (" + ToString(usage_) + ") does not include MapRead." + where, true);
  if (mode == MapMode::Write && !HasFlag(usage_, BufferUsage::MapWrite))
    return fail(MapAsyncStatus::Error,
                Name() + " usage (" + ToString(usage_) + ") does not include MapWrite." + where,
                true);

  if (usedByPendingWrites) Device().Queue().FlushPendingWrites();
  state_ = State::MapPending;
  auto request = std::make_shared<MapRequest>();
  pendingMap_ = request;
  // The event does not own the buffer: a buffer dropped with its map pending aborts the map in
  // its destructor, and an owning event would keep the buffer and its device alive until the
  // application processes events.
  std::weak_ptr<BufferImpl> weak = weak_from_this();
  Future future = events.Track(
      callbackMode, device_, lastUsageSerial,
      [weak, request, callback, mode, offset, size] {
        auto self = weak.lock();
        if (request->aborted || !self) {
          callback(MapAsyncStatus::Aborted,
                   request->aborted ? std::string_view(request->abortMessage)
                                    : "Buffer was destroyed before mapping was resolved.");
          return;
        }
        self->pendingMap_.reset();
        self->state_ = State::Mapped;
        self->mapMode_ = mode;
        self->mapOffset_ = offset;
        self->mapSize_ = size;
        callback(MapAsyncStatus::Success, "");
      });
  request->eventId = future.id;
  return future;
}

void BufferImpl::AbortPendingMap(const char* why) {
  auto request = std::move(pendingMap_);
  pendingMap_.reset();
  if (!request) return;
  request->aborted = true;
  request->abortMessage = why;
  Device().Instance().Events().MakeReady(request->eventId);
}

uint8_t* BufferImpl::MappedBase() {
  if (!creationStaging_.empty() || (state_ == State::MappedAtCreation && !raw_.allocation.mapped))
    return creationStaging_.data();
  return raw_.allocation.mapped;
}

void* BufferImpl::GetMappedRange(size_t offset, size_t size, bool writable) {
  if (state_ != State::Mapped && state_ != State::MappedAtCreation) return nullptr;
  if (writable && mapMode_ == MapMode::Read) return nullptr;
  // Every comparison subtracts from bounds already checked, so no sum can wrap: past here
  // mapOffset_ <= offset <= offset + size <= mapEnd.
  const size_t mapEnd = mapOffset_ + mapSize_;  // within the buffer's size
  if (offset < mapOffset_ || offset > mapEnd) return nullptr;
  if (size == kWholeMapSize) size = mapEnd - offset;
  if (offset % 8 != 0 || size % 4 != 0) return nullptr;
  if (size > mapEnd - offset) return nullptr;
  for (auto [o, s] : handedOut_)
    if (offset < o + s && o < offset + size) return nullptr;  // overlaps an earlier range
  handedOut_.emplace_back(offset, size);
  uint8_t* base = MappedBase();
  if (!base) {
    // A zero-sized invalid buffer: WebGPU still hands out a (empty) range.
    static uint8_t empty[8];
    return empty;
  }
  return base + offset;
}

void BufferImpl::ReleaseMapping() {
  handedOut_.clear();
  mapMode_ = MapMode::None;
  mapOffset_ = 0;
  mapSize_ = 0;
}

void BufferImpl::Unmap() {
  switch (state_) {
    case State::MapPending:
      AbortPendingMap("Buffer was unmapped before mapping was resolved.");
      state_ = State::Unmapped;
      break;
    case State::Mapped:
      state_ = State::Unmapped;
      ReleaseMapping();
      break;
    case State::MappedAtCreation:
      state_ = State::Unmapped;
      ReleaseMapping();
      if (!creationStaging_.empty() && IsValid()) {
        Device().Queue().RecordWrite(*this, 0, creationStaging_.data(), creationStaging_.size());
      }
      if (!IsValid()) state_ = State::Destroyed;
      creationStaging_.clear();
      creationStaging_.shrink_to_fit();
      break;
    default:
      break;  // unmapping an unmapped or destroyed buffer does nothing
  }
}

void BufferImpl::AbortMapForDeviceLoss(const char* why, bool unmap) {
  switch (state_) {
    case State::MapPending:
      AbortPendingMap(why);
      state_ = State::Unmapped;
      break;
    case State::Mapped:
    case State::MappedAtCreation:
      if (!unmap) break;
      // Nothing is written back: the device takes no more work.
      ReleaseMapping();
      creationStaging_.clear();
      creationStaging_.shrink_to_fit();
      state_ = State::Unmapped;
      break;
    default:
      break;
  }
}

void BufferImpl::Destroy() {
  if (state_ == State::Destroyed) return;
  if (state_ == State::MapPending)
    AbortPendingMap("Buffer was destroyed before mapping was resolved.");
  ReleaseMapping();
  creationStaging_.clear();
  state_ = State::Destroyed;
  if (raw_.buffer) {
    if (usedByPendingWrites) Device().Queue().FlushPendingWrites();
    DeviceImpl* device = device_.get();  // deferred work must not own the device
    RawBuffer raw = raw_;
    raw_ = RawBuffer{};
    device->DeferUntilIdle([device, raw]() mutable { device->DestroyRawBuffer(raw); });
  }
}

}  // namespace wgpu::detail
