// Device memory for buffers. Small GPU-side buffers share blocks of up to 64 MiB — one
// vkAllocateMemory per block instead of one per buffer: allocations are slow on discrete drivers
// (the transformer sample's ~310 buffers took 42–54 ms on an H100 with one allocation each).
// Large buffers, and host-visible ones, keep memory of their own.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace wgpu::detail {

struct MemoryBlock;

struct Allocation {
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint64_t offset = 0;        // within `memory`
  uint64_t size = 0;
  uint32_t heap = 0;
  uint8_t* mapped = nullptr;  // persistently mapped (at `offset`) when the memory is host-visible
  MemoryBlock* block = nullptr;  // the shared block, or null for memory of its own
};

class MemoryAllocator {
 public:
  // Buffers up to this size are placed in shared blocks. A memory type's first block is
  // kFirstBlockSize and each further one twice the last, up to kMaxBlockSize: a small model does
  // not pay for touching 64 MiB (a cold MLP compile on lavapipe took 152–166 ms with 64 MiB
  // first blocks, 130–135 ms with 4 MiB), a large one still makes few allocations.
  static constexpr uint64_t kMaxSharedSize = 4ull << 20;
  static constexpr uint64_t kFirstBlockSize = 4ull << 20;
  static constexpr uint64_t kMaxBlockSize = 64ull << 20;

  MemoryAllocator(VkDevice device, const VkPhysicalDeviceMemoryProperties& properties);
  ~MemoryAllocator();
  MemoryAllocator(const MemoryAllocator&) = delete;
  MemoryAllocator& operator=(const MemoryAllocator&) = delete;

  // `shared`: the buffer may live in a shared block (when small enough).
  // VK_ERROR_OUT_OF_DEVICE_MEMORY when the memory type's heap would be over-committed: the
  // driver may crash or thrash rather than fail cleanly.
  VkResult Allocate(const VkMemoryRequirements& requirements, uint32_t memoryType, bool shared,
                    Allocation* out);
  void Free(const Allocation& allocation);

 private:
  VkResult AllocateInBlock(const VkMemoryRequirements& requirements, uint32_t memoryType,
                           Allocation* out);
  VkResult AllocateMemory(uint64_t size, uint32_t memoryType, Allocation* out);
  void FreeMemory(const Allocation& allocation);

  VkDevice device_;
  VkPhysicalDeviceMemoryProperties properties_;
  std::vector<uint64_t> heapUsed_;
  std::vector<std::unique_ptr<MemoryBlock>> blocks_;
};

}  // namespace wgpu::detail
