// Bind group layouts, pipeline layouts and bind groups.
#pragma once

#include <webgpu/webgpu_cpp.h>
#include <vulkan/vulkan.h>

#include <memory>
#include <string>
#include <vector>

#include "object.h"

namespace wgpu::detail {

class BufferImpl;

class BindGroupLayoutImpl : public ObjectBase {
 public:
  // Validates `desc`; an invalid result is still returned (and the error reported).
  static std::shared_ptr<BindGroupLayoutImpl> Create(const std::shared_ptr<DeviceImpl>& device,
                                                     const BindGroupLayoutDescriptor& desc,
                                                     bool fromAutoLayout);
  BindGroupLayoutImpl(const std::shared_ptr<DeviceImpl>& device, std::string_view label);
  ~BindGroupLayoutImpl() override;

  const std::vector<BindGroupLayoutEntry>& Entries() const { return entries_; }  // sorted
  const BindGroupLayoutEntry* Find(uint32_t binding) const;
  // Entries with hasDynamicOffset, as uniform / storage counts (the pipeline layout limits).
  uint32_t DynamicUniformCount() const { return dynamicUniforms_; }
  uint32_t DynamicStorageCount() const { return dynamicStorages_; }
  uint32_t DynamicCount() const { return dynamicUniforms_ + dynamicStorages_; }
  // Layouts are group-equivalent when their keys match. Explicit layouts share a key when their
  // entries are equal; each auto layout has a key of its own (WebGPU forbids mixing them).
  uint64_t CompatibilityKey() const { return key_; }
  VkDescriptorSetLayout Vk() const { return layout_; }

 private:
  std::vector<BindGroupLayoutEntry> entries_;
  uint32_t dynamicUniforms_ = 0;
  uint32_t dynamicStorages_ = 0;
  uint64_t key_ = 0;
  VkDescriptorSetLayout layout_ = VK_NULL_HANDLE;
};

class PipelineLayoutImpl : public ObjectBase {
 public:
  // `error`: a descriptor error the caller already found (the layout is then invalid).
  static std::shared_ptr<PipelineLayoutImpl> Create(
      const std::shared_ptr<DeviceImpl>& device, std::string_view label,
      std::vector<std::shared_ptr<BindGroupLayoutImpl>> groups, std::string error = {});
  PipelineLayoutImpl(const std::shared_ptr<DeviceImpl>& device, std::string_view label);
  ~PipelineLayoutImpl() override;

  const std::vector<std::shared_ptr<BindGroupLayoutImpl>>& Groups() const { return groups_; }
  VkPipelineLayout Vk() const { return layout_; }

 private:
  std::vector<std::shared_ptr<BindGroupLayoutImpl>> groups_;  // empty groups are empty layouts
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
};

// One resolved buffer binding, kept for barrier tracking and aliasing checks.
struct BoundBuffer {
  std::shared_ptr<BufferImpl> buffer;
  uint64_t offset = 0;
  uint64_t size = 0;
  BufferBindingType type = BufferBindingType::Uniform;
  uint32_t binding = 0;
  // Index of this binding's offset in SetBindGroup's dynamicOffsets (bindings in increasing
  // number order, as WebGPU and Vulkan both order them); kNotDynamic for a fixed binding.
  static constexpr uint32_t kNotDynamic = ~0u;
  uint32_t dynamicIndex = kNotDynamic;
};

class BindGroupImpl : public ObjectBase {
 public:
  static std::shared_ptr<BindGroupImpl> Create(const std::shared_ptr<DeviceImpl>& device,
                                               const BindGroupDescriptor& desc);
  BindGroupImpl(const std::shared_ptr<DeviceImpl>& device, std::string_view label);
  ~BindGroupImpl() override;

  const std::shared_ptr<BindGroupLayoutImpl>& Layout() const { return layout_; }
  const std::vector<BoundBuffer>& Buffers() const { return buffers_; }  // binding order
  VkDescriptorSet Vk() const { return set_; }

 private:
  std::shared_ptr<BindGroupLayoutImpl> layout_;
  std::vector<BoundBuffer> buffers_;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
};

}  // namespace wgpu::detail
