// The Vulkan instance, adapter discovery and adapter facts (info, limits).
#pragma once

#include <webgpu/webgpu_cpp.h>
#include <vulkan/vulkan.h>

#include <atomic>
#include <memory>
#include <vector>

#include "device_features.h"
#include "events.h"

namespace wgpu::detail {

class AdapterImpl;

class InstanceImpl : public std::enable_shared_from_this<InstanceImpl> {
 public:
  explicit InstanceImpl(const InstanceDescriptor& descriptor);
  ~InstanceImpl();
  InstanceImpl(const InstanceImpl&) = delete;
  InstanceImpl& operator=(const InstanceImpl&) = delete;

  // Adapters the options allow, best first; an error message when there are none.
  std::vector<std::shared_ptr<AdapterImpl>> Adapters(const RequestAdapterOptions& options,
                                                     std::string* whyNone);
  VkInstance Handle() const { return instance_; }
  bool ValidationEnabled() const { return validation_; }
  EventManager& Events() { return events_; }
  uint64_t ValidationMessageCount() const { return validationMessages_.load(); }
  std::string CreationError() const { return creationError_; }

 private:
  static VKAPI_ATTR VkBool32 VKAPI_CALL OnValidationMessage(
      VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
      const VkDebugUtilsMessengerCallbackDataEXT* data, void* user);

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  bool validation_ = false;
  std::atomic<uint64_t> validationMessages_{0};
  std::string creationError_;
  std::string driverFile_;  // InstanceDescriptor::vulkanDriverFile
  std::vector<VkPhysicalDevice> physical_;  // discovered once, in default order
  bool enumerated_ = false;
  EventManager events_;
};

class AdapterImpl {
 public:
  AdapterImpl(std::shared_ptr<InstanceImpl> instance, VkPhysicalDevice physical);

  // Whether this physical device can back a WebGPU device here (Vulkan 1.1, timeline semaphores,
  // a compute queue).
  bool Usable() const { return unusableReason_.empty(); }
  const std::string& UnusableReason() const { return unusableReason_; }
  const AdapterInfo& Info() const { return info_; }
  std::string DeviceName() const { return std::string(std::string_view(info_.device)); }
  const Limits& SupportedLimits() const { return limits_; }
  VkPhysicalDevice Physical() const { return physical_; }
  uint32_t ComputeQueueFamily() const { return queueFamily_; }
  bool RobustBufferAccess() const { return robustBufferAccess_; }
  // The optional features it supports (shader-f16, subgroups) and what enabling them needs.
  const AdapterFeatureSupport& Features() const { return features_; }
  // The Vulkan version the shim uses the device at, and the device extensions that needs.
  uint32_t ApiVersion() const { return apiVersion_; }
  const std::vector<const char*>& DeviceExtensions() const { return deviceExtensions_; }
  const std::shared_ptr<InstanceImpl>& Instance() const { return instance_; }
  // Rank for the default order: discrete, integrated, virtual, CPU.
  int Rank() const;

 private:
  std::shared_ptr<InstanceImpl> instance_;
  VkPhysicalDevice physical_;
  AdapterInfo info_;
  Limits limits_;
  uint32_t queueFamily_ = 0;
  uint32_t apiVersion_ = 0;
  std::vector<const char*> deviceExtensions_;
  bool robustBufferAccess_ = false;
  AdapterFeatureSupport features_;
  std::string unusableReason_;
};

}  // namespace wgpu::detail
