#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "instance.h"

namespace wgpu {

namespace {

// Limits of the render and texture pipeline, which a compute-only implementation does not use:
// reported at WebGPU's defaults, as Dawn reports them, so that a program requesting the defaults
// (or the adapter's limits) gets its device; above them RequestDevice fails naming the limit.
// Creating a texture, sampler or render pipeline still reports the missing feature.
// Immediates are a feature compute code would use, and the shim lacks it: 0, so that no
// request for it passes.
void UnusedLimitsAtDefaults(Limits* l) {
  l->maxTextureDimension1D = l->maxTextureDimension2D = 8192;
  l->maxTextureDimension3D = 2048;
  l->maxTextureArrayLayers = 256;
  l->maxBindGroupsPlusVertexBuffers = 24;
  l->maxSampledTexturesPerShaderStage = l->maxSamplersPerShaderStage = 16;
  l->maxStorageTexturesPerShaderStage = 4;
  l->maxVertexBuffers = 8;
  l->maxVertexAttributes = 16;
  l->maxVertexBufferArrayStride = 2048;
  l->maxInterStageShaderVariables = 16;
  l->maxColorAttachments = 8;
  l->maxColorAttachmentBytesPerSample = 32;
  l->maxImmediateSize = 0;
}

}  // namespace

Limits DefaultLimits() {
  Limits l;
  UnusedLimitsAtDefaults(&l);
  l.maxBindGroups = 4;
  l.maxBindingsPerBindGroup = 1000;
  l.maxStorageBuffersPerShaderStage = 8;
  l.maxUniformBuffersPerShaderStage = 12;
  l.maxDynamicUniformBuffersPerPipelineLayout = 8;
  l.maxDynamicStorageBuffersPerPipelineLayout = 4;
  l.maxUniformBufferBindingSize = 65536;
  l.maxStorageBufferBindingSize = 134217728;
  l.minUniformBufferOffsetAlignment = 256;
  l.minStorageBufferOffsetAlignment = 256;
  l.maxBufferSize = 268435456;
  l.maxComputeWorkgroupStorageSize = 16384;
  l.maxComputeInvocationsPerWorkgroup = 256;
  l.maxComputeWorkgroupSizeX = 256;
  l.maxComputeWorkgroupSizeY = 256;
  l.maxComputeWorkgroupSizeZ = 64;
  l.maxComputeWorkgroupsPerDimension = 65535;
  return l;
}

}  // namespace wgpu

namespace wgpu::detail {

namespace {

std::string VendorName(uint32_t id) {
  switch (id) {
    case 0x10DE: return "nvidia";
    case 0x1002: return "amd";
    case 0x8086: return "intel";
    case 0x13B5: return "arm";
    case 0x5143: return "qualcomm";
    case 0x10005: return "mesa";
    case 0x1AE0: return "google";  // SwiftShader
    default: return "unknown";
  }
}

// WEBGPU_SHIM_VULKAN_VERSION=1.1 makes the shim treat every device as Vulkan 1.1 (timeline
// semaphores through VK_KHR_timeline_semaphore), so the 1.1 path runs on newer drivers too.
uint32_t MaxVulkanVersion() {
  const char* v = std::getenv("WEBGPU_SHIM_VULKAN_VERSION");
  if (!v || !*v) return UINT32_MAX;
  unsigned major = 0, minor = 0;
  if (std::sscanf(v, "%u.%u", &major, &minor) != 2) return UINT32_MAX;
  return VK_MAKE_API_VERSION(0, major, minor, VK_HEADER_VERSION);
}

}  // namespace

AdapterImpl::AdapterImpl(std::shared_ptr<InstanceImpl> instance, VkPhysicalDevice physical)
    : instance_(std::move(instance)), physical_(physical) {
  VkPhysicalDeviceProperties base;
  vkGetPhysicalDeviceProperties(physical, &base);
  apiVersion_ = std::min(base.apiVersion, MaxVulkanVersion());

  // Core Vulkan 1.1 plus what 1.1 has only as extensions: timeline semaphores (required) and
  // driver properties (for the adapter's names). Nothing else.
  uint32_t extCount = 0;
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &extCount, nullptr);
  std::vector<VkExtensionProperties> exts(extCount);
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &extCount, exts.data());
  auto has = [&](const char* name) {
    return std::any_of(exts.begin(), exts.end(),
                       [&](const auto& e) { return std::strcmp(e.extensionName, name) == 0; });
  };
  const bool core12 = apiVersion_ >= VK_API_VERSION_1_2;
  const bool timelineAvailable = core12 || has(VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
  if (!core12 && timelineAvailable)
    deviceExtensions_.push_back(VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
  const bool driverProperties = core12 || has(VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);

  VkPhysicalDeviceMaintenance3Properties m3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props2.pNext = &m3;
  if (driverProperties) m3.pNext = &driver;
  vkGetPhysicalDeviceProperties2(physical, &props2);
  const VkPhysicalDeviceProperties& p = props2.properties;
  const std::string driverName = driverProperties ? driver.driverName : p.deviceName;
  const std::string driverInfo = driverProperties ? driver.driverInfo : "";

  // The info's strings view text that every copy of the info keeps alive.
  auto strings = std::make_shared<std::array<std::string, 4>>(
      std::array<std::string, 4>{VendorName(p.vendorID), driverName, p.deviceName,
                                 driverName + " " + driverInfo});
  info_.vendor = (*strings)[0];
  info_.architecture = (*strings)[1];
  info_.device = (*strings)[2];
  info_.description = (*strings)[3];
  info_.storage_ = strings;
  info_.vendorID = p.vendorID;
  info_.deviceID = p.deviceID;
  info_.backendType = BackendType::Vulkan;
  switch (p.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: info_.adapterType = AdapterType::DiscreteGPU; break;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: info_.adapterType = AdapterType::IntegratedGPU; break;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: info_.adapterType = AdapterType::CPU; break;
    default: info_.adapterType = AdapterType::Unknown; break;
  }

  // Requirements: Vulkan 1.1, timeline semaphores (core in 1.2, an extension before), a compute
  // queue.
  if (apiVersion_ < VK_API_VERSION_1_1) unusableReason_ = "Vulkan 1.1 is required";
  VkPhysicalDeviceTimelineSemaphoreFeatures timeline{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  if (timelineAvailable) f2.pNext = &timeline;
  vkGetPhysicalDeviceFeatures2(physical, &f2);
  if (unusableReason_.empty() && !timeline.timelineSemaphore)
    unusableReason_ = "timeline semaphores are required (Vulkan 1.2 or VK_KHR_timeline_semaphore)";
  robustBufferAccess_ = f2.features.robustBufferAccess == VK_TRUE;
  features_ = ProbeFeatures(physical, apiVersion_, has);
  info_.subgroupMinSize = features_.subgroupMinSize;
  info_.subgroupMaxSize = features_.subgroupMaxSize;

  uint32_t familyCount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &familyCount, nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &familyCount, families.data());
  bool found = false;
  // Prefer a queue family with graphics too: it is the "universal" queue drivers optimize most.
  for (int pass = 0; pass < 2 && !found; ++pass) {
    for (uint32_t i = 0; i < familyCount; ++i) {
      const auto flags = families[i].queueFlags;
      if (!(flags & VK_QUEUE_COMPUTE_BIT)) continue;
      if (pass == 0 && !(flags & VK_QUEUE_GRAPHICS_BIT)) continue;
      queueFamily_ = i;
      found = true;
      break;
    }
  }
  if (unusableReason_.empty() && !found) unusableReason_ = "no compute queue";
  if (found) features_.features.timestampQuery = ProbeTimestampQuery(families[queueFamily_]);

  VkPhysicalDeviceMemoryProperties mem;
  vkGetPhysicalDeviceMemoryProperties(physical, &mem);
  uint64_t largestHeap = 0;
  for (uint32_t i = 0; i < mem.memoryHeapCount; ++i)
    largestHeap = std::max<uint64_t>(largestHeap, mem.memoryHeaps[i].size);

  const auto& vl = p.limits;
  auto pow2AtLeast4 = [](uint64_t v) { return static_cast<uint32_t>(std::max<uint64_t>(v, 4)); };
  limits_ = DefaultLimits();
  limits_.maxBindGroups = std::min<uint32_t>(vl.maxBoundDescriptorSets, 4);
  limits_.maxBindingsPerBindGroup = 1000;
  limits_.maxStorageBuffersPerShaderStage = std::min<uint32_t>(vl.maxPerStageDescriptorStorageBuffers, 1000);
  limits_.maxUniformBuffersPerShaderStage = std::min<uint32_t>(vl.maxPerStageDescriptorUniformBuffers, 1000);
  limits_.maxDynamicUniformBuffersPerPipelineLayout = std::min<uint32_t>(vl.maxDescriptorSetUniformBuffersDynamic, 1000);
  limits_.maxDynamicStorageBuffersPerPipelineLayout = std::min<uint32_t>(vl.maxDescriptorSetStorageBuffersDynamic, 1000);
  limits_.maxUniformBufferBindingSize = vl.maxUniformBufferRange;
  limits_.maxStorageBufferBindingSize = vl.maxStorageBufferRange & ~uint64_t{3};
  limits_.minUniformBufferOffsetAlignment = pow2AtLeast4(vl.minUniformBufferOffsetAlignment);
  limits_.minStorageBufferOffsetAlignment = pow2AtLeast4(vl.minStorageBufferOffsetAlignment);
  limits_.maxBufferSize = std::min<uint64_t>(m3.maxMemoryAllocationSize, largestHeap);
  limits_.maxComputeWorkgroupStorageSize = vl.maxComputeSharedMemorySize;
  limits_.maxComputeInvocationsPerWorkgroup = vl.maxComputeWorkGroupInvocations;
  limits_.maxComputeWorkgroupSizeX = vl.maxComputeWorkGroupSize[0];
  limits_.maxComputeWorkgroupSizeY = vl.maxComputeWorkGroupSize[1];
  limits_.maxComputeWorkgroupSizeZ = vl.maxComputeWorkGroupSize[2];
  limits_.maxComputeWorkgroupsPerDimension = std::min(
      {vl.maxComputeWorkGroupCount[0], vl.maxComputeWorkGroupCount[1], vl.maxComputeWorkGroupCount[2]});
}

int AdapterImpl::Rank() const {
  switch (info_.adapterType) {
    case AdapterType::DiscreteGPU: return 0;
    case AdapterType::IntegratedGPU: return 1;
    case AdapterType::Unknown: return 2;
    case AdapterType::CPU: return 3;
  }
  return 4;
}

}  // namespace wgpu::detail
