// WebGPU's optional features the shim offers (shader-f16, subgroups, timestamp-query): which a
// Vulkan physical device supports, by Dawn's Vulkan rules; which a device descriptor asks for; and
// the Vulkan feature structs and extensions a device needs to run what they allow.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "webgpu/webgpu_cpp.h"

namespace wgpu::detail {

struct FeatureSet {
  bool shaderF16 = false;
  bool subgroups = false;
  bool timestampQuery = false;

  bool Has(FeatureName f) const {
    return (f == FeatureName::ShaderF16 && shaderF16) || (f == FeatureName::Subgroups && subgroups) ||
           (f == FeatureName::TimestampQuery && timestampQuery);
  }
  // The features in FeatureName order, in static storage (a SupportedFeatures may point at it
  // for as long as the program runs).
  std::span<const FeatureName> List() const;
};

// What a physical device supports, and the subgroup sizes AdapterInfo reports.
struct AdapterFeatureSupport {
  FeatureSet features;
  uint32_t subgroupMinSize = 0, subgroupMaxSize = 0;
  // Extensions a Vulkan 1.1 device needs for them (core in 1.2): shader-f16 needs
  // VK_KHR_shader_float16_int8; both together need VK_KHR_shader_subgroup_extended_types.
  bool float16Int8Extension = false, subgroupExtendedTypesExtension = false;
};

// `hasExtension` answers for the device's extensions; `apiVersion` is the version the shim uses.
AdapterFeatureSupport ProbeFeatures(VkPhysicalDevice physical, uint32_t apiVersion,
                                    const std::function<bool(const char*)>& hasExtension);

// Whether the queue family the shim uses can offer timestamp-query: it writes timestamps.
bool ProbeTimestampQuery(const VkQueueFamilyProperties& family);

// The requested features, checked against what the adapter supports: "" or an error naming the
// first one the adapter lacks (a value no FeatureName has is named by its number).
std::string ResolveFeatures(std::span<const FeatureName> requested,
                            const AdapterFeatureSupport& supported, FeatureSet* out);

// The Vulkan feature structs a device with `features` enables, chained behind `next`, and the
// extensions it adds. Lives until vkCreateDevice returns.
class VulkanFeatureChain {
 public:
  VulkanFeatureChain(const FeatureSet& features, const AdapterFeatureSupport& support);
  VulkanFeatureChain(const VulkanFeatureChain&) = delete;
  VulkanFeatureChain& operator=(const VulkanFeatureChain&) = delete;
  // Puts the chain between `f2` and what f2 pointed at, and sets f2's core feature bits.
  void Attach(VkPhysicalDeviceFeatures2& f2);
  const std::vector<const char*>& Extensions() const { return extensions_; }

 private:
  FeatureSet features_;
  VkPhysicalDeviceShaderFloat16Int8Features float16_{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  VkPhysicalDevice16BitStorageFeatures storage16_{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures extendedTypes_{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SUBGROUP_EXTENDED_TYPES_FEATURES};
  std::vector<const char*> extensions_;
};

}  // namespace wgpu::detail
