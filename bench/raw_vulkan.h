// A minimal hand-written Vulkan compute setup: the baseline the shim is measured against.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

class RawVulkan {
 public:
  // Picks the physical device whose name contains `name` (empty: the first discrete GPU, else the first).
  explicit RawVulkan(const std::string& name);
  ~RawVulkan();
  RawVulkan(const RawVulkan&) = delete;
  RawVulkan& operator=(const RawVulkan&) = delete;

  struct Buffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
  };
  Buffer CreateBuffer(uint64_t size, VkBufferUsageFlags usage,
                      VkMemoryPropertyFlags memory = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  void DestroyBuffer(Buffer& b);
  // A pipeline over one storage-buffer binding, and a descriptor set per buffer.
  void CreatePipeline(std::span<const uint32_t> spirv);
  VkDescriptorSet CreateSet(const Buffer& b, uint64_t size);

  VkCommandBuffer Begin();
  void SubmitAndWait(VkCommandBuffer cmd);

  VkQueue Queue() const { return queue_; }
  VkCommandPool Pool() const { return pool_; }

  VkDevice device = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  std::string deviceName;
  bool hasTimelineAndQueryReset = false;
  float timestampPeriodNs = 1;

 private:
  uint32_t MemoryType(uint32_t bits, VkMemoryPropertyFlags flags) const;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout setLayout_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptorPool_ = VK_NULL_HANDLE;
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memory_{};
};
