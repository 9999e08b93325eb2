// Command encoders, compute passes and command buffers. Commands are validated and recorded
// straight into a Vulkan command buffer; a usage tracker inserts a barrier only before a command
// that touches a buffer in a conflicting way since the last barrier.
#pragma once

#include <webgpu/webgpu_cpp.h>
#include <vulkan/vulkan.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "binding.h"
#include "compute_pipeline.h"
#include "object.h"

namespace wgpu::detail {

class BufferImpl;
class ComputePassEncoderImpl;
class QuerySetImpl;

// A query set the commands use, and which of its queries they write (resolves read those, and a
// submit marks them available on the set).
struct QueryUse {
  QuerySetImpl* set;  // owned through keepAlive
  std::vector<bool> written;
  std::vector<bool> readFirst;  // resolved before the commands wrote it: its earlier value is read
  // Reset in the command buffer's prologue: written here and not read before (a query written
  // twice is reset again in place before its second write).
  bool ResetFirst(uint32_t i) const { return written[i] && !readFirst[i]; }
};

class CommandBufferImpl : public ObjectBase {
 public:
  CommandBufferImpl(const std::shared_ptr<DeviceImpl>& device, std::string label)
      : ObjectBase(device, "CommandBuffer", std::move(label)) {}
  ~CommandBufferImpl() override;

  VkCommandBuffer cmd = VK_NULL_HANDLE;
  // Submitted right before `cmd`: the resets of the queries it writes. Vulkan writes only a reset
  // query, and a reset among the dispatches stalls them (on an H200, a query reset before each
  // of D512's 143 level timestamps made each level 3-8 us longer).
  VkCommandBuffer resets = VK_NULL_HANDLE;
  bool submitted = false;
  bool reusable = false;  // CommandEncoderDescriptor::reusable
  uint32_t barrierCount = 0;
  // Every buffer the commands touch; each is owned through `keepAlive` (directly, or by a bind
  // group that holds it).
  std::vector<BufferImpl*> buffers;
  std::vector<QueryUse> querySets;
  std::vector<std::shared_ptr<void>> keepAlive;
};

class CommandEncoderImpl : public ObjectBase {
 public:
  CommandEncoderImpl(const std::shared_ptr<DeviceImpl>& device, std::string label,
                     bool reusable = false);
  ~CommandEncoderImpl() override;

  // Encoder-level commands. Errors are recorded and reported at Finish, as WebGPU specifies.
  void CopyBufferToBuffer(BufferImpl* src, uint64_t srcOffset, BufferImpl* dst,
                          uint64_t dstOffset, uint64_t size);
  void ClearBuffer(BufferImpl* buffer, uint64_t offset, uint64_t size);
  void ResolveQuerySet(QuerySetImpl* set, uint32_t firstQuery, uint32_t queryCount,
                       BufferImpl* destination, uint64_t destinationOffset);
  std::shared_ptr<CommandBufferImpl> Finish(const std::string& label);

  // Used by compute passes. BeginPass validates `timestampWrites` (an error fails the encoder, the
  // pass still opens), writes the beginning timestamp and gives `pass` its end-of-pass one; false
  // when no pass may open.
  bool BeginPass(ComputePassEncoderImpl& pass, const PassTimestampWrites* timestampWrites);
  // Writes a timestamp to query `index` once every earlier command is done (resetting it first
  // here only where the prologue cannot: a query written twice, or read before).
  void WriteTimestamp(QuerySetImpl* set, uint32_t index);
  void EndPass() { passOpen_ = false; }
  void RecordError(std::string message);
  bool HasError() const { return !error_.empty(); }
  VkCommandBuffer Cmd() const { return cmd_; }
  // Declares the accesses of the next command; emits one barrier if any conflicts.
  struct Access {
    BufferImpl* buffer;
    VkPipelineStageFlags stage;
    VkAccessFlags access;
    bool write;
    uint64_t offset = 0;           // the bytes accessed: [offset, offset + size)
    uint64_t size = UINT64_MAX;    // (the whole buffer by default)
  };
  void PrepareAccesses(std::span<const Access> accesses);
  // Lists a buffer as used by the commands. Use() is for buffers a kept-alive bind group owns;
  // UseOwned() also takes shared ownership (copies, clears, indirect arguments).
  void Use(BufferImpl* buffer);
  void UseOwned(BufferImpl* buffer);
  void KeepAlive(std::shared_ptr<void> object) { keepAlive_.push_back(std::move(object)); }
  // Checks that the encoder may record an encoder-level command now.
  bool CheckOpen(const char* command);
  // A 16-byte buffer the indirect-dispatch validation writes checked counts to.
  BufferImpl* IndirectScratch();

 private:
  // Lists a query set as used (taking shared ownership) and returns its entry.
  QueryUse& UseQuerySet(QuerySetImpl* set);
  std::string ValidateTimestampWrites(const PassTimestampWrites& writes) const;

  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  std::shared_ptr<BufferImpl> indirectScratch_;
  uint64_t stamp_;            // unique per encoder, for Use()
  uint64_t epoch_;            // changes at every barrier, invalidating buffers' pending accesses
  VkPipelineStageFlags pendingStages_ = 0;
  VkAccessFlags pendingWriteAccess_ = 0;
  // Work from earlier submissions counts as a pending write to everything: the first command
  // gets a barrier.
  bool externalPending_ = true;
  bool usesReadback_ = false;
  uint32_t barrierCount_ = 0;  // a MapRead buffer is written: make writes visible to the host
  bool passOpen_ = false;
  bool finished_ = false;
  bool reusable_ = false;
  std::string error_;
  std::vector<BufferImpl*> buffers_;
  std::vector<QueryUse> querySets_;  // few per encoder: found by a scan
  std::vector<std::shared_ptr<void>> keepAlive_;
};

class ComputePassEncoderImpl : public ObjectBase {
 public:
  ComputePassEncoderImpl(const std::shared_ptr<DeviceImpl>& device, std::string label,
                         std::shared_ptr<CommandEncoderImpl> encoder);

  void SetPipeline(const std::shared_ptr<ComputePipelineImpl>& pipeline);
  void SetBindGroup(uint32_t index, const std::shared_ptr<BindGroupImpl>& group,
                    size_t dynamicOffsetCount, const uint32_t* dynamicOffsets = nullptr);
  void Dispatch(uint32_t x, uint32_t y, uint32_t z);
  void DispatchIndirect(const std::shared_ptr<BufferImpl>& buffer, uint64_t offset);
  // The query End() writes the end-of-pass timestamp to (set by the encoder's BeginPass).
  void SetEndOfPassWrite(std::shared_ptr<QuerySetImpl> set, uint32_t index) {
    endSet_ = std::move(set);
    endIndex_ = index;
  }
  void End();

 private:
  // Validates the pipeline and bind groups for a dispatch (once per change of state).
  bool ValidateState(const char* command);
  // Tracks the dispatch's accesses (plus `indirect`'s) and binds what changed. False when the
  // dispatch must be skipped: it touches a destroyed buffer, which fails the submit.
  bool BindAndTrack(BufferImpl* indirect);
  bool Check(const char* command);
  void Error(const char* command, const std::string& message);

  std::shared_ptr<CommandEncoderImpl> encoder_;
  bool ended_ = false;
  std::shared_ptr<QuerySetImpl> endSet_;
  uint32_t endIndex_ = 0;
  std::shared_ptr<ComputePipelineImpl> pipeline_;
  std::array<std::shared_ptr<BindGroupImpl>, 8> groups_{};
  std::array<std::vector<uint32_t>, 8> dynamicOffsets_{};  // each group's, in binding order
  uint32_t dirtyGroups_ = 0;     // bit i: group i must be (re)bound
  bool pipelineDirty_ = false;
  bool bindingsChecked_ = false;  // compatibility and aliasing checked for the current state
  std::vector<CommandEncoderImpl::Access> accesses_;  // the current bindings' accesses
  // A binding as the dispatch sees it: its group's dynamic offset, if any, added.
  struct BoundRange {
    const BoundBuffer* binding;
    const BindGroupImpl* group;
    uint64_t offset;  // binding->offset + its dynamic offset
  };
  // Scratch for ValidateState, kept to avoid an allocation per dispatch.
  std::vector<BoundRange> bound_;
};

}  // namespace wgpu::detail
