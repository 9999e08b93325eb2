// Buffers: creation rules, the WebGPU mapping state machine, and per-encoder access tracking.
#pragma once

#include <webgpu/webgpu_cpp.h>
#include <vulkan/vulkan.h>

#include <memory>
#include <vector>

#include "device.h"
#include "object.h"

namespace wgpu::detail {

class BufferImpl : public ObjectBase, public std::enable_shared_from_this<BufferImpl> {
 public:
  static std::shared_ptr<BufferImpl> Create(const std::shared_ptr<DeviceImpl>& device,
                                            const BufferDescriptor& descriptor);
  // An internal buffer (indirect-dispatch scratch) that is never mapped.
  static std::shared_ptr<BufferImpl> CreateInternal(const std::shared_ptr<DeviceImpl>& device,
                                                    std::string label, uint64_t size,
                                                    BufferUsage usage);
  BufferImpl(const std::shared_ptr<DeviceImpl>& device, const BufferDescriptor& descriptor);
  ~BufferImpl() override;

  Future MapAsync(MapMode mode, size_t offset, size_t size, CallbackMode callbackMode,
                  BufferMapCallback<> callback);
  void* GetMappedRange(size_t offset, size_t size, bool writable);
  void Unmap();
  void Destroy();
  // The device is destroyed (`unmap`: every mapping is given back, as WebGPU's destroy()
  // unmaps all buffers) or lost (only pending maps are aborted): no map resolves any more.
  void AbortMapForDeviceLoss(const char* why, bool unmap);

  uint64_t Size() const { return size_; }
  BufferUsage Usage() const { return usage_; }
  BufferMapState MapState() const;
  bool IsDestroyed() const { return state_ == State::Destroyed; }
  // Usable by the queue right now: valid, not destroyed, not mapped and no map pending.
  // Returns the reason when not.
  std::string CheckUsableInSubmit() const;
  VkBuffer Vk() const { return raw_.buffer; }
  // The buffer's memory, mapped for good, where it is host-visible; else null.
  uint8_t* HostPointer() const { return raw_.allocation.mapped; }

  // ---- tracking (single-threaded per device) ----
  uint64_t lastUsageSerial = 0;  // the last submission that uses this buffer
  bool usedByPendingWrites = false;  // referenced by the queue's not-yet-submitted copies
  // Accesses since the encoder's last barrier (valid while trackEpoch matches the encoder's).
  uint64_t trackEpoch = 0;
  VkPipelineStageFlags pendingStages = 0;
  // The ranges read and written since that barrier, [start, end); merged into one past a few.
  std::vector<std::pair<uint64_t, uint64_t>> pendingReads, pendingWrites;
  uint64_t encoderStamp = 0;  // the last encoder that listed this buffer as used

 private:
  enum class State { Unmapped, MapPending, Mapped, MappedAtCreation, Destroyed };
  struct MapRequest {
    uint64_t eventId = 0;
    bool aborted = false;
    std::string abortMessage;
  };
  VkResult Initialize(bool mappedAtCreation);
  uint8_t* MappedBase();
  void AbortPendingMap(const char* why);
  void ReleaseMapping();

  uint64_t size_;
  BufferUsage usage_;
  bool directWrites_;  // BufferDescriptor::directWrites
  RawBuffer raw_;
  // Backs mappedAtCreation when the buffer is not host-visible (or is invalid); written to the
  // buffer through the queue at Unmap.
  std::vector<uint8_t> creationStaging_;
  State state_ = State::Unmapped;
  MapMode mapMode_ = MapMode::None;
  size_t mapOffset_ = 0;
  size_t mapSize_ = 0;
  std::vector<std::pair<size_t, size_t>> handedOut_;  // ranges returned by GetMappedRange
  std::shared_ptr<MapRequest> pendingMap_;
};

}  // namespace wgpu::detail
