// Small helpers for Vulkan results.
#pragma once

#include <vulkan/vulkan.h>

#include <string>

namespace wgpu::detail {

const char* VkResultName(VkResult result);

inline bool IsOutOfMemory(VkResult r) {
  return r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY;
}

inline std::string VkFailure(const char* call, VkResult r) {
  return std::string(call) + " failed: " + VkResultName(r);
}

}  // namespace wgpu::detail
