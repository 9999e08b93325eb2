#include "raw_vulkan.h"

#include <cstring>
#include <stdexcept>

namespace {
void Check(VkResult r, const char* what) {
  if (r != VK_SUCCESS) throw std::runtime_error(std::string(what) + " failed: " + std::to_string(r));
}
}  // namespace

RawVulkan::RawVulkan(const std::string& name) {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo ii{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ii.pApplicationInfo = &app;
  Check(vkCreateInstance(&ii, nullptr, &instance_), "vkCreateInstance");
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance_, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  vkEnumeratePhysicalDevices(instance_, &count, devices.data());
  for (int pass = 0; pass < 2 && !physical_; ++pass) {
    for (auto d : devices) {
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(d, &p);
      const bool match = !name.empty() ? std::strstr(p.deviceName, name.c_str()) != nullptr
                                       : (pass == 1 || p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU);
      if (match) {
        physical_ = d;
        deviceName = p.deviceName;
        break;
      }
    }
  }
  if (!physical_) throw std::runtime_error("no Vulkan device matches \"" + name + "\"");
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);
  uint32_t familyCount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &familyCount, nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &familyCount, families.data());
  uint32_t family = 0;
  for (uint32_t i = 0; i < familyCount; ++i)
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) { family = i; break; }
  const float priority = 1;
  VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qi.queueFamilyIndex = family;
  qi.queueCount = 1;
  qi.pQueuePriorities = &priority;
  // Timeline semaphores and host query resets, where the device has them (submit_gaps uses both).
  VkPhysicalDeviceVulkan12Features has12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 has{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  has.pNext = &has12;
  vkGetPhysicalDeviceFeatures2(physical_, &has);
  VkPhysicalDeviceVulkan12Features want12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  want12.timelineSemaphore = has12.timelineSemaphore;
  want12.hostQueryReset = has12.hostQueryReset;
  hasTimelineAndQueryReset = has12.timelineSemaphore && has12.hostQueryReset;
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(physical_, &props);
  timestampPeriodNs = props.limits.timestampPeriod;
  VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  di.pNext = &want12;
  di.queueCreateInfoCount = 1;
  di.pQueueCreateInfos = &qi;
  Check(vkCreateDevice(physical_, &di, nullptr, &device), "vkCreateDevice");
  vkGetDeviceQueue(device, family, 0, &queue_);
  VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pi.queueFamilyIndex = family;
  Check(vkCreateCommandPool(device, &pi, nullptr, &pool_), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = pool_;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  Check(vkAllocateCommandBuffers(device, &ai, &cmd_), "vkAllocateCommandBuffers");
  VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  Check(vkCreateFence(device, &fi, nullptr, &fence_), "vkCreateFence");
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4096};
  VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpi.maxSets = 4096;
  dpi.poolSizeCount = 1;
  dpi.pPoolSizes = &size;
  Check(vkCreateDescriptorPool(device, &dpi, nullptr, &descriptorPool_), "vkCreateDescriptorPool");
}

RawVulkan::~RawVulkan() {
  vkDeviceWaitIdle(device);
  if (pipeline) vkDestroyPipeline(device, pipeline, nullptr);
  if (layout) vkDestroyPipelineLayout(device, layout, nullptr);
  if (module_) vkDestroyShaderModule(device, module_, nullptr);
  if (setLayout_) vkDestroyDescriptorSetLayout(device, setLayout_, nullptr);
  vkDestroyDescriptorPool(device, descriptorPool_, nullptr);
  vkDestroyFence(device, fence_, nullptr);
  vkDestroyCommandPool(device, pool_, nullptr);
  vkDestroyDevice(device, nullptr);
  vkDestroyInstance(instance_, nullptr);
}

uint32_t RawVulkan::MemoryType(uint32_t bits, VkMemoryPropertyFlags flags) const {
  for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i)
    if ((bits & (1u << i)) && (memory_.memoryTypes[i].propertyFlags & flags) == flags) return i;
  throw std::runtime_error("no memory type");
}

RawVulkan::Buffer RawVulkan::CreateBuffer(uint64_t size, VkBufferUsageFlags usage,
                                           VkMemoryPropertyFlags memory) {
  Buffer b;
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = size;
  bi.usage = usage;
  Check(vkCreateBuffer(device, &bi, nullptr, &b.buffer), "vkCreateBuffer");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device, b.buffer, &req);
  VkMemoryAllocateInfo mi{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mi.allocationSize = req.size;
  mi.memoryTypeIndex = MemoryType(req.memoryTypeBits, memory);
  Check(vkAllocateMemory(device, &mi, nullptr, &b.memory), "vkAllocateMemory");
  vkBindBufferMemory(device, b.buffer, b.memory, 0);
  return b;
}

void RawVulkan::DestroyBuffer(Buffer& b) {
  vkDestroyBuffer(device, b.buffer, nullptr);
  vkFreeMemory(device, b.memory, nullptr);
  b = {};
}

void RawVulkan::CreatePipeline(std::span<const uint32_t> spirv) {
  VkDescriptorSetLayoutBinding binding{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo si{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  si.bindingCount = 1;
  si.pBindings = &binding;
  Check(vkCreateDescriptorSetLayout(device, &si, nullptr, &setLayout_), "set layout");
  VkPipelineLayoutCreateInfo li{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  li.setLayoutCount = 1;
  li.pSetLayouts = &setLayout_;
  Check(vkCreatePipelineLayout(device, &li, nullptr, &layout), "pipeline layout");
  VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  mi.codeSize = spirv.size() * 4;
  mi.pCode = spirv.data();
  Check(vkCreateShaderModule(device, &mi, nullptr, &module_), "shader module");
  VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  ci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = module_;
  ci.stage.pName = "main";
  ci.layout = layout;
  Check(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &ci, nullptr, &pipeline), "pipeline");
}

VkDescriptorSet RawVulkan::CreateSet(const Buffer& b, uint64_t size) {
  VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  ai.descriptorPool = descriptorPool_;
  ai.descriptorSetCount = 1;
  ai.pSetLayouts = &setLayout_;
  VkDescriptorSet set;
  Check(vkAllocateDescriptorSets(device, &ai, &set), "descriptor set");
  VkDescriptorBufferInfo info{b.buffer, 0, size};
  VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  w.dstSet = set;
  w.descriptorCount = 1;
  w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  w.pBufferInfo = &info;
  vkUpdateDescriptorSets(device, 1, &w, 0, nullptr);
  return set;
}

VkCommandBuffer RawVulkan::Begin() {
  vkResetCommandBuffer(cmd_, 0);
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vkBeginCommandBuffer(cmd_, &bi);
  return cmd_;
}

void RawVulkan::SubmitAndWait(VkCommandBuffer cmd) {
  vkEndCommandBuffer(cmd);
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd;
  Check(vkQueueSubmit(queue_, 1, &si, fence_), "vkQueueSubmit");
  Check(vkWaitForFences(device, 1, &fence_, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  vkResetFences(device, 1, &fence_);
}
