#include "queue.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "buffer.h"
#include "command_encoder.h"
#include "query_set.h"
#include "submit_trace.h"
#include "vk_check.h"

namespace wgpu::detail {

namespace {
constexpr uint64_t kChunkSize = 4ull << 20;  // staging chunk granularity
constexpr size_t kMaxFreeChunks = 4;
std::atomic<uint64_t> directWrites{0};
}  // namespace

QueueImpl::~QueueImpl() {
  // The device is idle here (its destructor waited).
  if (pending_) device_->ReleaseCommandBuffer(pending_);
  for (auto& c : chunks_) device_->DestroyRawBuffer(c.raw);
  for (auto& c : freeChunks_) device_->DestroyRawBuffer(c.raw);
}

std::string QueueImpl::Name() const {
  return label_.empty() ? "[Queue (unlabeled)]" : "[Queue \"" + label_ + "\"]";
}

void QueueImpl::ReportValidationError(const std::string& message, const char* call) {
  device_->HandleError(ErrorType::Validation,
                       Name() + " " + message + "\n - While calling [Queue]." + call + ".");
}

VkCommandBuffer QueueImpl::PendingCommands() {
  if (!pending_) pending_ = device_->AcquireCommandBuffer();
  return pending_;
}

void QueueImpl::ForgetPendingBuffer(BufferImpl* buffer) {
  std::erase(pendingBuffers_, buffer);
}

void QueueImpl::UseInPendingBatch(BufferImpl* buffer) {
  if (buffer->usedByPendingWrites) {
    // A second transfer to the same buffer in this batch: order it after the first.
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    vkCmdPipelineBarrier(pending_, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         0, 1, &barrier, 0, nullptr, 0, nullptr);
    return;
  }
  buffer->usedByPendingWrites = true;
  pendingBuffers_.push_back(buffer);
}

QueueImpl::StagingChunk& QueueImpl::ChunkFor(uint64_t size) {
  if (chunks_.size() > pendingChunkBegin_ && chunks_.back().Room() >= size) return chunks_.back();
  for (auto it = freeChunks_.begin(); it != freeChunks_.end(); ++it) {
    if (it->capacity >= size) {
      chunks_.push_back(*it);
      freeChunks_.erase(it);
      chunks_.back().used = 0;
      return chunks_.back();
    }
  }
  StagingChunk chunk;
  chunk.capacity = std::max(size, kChunkSize);
  // A chunk of the usual size in device memory the host can write, where the device has it: the
  // copies out of it then stay on the device (on an H100, a step's input copies from host memory
  // took 11-13 us of GPU time a step). Larger writes (a model's parameters) stage in host memory.
  VkResult r = VK_ERROR_OUT_OF_DEVICE_MEMORY;
  if (chunk.capacity == kChunkSize)
    r = device_->CreateRawBuffer(chunk.capacity, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                 MemoryKind::UploadNear, &chunk.raw);
  if (r != VK_SUCCESS)
    r = device_->CreateRawBuffer(chunk.capacity, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                 MemoryKind::Upload, &chunk.raw);
  if (r != VK_SUCCESS) {
    chunk.raw = RawBuffer{};
    chunk.capacity = 0;
  }
  chunks_.push_back(chunk);
  return chunks_.back();
}

std::pair<VkBuffer, uint64_t> QueueImpl::Stage(const void* data, uint64_t size) {
  StagingChunk& chunk = ChunkFor(size);
  if (!chunk.raw.buffer) return {VK_NULL_HANDLE, 0};
  const uint64_t offset = chunk.used;
  std::memcpy(chunk.raw.allocation.mapped + offset, data, size);
  // The next write starts 16-byte aligned, or the chunk is full: rounding up must not move `used`
  // past the end of a chunk sized exactly to a write (4 MiB + 4 bytes, say).
  chunk.used = std::min((offset + size + 15) & ~uint64_t{15}, chunk.capacity);
  return {chunk.raw.buffer, offset};
}

void QueueImpl::RecordWrite(BufferImpl& buffer, uint64_t offset, const void* data, uint64_t size) {
  if (size == 0) return;
  // Memory the host can write, which no submitted work still uses and no pending copy writes:
  // writing it now is what writing it at the next submission would be (host writes to coherent
  // memory are visible to every later submission), without a copy on the GPU's timeline (on an
  // H100 a submission's copies cost 4-7 us; bench/RESULTS.md, submit_gaps).
  if (uint8_t* memory = buffer.HostPointer();
      memory && !buffer.usedByPendingWrites && device_->SerialDone(buffer.lastUsageSerial)) {
    std::memcpy(memory + offset, data, size);
    directWrites.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  auto [staging, stagingOffset] = Stage(data, size);
  if (!staging) {
    device_->HandleError(ErrorType::OutOfMemory,
                         Name() + " could not allocate " + std::to_string(size) +
                             " bytes of staging memory for " + buffer.Name() + ".");
    return;
  }
  VkCommandBuffer cmd = PendingCommands();
  UseInPendingBatch(&buffer);
  VkBufferCopy region{stagingOffset, offset, size};
  vkCmdCopyBuffer(cmd, staging, buffer.Vk(), 1, &region);
}

void QueueImpl::WriteBuffer(BufferImpl& buffer, uint64_t offset, const void* data, size_t size) {
  if (device_->IsLost()) return;
  const std::string where = "\n - While calling " + Name() + ".WriteBuffer(" + buffer.Name() + ").";
  std::string error;
  if (!buffer.IsValid()) {
    error = buffer.Name() + " is invalid.";
  } else if (&buffer.Device() != device_) {
    error = ForeignDeviceMessage(buffer, *device_);
  } else if (buffer.IsDestroyed()) {
    error = buffer.Name() + " is destroyed.";
  } else if (buffer.MapState() != BufferMapState::Unmapped) {
    error = buffer.Name() + " is mapped or has a map pending.";
  } else if (!HasFlag(buffer.Usage(), BufferUsage::CopyDst)) {
    error = buffer.Name() + " usage (" + ToString(buffer.Usage()) + ") does not include CopyDst.";
  } else if (offset % 4 != 0) {
    error = "Buffer offset (" + std::to_string(offset) + ") is not a multiple of 4.";
  } else if (size % 4 != 0) {
    error = "Write size (" + std::to_string(size) + ") is not a multiple of 4.";
  } else if (offset > buffer.Size() || size > buffer.Size() - offset) {
    error = "Write range (bufferOffset: " + std::to_string(offset) + ", size: " +
            std::to_string(size) + ") does not fit in " + buffer.Name() + " size (" +
            std::to_string(buffer.Size()) + ").";
  }
  if (!error.empty()) {
    device_->HandleError(ErrorType::Validation, error + where);
    return;
  }
  RecordWrite(buffer, offset, data, size);
}

void QueueImpl::Submit(std::span<const CommandBuffer> commands) {
  if (device_->IsLost()) return;
  device_->Tick();
  std::string error;
  std::vector<CommandBufferImpl*> impls;
  for (const CommandBuffer& handle : commands) {
    CommandBufferImpl* cb = handle.Get().get();
    if (!cb) {
      error = "A null command buffer was submitted.";
      break;
    }
    if (!cb->IsValid()) {
      error = cb->Name() + " is invalid.";
      break;
    }
    if (&cb->Device() != device_) {
      error = ForeignDeviceMessage(*cb, *device_);
      break;
    }
    if ((cb->submitted && !cb->reusable) ||
        std::find(impls.begin(), impls.end(), cb) != impls.end()) {
      error = cb->Name() + " was already submitted.";
      break;
    }
    for (auto& b : cb->buffers) {
      error = b->CheckUsableInSubmit();
      if (!error.empty()) {
        error = cb->Name() + ": " + error;
        break;
      }
    }
    for (const QueryUse& q : cb->querySets) {
      if (!error.empty()) break;
      error = q.set->CheckUsableInSubmit();
      if (!error.empty()) error = cb->Name() + ": " + error;
    }
    if (!error.empty()) break;
    impls.push_back(cb);
  }
  if (!error.empty()) {
    device_->HandleError(ErrorType::Validation, error + "\n - While calling " + Name() + ".Submit.");
    return;
  }
  // Nothing here holds the command buffers (or what they use) until the GPU is done: each
  // object's destructor defers its Vulkan handles past the work submitted so far, and holding
  // them from the device would make the device own itself when the application drops its
  // handles mid-flight.
  std::vector<VkCommandBuffer> cmds;
  for (const CommandBuffer& handle : commands) {
    if (handle.Get()->resets) cmds.push_back(handle.Get()->resets);
    cmds.push_back(handle.Get()->cmd);
  }
  if (!SubmitWithPending(cmds)) return;
  const uint64_t serial = device_->LastSubmittedSerial();
  for (CommandBufferImpl* cb : impls) {
    cb->submitted = true;
    for (auto& b : cb->buffers) b->lastUsageSerial = serial;
    // Later resolves read what this submission writes (query commands run in submission order).
    for (const QueryUse& q : cb->querySets)
      for (uint32_t i = 0; i < q.written.size(); ++i)
        if (q.written[i]) q.set->MarkAvailable(i);
  }
}

bool QueueImpl::SubmitWithPending(std::span<const VkCommandBuffer> commands) {
  std::vector<VkCommandBuffer> all;
  if (pending_) {
    vkEndCommandBuffer(pending_);
    all.push_back(pending_);
  }
  all.insert(all.end(), commands.begin(), commands.end());
  if (all.empty()) return true;

  const uint64_t serial = device_->NextSerial();
  if (SubmitTrace* trace = device_->Trace())
    if (const auto wrap = trace->Wrap(serial)) {
      all.insert(all.begin(), wrap->first);
      all.push_back(wrap->second);
    }
  VkSemaphore timeline = device_->Timeline();
  VkTimelineSemaphoreSubmitInfo timelineInfo{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  timelineInfo.signalSemaphoreValueCount = 1;
  timelineInfo.pSignalSemaphoreValues = &serial;
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.pNext = &timelineInfo;
  submit.commandBufferCount = static_cast<uint32_t>(all.size());
  submit.pCommandBuffers = all.data();
  submit.signalSemaphoreCount = 1;
  submit.pSignalSemaphores = &timeline;
  VkResult r = vkQueueSubmit(device_->VkQueueHandle(), 1, &submit, VK_NULL_HANDLE);
  if (r != VK_SUCCESS) {
    // The serial will never signal; nothing queued can be trusted any more.
    device_->Lose(DeviceLostReason::Unknown, VkFailure("vkQueueSubmit", r));
  }

  for (BufferImpl* b : pendingBuffers_) {
    b->lastUsageSerial = serial;
    b->usedByPendingWrites = false;
  }
  pendingBuffers_.clear();
  for (size_t i = pendingChunkBegin_; i < chunks_.size(); ++i) chunks_[i].retireSerial = serial;
  pendingChunkBegin_ = chunks_.size();
  if (pending_) {
    VkCommandBuffer cmd = pending_;
    DeviceImpl* device = device_;
    device_->DeferUntilIdle([device, cmd] { device->ReleaseCommandBuffer(cmd); });
  }
  pending_ = VK_NULL_HANDLE;

  // Recycle staging chunks whose submissions are done.
  device_->Tick();
  while (!chunks_.empty() && pendingChunkBegin_ > 0 &&
         chunks_.front().retireSerial <= device_->CompletedSerial()) {
    StagingChunk chunk = chunks_.front();
    chunks_.pop_front();
    --pendingChunkBegin_;
    if (freeChunks_.size() < kMaxFreeChunks && chunk.capacity <= 64 * kChunkSize) {
      chunk.used = 0;
      freeChunks_.push_back(chunk);
    } else {
      device_->DestroyRawBuffer(chunk.raw);
    }
  }
  return r == VK_SUCCESS;
}

void QueueImpl::FlushPendingWrites() {
  if (pending_) SubmitWithPending({});
}

Future QueueImpl::OnSubmittedWorkDone(CallbackMode mode, QueueWorkDoneCallback<> callback) {
  FlushPendingWrites();
  auto device = device_->shared_from_this();
  return device_->Instance().Events().Track(mode, device, device_->LastSubmittedSerial(),
                                            [callback] { callback(QueueWorkDoneStatus::Success, ""); });
}

}  // namespace wgpu::detail

uint64_t wgpu::GetDirectBufferWritesForTesting() { return wgpu::detail::directWrites.load(); }
