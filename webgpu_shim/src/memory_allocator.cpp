#include "memory_allocator.h"

#include <webgpu/webgpu_cpp.h>

#include <algorithm>
#include <atomic>

#include "process_exit.h"

namespace wgpu {
namespace detail {
namespace {
std::atomic<uint64_t> bufferMemoryInUse{0};
}  // namespace
}  // namespace detail

uint64_t GetBufferMemoryInUseForTesting() { return detail::bufferMemoryInUse.load(); }

}  // namespace wgpu

namespace wgpu::detail {

struct MemoryBlock {
  Allocation memory;                     // the block's own allocation
  uint32_t memoryType = 0;
  std::map<uint64_t, uint64_t> free;     // offset → size of each free range, never adjacent
  uint64_t used = 0;
};

MemoryAllocator::MemoryAllocator(VkDevice device, const VkPhysicalDeviceMemoryProperties& properties)
    : device_(device), properties_(properties), heapUsed_(properties.memoryHeapCount, 0) {}

MemoryAllocator::~MemoryAllocator() {
  if (ProcessExiting()) return;
  for (auto& block : blocks_) FreeMemory(block->memory);
}

VkResult MemoryAllocator::AllocateMemory(uint64_t size, uint32_t memoryType, Allocation* out) {
  const uint32_t heap = properties_.memoryTypes[memoryType].heapIndex;
  if (heapUsed_[heap] + size > properties_.memoryHeaps[heap].size) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  VkMemoryAllocateInfo info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  info.allocationSize = size;
  info.memoryTypeIndex = memoryType;
  *out = Allocation{};
  if (VkResult r = vkAllocateMemory(device_, &info, nullptr, &out->memory); r != VK_SUCCESS) {
    out->memory = VK_NULL_HANDLE;
    return r;
  }
  if (properties_.memoryTypes[memoryType].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
    void* p = nullptr;
    if (VkResult r = vkMapMemory(device_, out->memory, 0, VK_WHOLE_SIZE, 0, &p); r != VK_SUCCESS) {
      vkFreeMemory(device_, out->memory, nullptr);
      out->memory = VK_NULL_HANDLE;
      return r;
    }
    out->mapped = static_cast<uint8_t*>(p);
  }
  out->heap = heap;
  out->size = size;
  heapUsed_[heap] += size;
  return VK_SUCCESS;
}

void MemoryAllocator::FreeMemory(const Allocation& allocation) {
  vkFreeMemory(device_, allocation.memory, nullptr);
  heapUsed_[allocation.heap] -= allocation.size;
}

VkResult MemoryAllocator::Allocate(const VkMemoryRequirements& requirements, uint32_t memoryType,
                                   bool shared, Allocation* out) {
  const uint64_t size = requirements.size;
  const VkResult r = shared && size <= kMaxSharedSize ? AllocateInBlock(requirements, memoryType, out)
                                                      : AllocateMemory(size, memoryType, out);
  if (r == VK_SUCCESS) bufferMemoryInUse += size;
  return r;
}

VkResult MemoryAllocator::AllocateInBlock(const VkMemoryRequirements& requirements,
                                          uint32_t memoryType, Allocation* out) {
  const uint64_t size = requirements.size;
  const uint64_t alignment = std::max<uint64_t>(requirements.alignment, 1);
  auto place = [&](MemoryBlock& block) {
    for (auto it = block.free.begin(); it != block.free.end(); ++it) {
      const auto [start, length] = *it;
      const uint64_t offset = (start + alignment - 1) / alignment * alignment;
      if (offset + size > start + length) continue;
      block.free.erase(it);
      if (offset > start) block.free.emplace(start, offset - start);
      if (offset + size < start + length) block.free.emplace(offset + size, start + length - offset - size);
      block.used += size;
      *out = block.memory;
      out->offset = offset;
      out->size = size;
      if (out->mapped) out->mapped += offset;
      out->block = &block;
      return true;
    }
    return false;
  };
  for (auto& block : blocks_) {
    if (block->memoryType == memoryType && place(*block)) return VK_SUCCESS;
  }
  uint64_t blockSize = kFirstBlockSize;
  for (const auto& b : blocks_) {
    if (b->memoryType == memoryType) blockSize = std::max(blockSize, std::min(kMaxBlockSize, 2 * b->memory.size));
  }
  auto block = std::make_unique<MemoryBlock>();
  block->memoryType = memoryType;
  if (VkResult r = AllocateMemory(blockSize, memoryType, &block->memory); r != VK_SUCCESS) {
    // No room for a whole block: the buffer may still fit on its own.
    return AllocateMemory(size, memoryType, out);
  }
  block->free.emplace(0, blockSize);
  place(*block);
  blocks_.push_back(std::move(block));
  return VK_SUCCESS;
}

void MemoryAllocator::Free(const Allocation& allocation) {
  bufferMemoryInUse -= allocation.size;
  MemoryBlock* block = allocation.block;
  if (!block) return FreeMemory(allocation);
  uint64_t start = allocation.offset, length = allocation.size;
  auto next = block->free.lower_bound(start);
  if (next != block->free.end() && next->first == start + length) {
    length += next->second;
    next = block->free.erase(next);
  }
  if (next != block->free.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      length += prev->second;
      block->free.erase(prev);
    }
  }
  block->free.emplace(start, length);
  block->used -= allocation.size;
  // Empty blocks go back to the driver, but one per memory type is kept so that a buffer
  // created and destroyed in a loop does not allocate a block each time.
  if (block->used != 0) return;
  const bool another = std::any_of(blocks_.begin(), blocks_.end(), [&](const auto& b) {
    return b.get() != block && b->memoryType == block->memoryType && b->used == 0;
  });
  if (another) {
    FreeMemory(block->memory);
    std::erase_if(blocks_, [&](const auto& b) { return b.get() == block; });
  }
}

}  // namespace wgpu::detail
