#include "device_features.h"

#include <algorithm>
#include <array>

namespace wgpu::detail {

namespace {

// Dawn's bounds on reported subgroup sizes (some drivers report 1); outside them: no subgroups.
constexpr uint32_t kMinSubgroupSize = 4, kMaxSubgroupSize = 128;

std::string FeatureSpelling(FeatureName f) {
  switch (f) {
    case FeatureName::ShaderF16:
      return "ShaderF16 (shader-f16)";
    case FeatureName::Subgroups:
      return "Subgroups (subgroups)";
    case FeatureName::TimestampQuery:
      return "TimestampQuery (timestamp-query)";
    default:
      return std::to_string(static_cast<uint32_t>(f)) + " (FeatureName)";
  }
}

}  // namespace

std::span<const FeatureName> FeatureSet::List() const {
  // Every subset's list, made once: bit 0 timestamp-query, bit 1 shader-f16, bit 2 subgroups.
  static const auto lists = [] {
    std::array<std::vector<FeatureName>, 8> l;
    for (size_t m = 0; m < l.size(); ++m) {
      if (m & 1) l[m].push_back(FeatureName::TimestampQuery);
      if (m & 2) l[m].push_back(FeatureName::ShaderF16);
      if (m & 4) l[m].push_back(FeatureName::Subgroups);
    }
    return l;
  }();
  return lists[(timestampQuery ? 1 : 0) | (shaderF16 ? 2 : 0) | (subgroups ? 4 : 0)];
}

bool ProbeTimestampQuery(const VkQueueFamilyProperties& family) {
  // Any period will do: where a tick is not a nanosecond, ResolveQuerySet converts the resolved
  // values (timestamp_conversion.h). The family's valid bits are what count
  // (timestampComputeAndGraphics only promises them for every family).
  return family.timestampValidBits > 0;
}

AdapterFeatureSupport ProbeFeatures(VkPhysicalDevice physical, uint32_t apiVersion,
                                    const std::function<bool(const char*)>& hasExtension) {
  AdapterFeatureSupport s;
  if (apiVersion < VK_API_VERSION_1_1) return s;
  const bool core12 = apiVersion >= VK_API_VERSION_1_2;
  const bool core13 = apiVersion >= VK_API_VERSION_1_3;
  const bool float16Int8 = core12 || hasExtension(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  const bool extendedTypes =
      core12 || hasExtension(VK_KHR_SHADER_SUBGROUP_EXTENDED_TYPES_EXTENSION_NAME);
  const bool sizeControl = core13 || hasExtension(VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);

  // Features: a struct is chained only when the device knows it.
  VkPhysicalDeviceShaderFloat16Int8Features float16{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  VkPhysicalDevice16BitStorageFeatures storage16{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};  // core in 1.1
  VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures extended{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SUBGROUP_EXTENDED_TYPES_FEATURES};
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f2.pNext = &storage16;
  void** tail = &storage16.pNext;
  if (float16Int8) {
    *tail = &float16;
    tail = &float16.pNext;
  }
  if (extendedTypes) *tail = &extended;
  vkGetPhysicalDeviceFeatures2(physical, &f2);

  VkPhysicalDeviceSubgroupProperties subgroup{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceSubgroupSizeControlProperties sizes{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
  if (sizeControl) subgroup.pNext = &sizes;
  VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  p2.pNext = &subgroup;
  vkGetPhysicalDeviceProperties2(physical, &p2);

  // shader-f16 as Dawn asks of Vulkan: f16 arithmetic, 16-bit integers, f16 in storage buffers,
  // and, since the shim does not decompose uniform buffers, in uniform buffers too.
  s.features.shaderF16 = float16Int8 && float16.shaderFloat16 && f2.features.shaderInt16 &&
                         storage16.storageBuffer16BitAccess &&
                         storage16.uniformAndStorageBuffer16BitAccess;
  s.float16Int8Extension = s.features.shaderF16 && !core12;

  // The SPIR-V the shim makes is 1.3 and no pipeline allows varying sizes, so a compute shader's
  // SubgroupSize is the device's `subgroupSize`; with size control the driver may still run
  // other sizes in [min, max], which AdapterInfo reports as Dawn does.
  s.subgroupMinSize = sizeControl ? sizes.minSubgroupSize : subgroup.subgroupSize;
  s.subgroupMaxSize = sizeControl ? sizes.maxSubgroupSize : subgroup.subgroupSize;
  constexpr VkSubgroupFeatureFlags kOps =
      VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_VOTE_BIT |
      VK_SUBGROUP_FEATURE_ARITHMETIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT |
      VK_SUBGROUP_FEATURE_SHUFFLE_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT |
      VK_SUBGROUP_FEATURE_QUAD_BIT;
  // Dawn also asks for the fragment stage; the shim runs compute only.
  const bool ops = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                   (subgroup.supportedOperations & kOps) == kOps;
  const bool sizesOk = s.subgroupMinSize >= kMinSubgroupSize &&
                       s.subgroupMaxSize <= kMaxSubgroupSize &&
                       s.subgroupMinSize <= s.subgroupMaxSize;
  // With shader-f16, subgroup operations must take f16 too (Dawn's rule).
  const bool f16Ok =
      !s.features.shaderF16 || (extendedTypes && extended.shaderSubgroupExtendedTypes);
  s.features.subgroups = ops && sizesOk && f16Ok;
  s.subgroupExtendedTypesExtension = s.features.shaderF16 && s.features.subgroups && !core12;
  return s;
}

std::string ResolveFeatures(std::span<const FeatureName> requested,
                            const AdapterFeatureSupport& supported, FeatureSet* out) {
  *out = FeatureSet{};
  for (const FeatureName f : requested) {
    if (!supported.features.Has(f))
      return "Required feature " + FeatureSpelling(f) + " is not supported by this adapter.";
    if (f == FeatureName::ShaderF16) out->shaderF16 = true;
    if (f == FeatureName::Subgroups) out->subgroups = true;
    if (f == FeatureName::TimestampQuery) out->timestampQuery = true;
  }
  return "";
}

VulkanFeatureChain::VulkanFeatureChain(const FeatureSet& features,
                                       const AdapterFeatureSupport& support)
    : features_(features) {
  if (features.shaderF16 && support.float16Int8Extension)
    extensions_.push_back(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  if (features.shaderF16 && features.subgroups && support.subgroupExtendedTypesExtension)
    extensions_.push_back(VK_KHR_SHADER_SUBGROUP_EXTENDED_TYPES_EXTENSION_NAME);
}

void VulkanFeatureChain::Attach(VkPhysicalDeviceFeatures2& f2) {
  void* rest = f2.pNext;
  void** tail = &f2.pNext;
  if (features_.shaderF16) {
    f2.features.shaderInt16 = VK_TRUE;
    float16_.shaderFloat16 = VK_TRUE;
    storage16_.storageBuffer16BitAccess = VK_TRUE;
    storage16_.uniformAndStorageBuffer16BitAccess = VK_TRUE;
    *tail = &float16_;
    float16_.pNext = &storage16_;
    tail = &storage16_.pNext;
    if (features_.subgroups) {
      extendedTypes_.shaderSubgroupExtendedTypes = VK_TRUE;
      *tail = &extendedTypes_;
      tail = &extendedTypes_.pNext;
    }
  }
  // Subgroup operations are core Vulkan 1.1: nothing to enable.
  *tail = rest;
}

}  // namespace wgpu::detail
