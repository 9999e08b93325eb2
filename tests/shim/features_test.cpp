// WebGPU's optional features shader-f16, subgroups and timestamp-query: what the adapter reports
// against what the Vulkan driver itself says (queried here with our own Vulkan instance), what a
// device enables, and what its WGSL modules may use; the C API's view of both.
#include <vulkan/vulkan.h>
#include <webgpu/webgpu.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <span>

#include "feature_test.h"

namespace shim_test {
namespace {

// The driver's own answers for the physical device named `name`, by WebGPU's (Dawn's) rules.
struct DriverFeatures {
  bool found = false;
  bool f16 = false, subgroups = false, timestamps = false;
  uint32_t minSize = 0, maxSize = 0;
};

DriverFeatures QueryDriver(std::string_view name) {
  DriverFeatures out;
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ci.pApplicationInfo = &app;
  VkInstance vk = VK_NULL_HANDLE;
  if (vkCreateInstance(&ci, nullptr, &vk) != VK_SUCCESS) return out;
  uint32_t n = 0;
  vkEnumeratePhysicalDevices(vk, &n, nullptr);
  std::vector<VkPhysicalDevice> devices(n);
  vkEnumeratePhysicalDevices(vk, &n, devices.data());
  for (VkPhysicalDevice d : devices) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(d, &p);
    if (name != p.deviceName || p.apiVersion < VK_API_VERSION_1_2)
      continue;  // lavapipe, SwiftShader: 1.3
    VkPhysicalDeviceShaderFloat16Int8Features f16{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
    VkPhysicalDevice16BitStorageFeatures s16{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES, &f16};
    VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures ext{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SUBGROUP_EXTENDED_TYPES_FEATURES, &s16};
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &ext};
    vkGetPhysicalDeviceFeatures2(d, &f2);
    VkPhysicalDeviceSubgroupSizeControlProperties sizes{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
    VkPhysicalDeviceSubgroupProperties sub{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES,
                                           p.apiVersion >= VK_API_VERSION_1_3 ? &sizes : nullptr};
    VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &sub};
    vkGetPhysicalDeviceProperties2(d, &p2);
    out.found = true;
    // Timestamps on the queue family the shim picks (graphics and compute, else compute), in
    // nanoseconds.
    uint32_t familyCount = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(d, &familyCount, nullptr);
    std::vector<VkQueueFamilyProperties> families(familyCount);
    vkGetPhysicalDeviceQueueFamilyProperties(d, &familyCount, families.data());
    const VkQueueFamilyProperties* family = nullptr;
    const VkQueueFlags graphicsAndCompute = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
    for (const VkQueueFlags want : {graphicsAndCompute, VkQueueFlags{VK_QUEUE_COMPUTE_BIT}})
      for (const auto& f : families)
        if (!family && (f.queueFlags & want) == want) family = &f;
    out.timestamps = family && family->timestampValidBits > 0;  // any period: resolves convert
    out.f16 = f16.shaderFloat16 && f2.features.shaderInt16 && s16.storageBuffer16BitAccess &&
              s16.uniformAndStorageBuffer16BitAccess;
    out.minSize = p.apiVersion >= VK_API_VERSION_1_3 ? sizes.minSubgroupSize : sub.subgroupSize;
    out.maxSize = p.apiVersion >= VK_API_VERSION_1_3 ? sizes.maxSubgroupSize : sub.subgroupSize;
    const VkSubgroupFeatureFlags ops =
        VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_VOTE_BIT |
        VK_SUBGROUP_FEATURE_ARITHMETIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT |
        VK_SUBGROUP_FEATURE_SHUFFLE_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT |
        VK_SUBGROUP_FEATURE_QUAD_BIT;
    out.subgroups = (sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                    (sub.supportedOperations & ops) == ops && out.minSize >= 4 &&
                    out.maxSize <= 128 && (!out.f16 || ext.shaderSubgroupExtendedTypes);
    break;
  }
  vkDestroyInstance(vk, nullptr);
  return out;
}

using Features = FeatureTest;

const char* kF16Module = R"(enable f16;
@group(0) @binding(0) var<storage, read_write> b : array<f16>;
@compute @workgroup_size(1) fn main() { b[0] = b[1] + 1.0h; }
)";

const char* kSubgroupModule = R"(enable subgroups;
@group(0) @binding(0) var<storage, read_write> b : array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) i : u32) {
  b[i] = subgroupAdd(i);
}
)";

TEST_F(Features, AdapterReportsWhatTheDriverSupports) {
  wgpu::AdapterInfo adapterInfo;
  adapter.GetInfo(&adapterInfo);
  const DriverFeatures driver = QueryDriver(std::string_view(adapterInfo.device));
  if (!driver.found) GTEST_SKIP() << "the adapter's Vulkan 1.2+ device was not found again";
  EXPECT_EQ(adapter.HasFeature(wgpu::FeatureName::ShaderF16), driver.f16);
  EXPECT_EQ(adapter.HasFeature(wgpu::FeatureName::Subgroups), driver.subgroups);
  EXPECT_EQ(adapter.HasFeature(wgpu::FeatureName::TimestampQuery), driver.timestamps);
  wgpu::SupportedFeatures listed;
  adapter.GetFeatures(&listed);
  std::vector<wgpu::FeatureName> expected;
  if (driver.timestamps) expected.push_back(wgpu::FeatureName::TimestampQuery);
  if (driver.f16) expected.push_back(wgpu::FeatureName::ShaderF16);
  if (driver.subgroups) expected.push_back(wgpu::FeatureName::Subgroups);
  EXPECT_EQ(std::vector<wgpu::FeatureName>(listed.features, listed.features + listed.featureCount),
            expected);
  wgpu::AdapterInfo info;
  ASSERT_EQ(adapter.GetInfo(&info), wgpu::Status::Success);
  EXPECT_EQ(info.subgroupMinSize, driver.minSize);
  EXPECT_EQ(info.subgroupMaxSize, driver.maxSize);
}

TEST_F(Features, DeviceHasWhatItRequested) {
  // The fixture's device asked for nothing.
  EXPECT_FALSE(device.HasFeature(wgpu::FeatureName::ShaderF16));
  EXPECT_FALSE(device.HasFeature(wgpu::FeatureName::Subgroups));
  wgpu::SupportedFeatures none;
  device.GetFeatures(&none);
  EXPECT_EQ(none.featureCount, 0u);
  const std::map<wgpu::FeatureName, std::string> spelled = {
      {wgpu::FeatureName::ShaderF16, "ShaderF16 (shader-f16)"},
      {wgpu::FeatureName::Subgroups, "Subgroups (subgroups)"},
      {wgpu::FeatureName::TimestampQuery, "TimestampQuery (timestamp-query)"}};
  for (const auto& [f, name] : spelled) {
    SCOPED_TRACE(name);
    std::string why;
    wgpu::Device d = DeviceWith({f}, &why);
    if (!adapter.HasFeature(f)) {  // requesting an unsupported feature fails, naming it
      EXPECT_FALSE(d);
      EXPECT_NE(why.find(name), std::string::npos) << why;
      EXPECT_NE(why.find("is not supported by this adapter"), std::string::npos) << why;
      continue;
    }
    ASSERT_TRUE(d) << why;
    for (const auto& [other, unused] : spelled) EXPECT_EQ(d.HasFeature(other), other == f);
    wgpu::SupportedFeatures list;
    d.GetFeatures(&list);
    ASSERT_EQ(list.featureCount, 1u);
    EXPECT_EQ(list.features[0], f);
  }
  std::string why;
  EXPECT_FALSE(DeviceWith({wgpu::FeatureName::DepthClipControl}, &why));
  EXPECT_NE(why.find("Required feature 2 (FeatureName) is not supported by this adapter"),
            std::string::npos)
      << why;
}

// The blob cache keys a module's SPIR-V by the features it was translated with: a device without
// shader-f16 sharing the cache must not get what a device with it stored.
TEST_F(Features, CachedTranslationsAreKeptApartByFeatures) {
  if (!adapter.HasFeature(wgpu::FeatureName::ShaderF16)) GTEST_SKIP() << "no shader-f16";
  struct Entries {
    std::mutex mutex;
    std::map<std::string, std::string> map;
  };
  auto entries = std::make_shared<Entries>();
  wgpu::DawnCacheDeviceDescriptor cache{{.isolationKey = "features "}};
  cache.SetLoadCacheDataCallback([entries](std::span<const std::byte> key,
                                           std::span<std::byte> value) {
    std::lock_guard lock(entries->mutex);
    auto it = entries->map.find(std::string(reinterpret_cast<const char*>(key.data()), key.size()));
    if (it == entries->map.end()) return size_t{0};
    if (!value.empty())
      std::memcpy(value.data(), it->second.data(), std::min(value.size(), it->second.size()));
    return it->second.size();
  });
  cache.SetStoreCacheDataCallback(
      [entries](std::span<const std::byte> key, std::span<const std::byte> value) {
        std::lock_guard lock(entries->mutex);
        entries->map[std::string(reinterpret_cast<const char*>(key.data()), key.size())] =
            std::string(reinterpret_cast<const char*>(value.data()), value.size());
      });
  const auto spirvEntries = [&] {
    std::lock_guard lock(entries->mutex);
    return std::count_if(entries->map.begin(), entries->map.end(), [](const auto& e) {
      return e.first.find("wgsl-spirv-") != std::string::npos;
    });
  };
  wgpu::Device with = DeviceWith({wgpu::FeatureName::ShaderF16}, nullptr, &cache);
  ASSERT_TRUE(with);
  EXPECT_EQ(ModuleError(with, kF16Module), "");
  EXPECT_EQ(spirvEntries(), 1);
  wgpu::Device again = DeviceWith({wgpu::FeatureName::ShaderF16}, nullptr, &cache);
  EXPECT_EQ(ModuleError(again, kF16Module), "");
  EXPECT_EQ(spirvEntries(), 1);  // the same entry
  wgpu::Device without = DeviceWith({}, nullptr, &cache);
  ASSERT_TRUE(without);
  const std::string e = ModuleError(without, kF16Module);
  EXPECT_NE(e.find("f16 requires the shader-f16 feature"), std::string::npos) << e;
}

TEST_F(Features, ModulesNeedTheFeatureOnTheirDevice) {
  // The fixture's device has neither feature: `enable` is an error at the extension's name.
  std::string e = ModuleError(device, kF16Module);
  EXPECT_NE(e.find("1:8: f16 requires the shader-f16 feature"), std::string::npos) << e;
  e = ModuleError(device, kSubgroupModule);
  EXPECT_NE(e.find("1:8: subgroups requires the subgroups feature"), std::string::npos) << e;
  // A device with one feature still rejects the other's modules, and takes its own.
  if (adapter.HasFeature(wgpu::FeatureName::ShaderF16)) {
    wgpu::Device d = DeviceWith({wgpu::FeatureName::ShaderF16});
    ASSERT_TRUE(d);
    EXPECT_EQ(ModuleError(d, kF16Module), "");
    e = ModuleError(d, kSubgroupModule);
    EXPECT_NE(e.find("subgroups requires the subgroups feature"), std::string::npos) << e;
  }
  if (adapter.HasFeature(wgpu::FeatureName::Subgroups)) {
    wgpu::Device d = DeviceWith({wgpu::FeatureName::Subgroups});
    ASSERT_TRUE(d);
    EXPECT_EQ(ModuleError(d, kSubgroupModule), "");
    e = ModuleError(d, kF16Module);
    EXPECT_NE(e.find("f16 requires the shader-f16 feature"), std::string::npos) << e;
    // Subgroup operations need (subgroup-)uniform control flow.
    e = ModuleError(d, R"(enable subgroups;
@group(0) @binding(0) var<storage, read_write> b : array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) i : u32) {
  if (b[i] > 0u) { b[i] = subgroupMax(i); }
}
)");
    EXPECT_NE(e.find("4:27: 'subgroupMax' must only be called from uniform control flow"),
              std::string::npos)
        << e;
  }
}

// The C API, on its own instance: lists in memory wgpuSupportedFeaturesFreeMembers frees.
TEST(FeaturesCApi, ListsAndFreesFeatures) {
  WGPUInstance instance = wgpuCreateInstance(nullptr);
  ASSERT_NE(instance, nullptr);
  WGPUAdapter adapter = RequestAdapterC(instance);
  ASSERT_NE(adapter, nullptr);
  WGPUSupportedFeatures list = WGPU_SUPPORTED_FEATURES_INIT;
  wgpuAdapterGetFeatures(adapter, &list);
  std::vector<WGPUFeatureName> listed(list.features, list.features + list.featureCount);
  wgpuSupportedFeaturesFreeMembers(list);
  for (const WGPUFeatureName f :
       {WGPUFeatureName_ShaderF16, WGPUFeatureName_Subgroups, WGPUFeatureName_TimestampQuery})
    EXPECT_EQ(wgpuAdapterHasFeature(adapter, f) != 0,
              std::find(listed.begin(), listed.end(), f) != listed.end());
  for (const WGPUFeatureName f : listed) {
    EXPECT_TRUE(f == WGPUFeatureName_ShaderF16 || f == WGPUFeatureName_Subgroups ||
                f == WGPUFeatureName_TimestampQuery)
        << f;
    WGPUDevice device = RequestDeviceC(adapter, {f});
    ASSERT_NE(device, nullptr);
    WGPUSupportedFeatures onDevice = WGPU_SUPPORTED_FEATURES_INIT;
    wgpuDeviceGetFeatures(device, &onDevice);
    ASSERT_EQ(onDevice.featureCount, 1u);
    EXPECT_EQ(onDevice.features[0], f);
    EXPECT_TRUE(wgpuDeviceHasFeature(device, f));
    wgpuSupportedFeaturesFreeMembers(onDevice);
    wgpuDeviceRelease(device);
  }
  wgpuAdapterRelease(adapter);
  wgpuInstanceRelease(instance);
}

}  // namespace
}  // namespace shim_test
