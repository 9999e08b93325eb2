#include "command_encoder.h"

#include <atomic>

#include "buffer.h"
#include "device.h"
#include "indirect_validation.h"
#include "query_set.h"
#include "timestamp_conversion.h"
#include "vk_check.h"

namespace wgpu::detail {

namespace {

std::atomic<uint64_t> nextStamp{1};
uint64_t NewStamp() { return nextStamp.fetch_add(1); }

constexpr VkPipelineStageFlags kComputeStage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
constexpr VkPipelineStageFlags kTransferStage = VK_PIPELINE_STAGE_TRANSFER_BIT;

}  // namespace

CommandBufferImpl::~CommandBufferImpl() {
  DeviceImpl* device = device_.get();  // deferred work must not own the device
  for (VkCommandBuffer c : {cmd, resets})
    if (c) device->DeferUntilIdle([device, c] { device->ReleaseCommandBuffer(c); });
}

CommandEncoderImpl::CommandEncoderImpl(const std::shared_ptr<DeviceImpl>& device, std::string label,
                                       bool reusable)
    : ObjectBase(device, "CommandEncoder", std::move(label)),
      stamp_(NewStamp()),
      epoch_(NewStamp()),
      reusable_(reusable) {
  cmd_ = device->AcquireCommandBuffer(reusable);
  if (!cmd_) {
    MarkInvalid();
    device->HandleError(ErrorType::OutOfMemory, Name() + " could not allocate a command buffer.");
  }
}

CommandEncoderImpl::~CommandEncoderImpl() {
  if (cmd_) Device().ReleaseCommandBuffer(cmd_);  // never submitted
}

void CommandEncoderImpl::RecordError(std::string message) {
  if (error_.empty()) error_ = std::move(message);
}

bool CommandEncoderImpl::CheckOpen(const char* command) {
  if (finished_) {
    // Using a finished encoder is reported at once: there is no later Finish to report it.
    Device().HandleError(ErrorType::Validation,
                         Name() + " is finished.\n - While calling " + Name() + "." + command + ".");
    return false;
  }
  if (passOpen_) {
    RecordError(Name() + " is locked while a compute pass is open.\n - While calling " + Name() +
                "." + command + ".");
    return false;
  }
  return error_.empty() && IsValid();
}

bool CommandEncoderImpl::BeginPass(ComputePassEncoderImpl& pass,
                                   const PassTimestampWrites* timestampWrites) {
  if (!CheckOpen("BeginComputePass")) return false;
  passOpen_ = true;
  if (!timestampWrites) return true;
  if (std::string e = ValidateTimestampWrites(*timestampWrites); !e.empty()) {
    RecordError(e + "\n - While encoding " + Name() + ".BeginComputePass.");
    return true;
  }
  const std::shared_ptr<QuerySetImpl>& set = timestampWrites->querySet.Get();
  if (timestampWrites->beginningOfPassWriteIndex != kQuerySetIndexUndefined)
    WriteTimestamp(set.get(), timestampWrites->beginningOfPassWriteIndex);
  if (timestampWrites->endOfPassWriteIndex != kQuerySetIndexUndefined)
    pass.SetEndOfPassWrite(set, timestampWrites->endOfPassWriteIndex);
  return true;
}

std::string CommandEncoderImpl::ValidateTimestampWrites(const PassTimestampWrites& w) const {
  if (!Device().Features().Has(FeatureName::TimestampQuery))
    return "timestampWrites is set, but the TimestampQuery (timestamp-query) feature is not "
           "enabled on " + Device().Name() + ".";
  const QuerySetImpl* set = w.querySet.Get().get();
  if (!set) return "timestampWrites.querySet is null.";
  if (!set->IsValid()) return set->Name() + " is invalid.";
  if (&set->Device() != &Device()) return ForeignDeviceMessage(*set, Device());
  if (set->Type() != QueryType::Timestamp) return set->Name() + " type is not Timestamp.";
  const uint32_t begin = w.beginningOfPassWriteIndex, end = w.endOfPassWriteIndex;
  if (begin == kQuerySetIndexUndefined && end == kQuerySetIndexUndefined)
    return "timestampWrites sets neither beginningOfPassWriteIndex nor endOfPassWriteIndex.";
  const auto outOfRange = [&](const char* which, uint32_t index) {
    return "timestampWrites." + std::string(which) + " (" + std::to_string(index) +
           ") is not less than the count (" + std::to_string(set->Count()) + ") of " +
           set->Name() + ".";
  };
  if (begin != kQuerySetIndexUndefined && begin >= set->Count())
    return outOfRange("beginningOfPassWriteIndex", begin);
  if (end != kQuerySetIndexUndefined && end >= set->Count())
    return outOfRange("endOfPassWriteIndex", end);
  if (begin == end)
    return "timestampWrites.beginningOfPassWriteIndex and endOfPassWriteIndex are both " +
           std::to_string(begin) + ".";
  return {};
}

QueryUse& CommandEncoderImpl::UseQuerySet(QuerySetImpl* set) {
  for (QueryUse& use : querySets_)
    if (use.set == set) return use;
  keepAlive_.push_back(set->shared_from_this());
  const std::vector<bool> none(set->Count());
  return querySets_.emplace_back(QueryUse{set, none, none});
}

void CommandEncoderImpl::WriteTimestamp(QuerySetImpl* set, uint32_t index) {
  QueryUse& use = UseQuerySet(set);
  const bool resetHere = use.written[index] || use.readFirst[index];
  use.written[index] = true;
  if (set->IsDestroyed()) return;  // the submit reports it
  // Resets and writes are query commands, which run in submission order with the other query
  // commands (the prologue's reset, earlier writes and copies of this query): no barrier needed.
  // BOTTOM_OF_PIPE: the timestamp is taken once every earlier command is done, so a pass's end
  // follows all its dispatches, and its beginning follows earlier passes (passes' spans do not
  // overlap and measure each pass's own work, as Dawn's).
  if (resetHere) vkCmdResetQueryPool(cmd_, set->Vk(), index, 1);
  vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, set->Vk(), index);
}

void CommandEncoderImpl::Use(BufferImpl* buffer) {
  if (buffer->encoderStamp == stamp_) return;
  buffer->encoderStamp = stamp_;
  buffers_.push_back(buffer);
  if (HasFlag(buffer->Usage(), BufferUsage::MapRead)) usesReadback_ = true;
}

void CommandEncoderImpl::UseOwned(BufferImpl* buffer) {
  if (buffer->encoderStamp == stamp_) return;  // already listed, and owned by whoever listed it
  keepAlive_.push_back(buffer->shared_from_this());
  Use(buffer);
}

namespace {

std::pair<uint64_t, uint64_t> RangeOf(const CommandEncoderImpl::Access& a) {
  const uint64_t end = a.size > UINT64_MAX - a.offset ? UINT64_MAX : a.offset + a.size;
  return {a.offset, end};
}

bool Overlaps(const std::vector<std::pair<uint64_t, uint64_t>>& ranges,
              const CommandEncoderImpl::Access& a) {
  const auto [start, end] = RangeOf(a);
  for (const auto& [s, e] : ranges)
    if (start < e && s < end) return true;
  return false;
}

// Adds `a`'s range; past a few ranges they become one covering them all (conservative: more
// barriers, never fewer), so a buffer bound many times costs no more than a short scan.
void AddRange(std::vector<std::pair<uint64_t, uint64_t>>& ranges, const CommandEncoderImpl::Access& a) {
  constexpr size_t kMaxRanges = 16;
  ranges.push_back(RangeOf(a));
  if (ranges.size() <= kMaxRanges) return;
  std::pair<uint64_t, uint64_t> all = ranges.front();
  for (const auto& [s, e] : ranges) all = {std::min(all.first, s), std::max(all.second, e)};
  ranges.assign(1, all);
}

}  // namespace

void CommandEncoderImpl::PrepareAccesses(std::span<const Access> accesses) {
  bool hazard = externalPending_;
  // Every barrier makes earlier writes visible to compute and transfer, so a later epoch needs no
  // further barrier for dispatches or copies. The indirect-argument stage (a front-end stall on
  // some GPUs) is added only for the access that needs it: indirect dispatches read arguments
  // the validation dispatch just wrote, in the same epoch.
  VkPipelineStageFlags dstStages = kComputeStage | kTransferStage;
  VkAccessFlags dstAccess = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                            VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  for (const Access& a : accesses) {
    dstStages |= a.stage;
    dstAccess |= a.access;
    BufferImpl* b = a.buffer;
    // Read-after-write, write-after-read and write-after-write of overlapping bytes need a
    // barrier; kernels writing disjoint ranges of one buffer (views of an arena) need none. A
    // dispatch stays inside its bindings' ranges: WGSL clamps every index to them.
    if (b->trackEpoch == epoch_ &&
        (Overlaps(b->pendingWrites, a) || (a.write && Overlaps(b->pendingReads, a))))
      hazard = true;
  }
  if (hazard) {
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    VkPipelineStageFlags srcStages = pendingStages_;
    barrier.srcAccessMask = pendingWriteAccess_;
    if (externalPending_) {
      srcStages |= kComputeStage | kTransferStage;
      barrier.srcAccessMask |= VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    }
    barrier.dstAccessMask = dstAccess;
    vkCmdPipelineBarrier(cmd_, srcStages, dstStages, 0, 1, &barrier, 0, nullptr, 0, nullptr);
    ++barrierCount_;
    epoch_ = NewStamp();
    pendingStages_ = 0;
    pendingWriteAccess_ = 0;
    externalPending_ = false;
  }
  for (const Access& a : accesses) {
    BufferImpl* b = a.buffer;
    if (b->trackEpoch != epoch_) {
      b->trackEpoch = epoch_;
      b->pendingStages = 0;
      b->pendingReads.clear();
      b->pendingWrites.clear();
    }
    b->pendingStages |= a.stage;
    pendingStages_ |= a.stage;
    AddRange(a.write ? b->pendingWrites : b->pendingReads, a);
    if (a.write) pendingWriteAccess_ |= a.access;
  }
}

BufferImpl* CommandEncoderImpl::IndirectScratch() {
  if (!indirectScratch_)
    indirectScratch_ = BufferImpl::CreateInternal(device_, "indirect dispatch scratch", 16,
                                                  BufferUsage::Storage | BufferUsage::Indirect);
  UseOwned(indirectScratch_.get());
  return indirectScratch_.get();
}

void CommandEncoderImpl::CopyBufferToBuffer(BufferImpl* src, uint64_t srcOffset, BufferImpl* dst,
                                            uint64_t dstOffset, uint64_t size) {
  if (!CheckOpen("CopyBufferToBuffer")) return;
  const std::string where = "\n - While encoding " + Name() + ".CopyBufferToBuffer.";
  auto fail = [&](const std::string& m) { RecordError(m + where); };
  if (!src || !dst) return fail("Source or destination buffer is null.");
  if (!src->IsValid()) return fail(src->Name() + " is invalid.");
  if (!dst->IsValid()) return fail(dst->Name() + " is invalid.");
  if (&src->Device() != &Device()) return fail(ForeignDeviceMessage(*src, Device()));
  if (&dst->Device() != &Device()) return fail(ForeignDeviceMessage(*dst, Device()));
  if (src == dst) return fail("Source and destination are the same buffer " + src->Name() + ".");
  if (!HasFlag(src->Usage(), BufferUsage::CopySrc))
    return fail(src->Name() + " usage (" + ToString(src->Usage()) + ") does not include CopySrc.");
  if (!HasFlag(dst->Usage(), BufferUsage::CopyDst))
    return fail(dst->Name() + " usage (" + ToString(dst->Usage()) + ") does not include CopyDst.");
  if (size % 4 != 0) return fail("Copy size (" + std::to_string(size) + ") is not a multiple of 4.");
  if (srcOffset % 4 != 0)
    return fail("Source offset (" + std::to_string(srcOffset) + ") is not a multiple of 4.");
  if (dstOffset % 4 != 0)
    return fail("Destination offset (" + std::to_string(dstOffset) + ") is not a multiple of 4.");
  if (srcOffset > src->Size() || size > src->Size() - srcOffset)
    return fail("Copy range (offset " + std::to_string(srcOffset) + ", size " + std::to_string(size) +
                ") does not fit in " + src->Name() + " size (" + std::to_string(src->Size()) + ").");
  if (dstOffset > dst->Size() || size > dst->Size() - dstOffset)
    return fail("Copy range (offset " + std::to_string(dstOffset) + ", size " + std::to_string(size) +
                ") does not fit in " + dst->Name() + " size (" + std::to_string(dst->Size()) + ").");
  UseOwned(src);
  UseOwned(dst);
  if (src->IsDestroyed() || dst->IsDestroyed() || size == 0) return;  // the submit reports it
  const Access accesses[] = {{src, kTransferStage, VK_ACCESS_TRANSFER_READ_BIT, false, srcOffset, size},
                             {dst, kTransferStage, VK_ACCESS_TRANSFER_WRITE_BIT, true, dstOffset, size}};
  PrepareAccesses(accesses);
  VkBufferCopy region{srcOffset, dstOffset, size};
  vkCmdCopyBuffer(cmd_, src->Vk(), dst->Vk(), 1, &region);
}

void CommandEncoderImpl::ClearBuffer(BufferImpl* buffer, uint64_t offset, uint64_t size) {
  if (!CheckOpen("ClearBuffer")) return;
  const std::string where = "\n - While encoding " + Name() + ".ClearBuffer.";
  auto fail = [&](const std::string& m) { RecordError(m + where); };
  if (!buffer) return fail("The buffer is null.");
  if (!buffer->IsValid()) return fail(buffer->Name() + " is invalid.");
  if (&buffer->Device() != &Device()) return fail(ForeignDeviceMessage(*buffer, Device()));
  if (!HasFlag(buffer->Usage(), BufferUsage::CopyDst))
    return fail(buffer->Name() + " usage (" + ToString(buffer->Usage()) + ") does not include CopyDst.");
  if (offset % 4 != 0) return fail("Offset (" + std::to_string(offset) + ") is not a multiple of 4.");
  if (offset > buffer->Size())
    return fail("Offset (" + std::to_string(offset) + ") is past the end of " + buffer->Name() + ".");
  if (size == kWholeSize) size = buffer->Size() - offset;
  if (size % 4 != 0) return fail("Size (" + std::to_string(size) + ") is not a multiple of 4.");
  if (size > buffer->Size() - offset)
    return fail("Clear range (offset " + std::to_string(offset) + ", size " + std::to_string(size) +
                ") does not fit in " + buffer->Name() + " size (" + std::to_string(buffer->Size()) + ").");
  UseOwned(buffer);
  if (buffer->IsDestroyed() || size == 0) return;
  const Access access[] = {{buffer, kTransferStage, VK_ACCESS_TRANSFER_WRITE_BIT, true, offset, size}};
  PrepareAccesses(access);
  vkCmdFillBuffer(cmd_, buffer->Vk(), offset, size, 0);
}

void CommandEncoderImpl::ResolveQuerySet(QuerySetImpl* set, uint32_t firstQuery,
                                         uint32_t queryCount, BufferImpl* dst, uint64_t dstOffset) {
  if (!CheckOpen("ResolveQuerySet")) return;
  const std::string where = "\n - While encoding " + Name() + ".ResolveQuerySet.";
  auto fail = [&](const std::string& m) { RecordError(m + where); };
  if (!set) return fail("The query set is null.");
  if (!dst) return fail("The destination buffer is null.");
  if (!set->IsValid()) return fail(set->Name() + " is invalid.");
  if (!dst->IsValid()) return fail(dst->Name() + " is invalid.");
  if (&set->Device() != &Device()) return fail(ForeignDeviceMessage(*set, Device()));
  if (&dst->Device() != &Device()) return fail(ForeignDeviceMessage(*dst, Device()));
  const uint32_t count = set->Count();
  if (firstQuery >= count)
    return fail("First query (" + std::to_string(firstQuery) + ") is not less than the count (" +
                std::to_string(count) + ") of " + set->Name() + ".");
  if (queryCount > count - firstQuery)
    return fail("Query range (firstQuery " + std::to_string(firstQuery) + ", queryCount " +
                std::to_string(queryCount) + ") exceeds the count (" + std::to_string(count) +
                ") of " + set->Name() + ".");
  if (!HasFlag(dst->Usage(), BufferUsage::QueryResolve))
    return fail(dst->Name() + " usage (" + ToString(dst->Usage()) + ") does not include QueryResolve.");
  if (dstOffset % 256 != 0)
    return fail("Destination offset (" + std::to_string(dstOffset) + ") is not a multiple of 256.");
  const uint64_t size = uint64_t{queryCount} * sizeof(uint64_t);
  if (dstOffset > dst->Size() || size > dst->Size() - dstOffset)
    return fail("Resolve range (offset " + std::to_string(dstOffset) + ", size " +
                std::to_string(size) + ") does not fit in " + dst->Name() + " size (" +
                std::to_string(dst->Size()) + ").");
  QueryUse& use = UseQuerySet(set);
  const std::vector<bool>& written = use.written;
  for (uint32_t i = firstQuery; i < firstQuery + queryCount; ++i)
    if (!written[i]) use.readFirst[i] = true;
  UseOwned(dst);
  if (set->IsDestroyed() || dst->IsDestroyed() || queryCount == 0) return;  // the submit reports it
  const Access accesses[] = {{dst, kTransferStage, VK_ACCESS_TRANSFER_WRITE_BIT, true, dstOffset, size}};
  PrepareAccesses(accesses);
  // Runs of queries with a value are copied (waiting for them, in submission order); runs without
  // one are zeroed, as WebGPU resolves unwritten queries (waiting on them would never end).
  const auto available = [&](uint32_t i) { return written[i] || set->Available(i); };
  const uint32_t last = firstQuery + queryCount;
  for (uint32_t i = firstQuery; i < last;) {
    const bool copy = available(i);
    uint32_t j = i + 1;
    while (j < last && available(j) == copy) ++j;
    const uint64_t at = dstOffset + uint64_t{i - firstQuery} * sizeof(uint64_t);
    if (copy)
      vkCmdCopyQueryPoolResults(cmd_, set->Vk(), i, j - i, dst->Vk(), at, sizeof(uint64_t),
                                VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    else
      vkCmdFillBuffer(cmd_, dst->Vk(), at, uint64_t{j - i} * sizeof(uint64_t), 0);
    i = j;
  }
  // Ticks of another length than a nanosecond are scaled in place (zeros stay zero).
  if (Device().TimestampScale() != kNsTimestampScale)
    Device().Timestamps().Record(*this, *dst, dstOffset, queryCount);
}

std::shared_ptr<CommandBufferImpl> CommandEncoderImpl::Finish(const std::string& label) {
  auto cb = std::make_shared<CommandBufferImpl>(device_, label);
  std::string error;
  if (finished_) {
    error = Name() + " was already finished.";
  } else if (passOpen_) {
    error = Name() + " has a compute pass that was not ended.";
  } else if (!error_.empty()) {
    error = error_;
  } else if (!IsValid()) {
    error = Name() + " is invalid.";
  }
  finished_ = true;
  if (!error.empty()) {
    cb->MarkInvalid();
    Device().HandleError(ErrorType::Validation, error + "\n - While calling " + Name() + ".Finish.");
    return cb;
  }
  if (usesReadback_) {
    // Make GPU writes visible to the host for buffers that will be mapped for reading.
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cmd_, kComputeStage | kTransferStage, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                         &barrier, 0, nullptr, 0, nullptr);
  }
  if (VkResult r = vkEndCommandBuffer(cmd_); r != VK_SUCCESS) {
    cb->MarkInvalid();
    Device().HandleError(IsOutOfMemory(r) ? ErrorType::OutOfMemory : ErrorType::Internal,
                         Name() + " " + VkFailure("vkEndCommandBuffer", r));
    return cb;
  }
  // The prologue: each run of the queries to reset, reset once before the commands run.
  for (const QueryUse& use : querySets_) {
    if (use.set->IsDestroyed()) continue;  // the submit reports it
    const auto count = static_cast<uint32_t>(use.written.size());
    for (uint32_t i = 0; i < count;) {
      uint32_t j = i;
      while (j < count && use.ResetFirst(j)) ++j;
      if (j > i) {
        if (!cb->resets) cb->resets = Device().AcquireCommandBuffer(reusable_);
        if (!cb->resets) {
          cb->MarkInvalid();
          Device().HandleError(ErrorType::OutOfMemory,
                               Name() + " could not allocate a command buffer for query resets.");
          return cb;
        }
        vkCmdResetQueryPool(cb->resets, use.set->Vk(), i, j - i);
      }
      i = j + 1;
    }
  }
  if (cb->resets)
    if (VkResult r = vkEndCommandBuffer(cb->resets); r != VK_SUCCESS) {
      cb->MarkInvalid();
      Device().HandleError(IsOutOfMemory(r) ? ErrorType::OutOfMemory : ErrorType::Internal,
                           Name() + " " + VkFailure("vkEndCommandBuffer", r));
      return cb;
    }
  cb->cmd = cmd_;
  cmd_ = VK_NULL_HANDLE;
  cb->buffers = std::move(buffers_);
  cb->querySets = std::move(querySets_);
  cb->keepAlive = std::move(keepAlive_);
  cb->barrierCount = barrierCount_;
  cb->reusable = reusable_;
  return cb;
}

// ---- ComputePassEncoder ----

ComputePassEncoderImpl::ComputePassEncoderImpl(const std::shared_ptr<DeviceImpl>& device,
                                               std::string label,
                                               std::shared_ptr<CommandEncoderImpl> encoder)
    : ObjectBase(device, "ComputePassEncoder", std::move(label)), encoder_(std::move(encoder)) {}

void ComputePassEncoderImpl::Error(const char* command, const std::string& message) {
  encoder_->RecordError(message + "\n - While encoding " + Name() + "." + command + ".");
}

bool ComputePassEncoderImpl::Check(const char* command) {
  if (ended_) {
    Error(command, Name() + " is already ended.");
    return false;
  }
  return !encoder_->HasError() && IsValid();
}

void ComputePassEncoderImpl::SetPipeline(const std::shared_ptr<ComputePipelineImpl>& pipeline) {
  if (!Check("SetPipeline")) return;
  if (!pipeline) return Error("SetPipeline", "The pipeline is null.");
  if (!pipeline->IsValid()) return Error("SetPipeline", pipeline->Name() + " is invalid.");
  if (&pipeline->Device() != &Device())
    return Error("SetPipeline", ForeignDeviceMessage(*pipeline, Device()));
  if (pipeline == pipeline_) return;
  pipeline_ = pipeline;
  pipelineDirty_ = true;
  dirtyGroups_ = ~0u;  // rebind everything with the new layout
  bindingsChecked_ = false;
  encoder_->KeepAlive(pipeline);
}

void ComputePassEncoderImpl::SetBindGroup(uint32_t index, const std::shared_ptr<BindGroupImpl>& group,
                                          size_t dynamicOffsetCount, const uint32_t* dynamicOffsets) {
  if (!Check("SetBindGroup")) return;
  const Limits& limits = Device().GetLimits();
  if (index >= limits.maxBindGroups)
    return Error("SetBindGroup", "Bind group index (" + std::to_string(index) +
                                     ") is not less than maxBindGroups (" +
                                     std::to_string(limits.maxBindGroups) + ").");
  if (group && !group->IsValid()) return Error("SetBindGroup", group->Name() + " is invalid.");
  if (group && &group->Device() != &Device())
    return Error("SetBindGroup", ForeignDeviceMessage(*group, Device()));
  // Messages are built only on failure: SetBindGroup runs for every kernel of a training step.
  const auto at = [index] { return " at bind group index " + std::to_string(index); };
  const uint32_t expected = group ? group->Layout()->DynamicCount() : 0;
  if (dynamicOffsetCount != expected)
    return Error("SetBindGroup", "Dynamic offset count (" + std::to_string(dynamicOffsetCount) + ")" +
                                     at() + " does not match the " + std::to_string(expected) +
                                     " dynamic bindings of " +
                                     (group ? group->Layout()->Name() : std::string("no bind group")) + ".");
  if (dynamicOffsetCount > 0 && !dynamicOffsets)
    return Error("SetBindGroup", "dynamicOffsets is null but dynamicOffsetCount is " +
                                     std::to_string(dynamicOffsetCount) + ".");
  // Each dynamic offset: aligned as its binding type asks, and the bound range moved by it
  // still inside the buffer (offset + size <= buffer size held at CreateBindGroup, so the
  // subtraction below cannot wrap).
  std::vector<uint32_t> offsets(dynamicOffsets, dynamicOffsets + dynamicOffsetCount);
  if (group && expected > 0) {
    for (const BoundBuffer& b : group->Buffers()) {
      if (b.dynamicIndex == BoundBuffer::kNotDynamic) continue;
      const uint64_t offset = offsets[b.dynamicIndex];
      const auto which = [&] {
        return "Dynamic offset [" + std::to_string(b.dynamicIndex) + "] (" + std::to_string(offset) +
               ") of " + group->Name() + at() + ", binding " + std::to_string(b.binding) + ",";
      };
      const bool isUniform = b.type == BufferBindingType::Uniform;
      const uint64_t align = isUniform ? limits.minUniformBufferOffsetAlignment
                                       : limits.minStorageBufferOffsetAlignment;
      if (offset % align != 0)
        return Error("SetBindGroup", which() + " is not a multiple of " +
                                         (isUniform ? "minUniformBufferOffsetAlignment ("
                                                    : "minStorageBufferOffsetAlignment (") +
                                         std::to_string(align) + ").");
      if (offset > b.buffer->Size() - b.offset - b.size)
        return Error("SetBindGroup", which() + " moves the bound range (offset " +
                                         std::to_string(b.offset) + ", size " + std::to_string(b.size) +
                                         ") past the end of " + b.buffer->Name() + " (size " +
                                         std::to_string(b.buffer->Size()) + ").");
    }
  }
  if (groups_[index] == group && dynamicOffsets_[index] == offsets) return;
  groups_[index] = group;
  dynamicOffsets_[index] = std::move(offsets);
  dirtyGroups_ |= 1u << index;
  bindingsChecked_ = false;
  if (group) encoder_->KeepAlive(group);
}

bool ComputePassEncoderImpl::ValidateState(const char* command) {
  if (!pipeline_) {
    Error(command, "No pipeline is set.");
    return false;
  }
  if (bindingsChecked_) return true;
  const auto& layouts = pipeline_->Layout()->Groups();
  accesses_.clear();
  auto& all = bound_;
  all.clear();
  for (size_t i = 0; i < layouts.size(); ++i) {
    const auto& group = groups_[i];
    // An empty layout needs no group (a shader that uses only @group(1) has an empty group 0),
    // as in Dawn; a group set there anyway must still be compatible.
    if (!group && layouts[i]->Entries().empty()) continue;
    if (!group) {
      Error(command, "Bind group at index " + std::to_string(i) + " is not set but " +
                         pipeline_->Name() + " uses it.");
      return false;
    }
    if (group->Layout()->CompatibilityKey() != layouts[i]->CompatibilityKey()) {
      Error(command, group->Name() + " at index " + std::to_string(i) + " was created with " +
                         group->Layout()->Name() + ", which is incompatible with " + layouts[i]->Name() +
                         " of " + pipeline_->Name() + ".");
      return false;
    }
    for (const auto& b : group->Buffers()) {
      const uint64_t dynamic = b.dynamicIndex == BoundBuffer::kNotDynamic ? 0 : dynamicOffsets_[i][b.dynamicIndex];
      all.push_back({&b, group.get(), b.offset + dynamic});
    }
  }
  // Bindings the layout left without a minBindingSize must still hold what the shader reads.
  for (const auto& late : pipeline_->LateMinSizes()) {
    const auto& group = groups_[late.group];
    for (const auto& b : group->Buffers()) {
      if (b.binding != late.binding || b.size >= late.size) continue;
      Error(command, group->Name() + " binding " + std::to_string(b.binding) + " size (" +
                         std::to_string(b.size) + ") is smaller than the minimum binding size (" +
                         std::to_string(late.size) + ") that " + pipeline_->Name() + " needs.");
      return false;
    }
  }
  // A writable storage binding may not overlap any other binding of the same buffer, each at
  // the range the dispatch actually binds (its dynamic offset applied).
  for (size_t i = 0; i < all.size(); ++i) {
    for (size_t j = i + 1; j < all.size(); ++j) {
      const BoundBuffer& a = *all[i].binding;
      const BoundBuffer& b = *all[j].binding;
      if (a.buffer != b.buffer) continue;
      if (a.type != BufferBindingType::Storage && b.type != BufferBindingType::Storage) continue;
      const uint64_t aStart = all[i].offset, bStart = all[j].offset;
      if (aStart < bStart + b.size && bStart < aStart + a.size) {
        Error(command, "Writable storage buffer binding aliasing found between " +
                           all[i].group->Name() + " (binding " + std::to_string(a.binding) +
                           ", range " + std::to_string(aStart) + "+" + std::to_string(a.size) +
                           ") and " + all[j].group->Name() + " (binding " + std::to_string(b.binding) +
                           ", range " + std::to_string(bStart) + "+" + std::to_string(b.size) +
                           ") on " + a.buffer->Name() + ".");
        return false;
      }
    }
  }
  // WebGPU's usage scope: a buffer bound as writable storage may not also be bound read-only
  // (read-only storage or uniform) in the same dispatch, whatever the ranges.
  for (size_t i = 0; i < all.size(); ++i) {
    for (size_t j = 0; j < all.size(); ++j) {
      const BoundBuffer& w = *all[i].binding;
      const BoundBuffer& r = *all[j].binding;
      if (w.buffer != r.buffer || w.type != BufferBindingType::Storage ||
          r.type == BufferBindingType::Storage)
        continue;
      Error(command, w.buffer->Name() + " is bound as writable storage by " + all[i].group->Name() +
                         " (binding " + std::to_string(w.binding) + ") and as " +
                         (r.type == BufferBindingType::Uniform ? "uniform" : "read-only storage") +
                         " by " + all[j].group->Name() + " (binding " + std::to_string(r.binding) +
                         ") in one dispatch: a writable usage and another usage of one buffer in "
                         "the same usage scope.");
      return false;
    }
  }
  for (const auto& [b, group, offset] : all) {
    const bool write = b->type == BufferBindingType::Storage;
    VkAccessFlags access = b->type == BufferBindingType::Uniform ? VK_ACCESS_UNIFORM_READ_BIT
                                                                  : VK_ACCESS_SHADER_READ_BIT;
    if (write) access |= VK_ACCESS_SHADER_WRITE_BIT;
    accesses_.push_back({b->buffer.get(), VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, access, write, offset, b->size});
    encoder_->Use(b->buffer.get());
  }
  bindingsChecked_ = true;
  return true;
}

bool ComputePassEncoderImpl::BindAndTrack(BufferImpl* indirect) {
  for (const auto& a : accesses_)
    if (a.buffer->IsDestroyed()) return false;
  if (indirect) {
    accesses_.push_back({indirect, VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                         VK_ACCESS_INDIRECT_COMMAND_READ_BIT, false});
    encoder_->PrepareAccesses(accesses_);
    accesses_.pop_back();
  } else {
    encoder_->PrepareAccesses(accesses_);
  }
  VkCommandBuffer cmd = encoder_->Cmd();
  if (pipelineDirty_) {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_->Vk());
    pipelineDirty_ = false;
  }
  const auto& layouts = pipeline_->Layout()->Groups();
  for (uint32_t i = 0; i < layouts.size(); ++i) {
    if (!(dirtyGroups_ & (1u << i))) continue;
    if (!groups_[i]) continue;  // an empty layout's, left unset: the shader reads nothing there
    VkDescriptorSet set = groups_[i]->Vk();
    const auto& offsets = dynamicOffsets_[i];
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_->Layout()->Vk(), i, 1,
                            &set, static_cast<uint32_t>(offsets.size()), offsets.data());
    dirtyGroups_ &= ~(1u << i);
  }
  return true;
}

void ComputePassEncoderImpl::Dispatch(uint32_t x, uint32_t y, uint32_t z) {
  if (!Check("DispatchWorkgroups")) return;
  const uint32_t limit = Device().GetLimits().maxComputeWorkgroupsPerDimension;
  if (x > limit || y > limit || z > limit)
    return Error("DispatchWorkgroups",
                 "Workgroup count (" + std::to_string(x) + ", " + std::to_string(y) + ", " +
                     std::to_string(z) + ") exceeds maxComputeWorkgroupsPerDimension (" +
                     std::to_string(limit) + ").");
  if (!ValidateState("DispatchWorkgroups")) return;
  if (x == 0 || y == 0 || z == 0) return;  // valid, and nothing to run
  if (!BindAndTrack(nullptr)) return;
  vkCmdDispatch(encoder_->Cmd(), x, y, z);
}

void ComputePassEncoderImpl::DispatchIndirect(const std::shared_ptr<BufferImpl>& buffer,
                                              uint64_t offset) {
  const char* command = "DispatchWorkgroupsIndirect";
  if (!Check(command)) return;
  if (!buffer) return Error(command, "The indirect buffer is null.");
  if (!buffer->IsValid()) return Error(command, buffer->Name() + " is invalid.");
  if (&buffer->Device() != &Device()) return Error(command, ForeignDeviceMessage(*buffer, Device()));
  if (!HasFlag(buffer->Usage(), BufferUsage::Indirect))
    return Error(command, buffer->Name() + " usage (" + ToString(buffer->Usage()) +
                              ") does not include Indirect.");
  if (offset % 4 != 0)
    return Error(command, "Indirect offset (" + std::to_string(offset) + ") is not a multiple of 4.");
  if (offset > buffer->Size() || buffer->Size() - offset < 12)
    return Error(command, "Indirect range (offset " + std::to_string(offset) + ", size 12) does not fit in " +
                              buffer->Name() + " size (" + std::to_string(buffer->Size()) + ").");
  if (!ValidateState(command)) return;
  encoder_->UseOwned(buffer.get());
  if (buffer->IsDestroyed()) return;
  for (const auto& a : accesses_)
    if (a.buffer->IsDestroyed()) return;
  auto [scratch, scratchOffset] = Device().Indirect().Record(*encoder_, *buffer, offset);
  if (!scratch) return Error(command, "Could not allocate the indirect validation buffer.");
  // The validation used its own pipeline: rebind ours.
  pipelineDirty_ = true;
  dirtyGroups_ = ~0u;
  if (!BindAndTrack(scratch)) return;
  vkCmdDispatchIndirect(encoder_->Cmd(), scratch->Vk(), scratchOffset);
}

void ComputePassEncoderImpl::End() {
  if (ended_) return Error("End", Name() + " is already ended.");
  ended_ = true;
  if (endSet_ && !encoder_->HasError()) encoder_->WriteTimestamp(endSet_.get(), endIndex_);
  encoder_->EndPass();
}

}  // namespace wgpu::detail
