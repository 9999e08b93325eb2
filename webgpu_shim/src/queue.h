// The queue: submits, WriteBuffer through staging, and work-done futures.
#pragma once

#include <webgpu/webgpu_cpp.h>
#include <vulkan/vulkan.h>

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "device.h"

namespace wgpu::detail {

class BufferImpl;
class CommandBufferImpl;

// Owned by its device; handles to it share the device's ownership (aliasing shared_ptr), so it
// holds a plain pointer back.
class QueueImpl {
 public:
  QueueImpl(DeviceImpl* device, std::string label) : device_(device), label_(std::move(label)) {}
  ~QueueImpl();
  QueueImpl(const QueueImpl&) = delete;
  QueueImpl& operator=(const QueueImpl&) = delete;

  void Submit(std::span<const CommandBuffer> commands);
  void WriteBuffer(BufferImpl& buffer, uint64_t offset, const void* data, size_t size);
  Future OnSubmittedWorkDone(CallbackMode mode, QueueWorkDoneCallback<> callback);
  // WriteBuffer without validation, for the shim's own writes (mappedAtCreation unmaps).
  void RecordWrite(BufferImpl& buffer, uint64_t offset, const void* data, uint64_t size);

  // Commands that must run before the next submit (WriteBuffer copies, zero-fills, unmaps of
  // mappedAtCreation buffers). Begins the batch if needed.
  VkCommandBuffer PendingCommands();
  // Copies `size` bytes into staging memory; returns the staging buffer and offset to copy from.
  std::pair<VkBuffer, uint64_t> Stage(const void* data, uint64_t size);
  // Submits the pending batch on its own (used before a map needs its serial).
  void FlushPendingWrites();
  // Marks `buffer` used by the pending batch (the batch does not own it: a buffer destroyed
  // before the batch is submitted calls ForgetPendingBuffer and defers its Vulkan buffer past it).
  void UseInPendingBatch(BufferImpl* buffer);
  void ForgetPendingBuffer(BufferImpl* buffer);

  std::string Name() const;
  void SetLabel(std::string_view label) { label_ = label; }
  // A validation error of a queue call, named after the queue and the call.
  void ReportValidationError(const std::string& message, const char* call);

 private:
  struct StagingChunk {
    RawBuffer raw;
    uint64_t capacity = 0;  // the VkBuffer's size (its memory may be larger)
    uint64_t used = 0;      // never past `capacity`
    uint64_t retireSerial = 0;  // reusable once this serial completes
    uint64_t Room() const { return used >= capacity ? 0 : capacity - used; }
  };
  // Submits the pending batch (if any) followed by `commands` as one queue submission.
  bool SubmitWithPending(std::span<const VkCommandBuffer> commands);
  StagingChunk& ChunkFor(uint64_t size);

  DeviceImpl* device_;
  std::string label_;
  VkCommandBuffer pending_ = VK_NULL_HANDLE;
  std::vector<BufferImpl*> pendingBuffers_;
  std::deque<StagingChunk> chunks_;     // chunks in use by the pending batch or in flight
  std::vector<StagingChunk> freeChunks_;
  size_t pendingChunkBegin_ = 0;        // chunks_[pendingChunkBegin_..] belong to the pending batch
};

}  // namespace wgpu::detail
