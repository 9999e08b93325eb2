#include "binding.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>

#include "buffer.h"
#include "descriptor_arrays.h"
#include "device.h"
#include "process_exit.h"
#include "vk_check.h"

namespace wgpu::detail {

namespace {

const char* TypeName(BufferBindingType t) {
  switch (t) {
    case BufferBindingType::Uniform: return "Uniform";
    case BufferBindingType::Storage: return "Storage";
    case BufferBindingType::ReadOnlyStorage: return "ReadOnlyStorage";
    case BufferBindingType::BindingNotUsed: return "BindingNotUsed";
    case BufferBindingType::Undefined: return "Undefined";
  }
  return "?";
}

VkDescriptorType VulkanType(BufferBindingType t, bool dynamic) {
  if (t == BufferBindingType::Uniform)
    return dynamic ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
  return dynamic ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

// The dynamic-offset limits a layout (one bind group's, or a pipeline's sum of them) must meet.
std::string DynamicLimitError(const char* verb, uint32_t uniform, uint32_t storage, const Limits& limits) {
  if (uniform > limits.maxDynamicUniformBuffersPerPipelineLayout)
    return std::string(verb) + " " + std::to_string(uniform) +
           " uniform buffers with hasDynamicOffset, over maxDynamicUniformBuffersPerPipelineLayout (" +
           std::to_string(limits.maxDynamicUniformBuffersPerPipelineLayout) + ").";
  if (storage > limits.maxDynamicStorageBuffersPerPipelineLayout)
    return std::string(verb) + " " + std::to_string(storage) +
           " storage buffers with hasDynamicOffset, over maxDynamicStorageBuffersPerPipelineLayout (" +
           std::to_string(limits.maxDynamicStorageBuffersPerPipelineLayout) + ").";
  return {};
}

// Explicit layouts with equal entries are group-equivalent: they share a compatibility key.
uint64_t KeyForEntries(const std::vector<BindGroupLayoutEntry>& entries) {
  static std::mutex mutex;
  static std::map<std::string, uint64_t> keys;
  std::string text;
  for (const auto& e : entries)
    text += std::to_string(e.binding) + ":" + std::to_string(static_cast<uint64_t>(e.visibility)) +
            ":" + TypeName(e.buffer.type) + ":" + std::to_string(e.buffer.minBindingSize) +
            (e.buffer.hasDynamicOffset ? ":dynamic;" : ";");
  std::lock_guard lock(mutex);
  auto [it, inserted] = keys.emplace(text, keys.size() + 1);
  return it->second;
}

std::atomic<uint64_t> nextAutoKey{uint64_t{1} << 62};

}  // namespace

// ---- BindGroupLayout ----

BindGroupLayoutImpl::BindGroupLayoutImpl(const std::shared_ptr<DeviceImpl>& device,
                                         std::string_view label)
    : ObjectBase(device, "BindGroupLayout", label) {}

BindGroupLayoutImpl::~BindGroupLayoutImpl() {
  if (layout_ && !ProcessExiting()) vkDestroyDescriptorSetLayout(Device().Vk(), layout_, nullptr);
}

const BindGroupLayoutEntry* BindGroupLayoutImpl::Find(uint32_t binding) const {
  for (const auto& e : entries_)
    if (e.binding == binding) return &e;
  return nullptr;
}

std::shared_ptr<BindGroupLayoutImpl> BindGroupLayoutImpl::Create(
    const std::shared_ptr<DeviceImpl>& device, const BindGroupLayoutDescriptor& desc,
    bool fromAutoLayout) {
  auto layout = std::make_shared<BindGroupLayoutImpl>(device, desc.label);
  const Limits& limits = device->GetLimits();
  std::string error;
  std::vector<BindGroupLayoutEntry> entries;
  if (auto given = DescriptorArray(desc.entries, desc.entryCount, "entries", "entryCount", &error))
    entries.assign(given->begin(), given->end());
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.binding < b.binding; });
  uint32_t storage = 0, uniform = 0, dynamicStorage = 0, dynamicUniform = 0;
  for (size_t i = 0; i < entries.size() && error.empty(); ++i) {
    auto& e = entries[i];
    const std::string which = "entry (binding " + std::to_string(e.binding) + ")";
    // The layout keeps its own copy; nothing of the caller's chain survives the call.
    e.nextInChain = nullptr;
    e.buffer.nextInChain = nullptr;
    if (e.buffer.type == BufferBindingType::Undefined) e.buffer.type = BufferBindingType::Uniform;
    if (i > 0 && entries[i - 1].binding == e.binding) {
      error = "binding " + std::to_string(e.binding) + " appears more than once.";
    } else if (e.binding >= limits.maxBindingsPerBindGroup) {
      error = which + " exceeds maxBindingsPerBindGroup (" +
              std::to_string(limits.maxBindingsPerBindGroup) + ").";
    } else if (e.bindingArraySize > 1) {
      error = which + " has bindingArraySize " + std::to_string(e.bindingArraySize) +
              ", but buffer bindings cannot be arrays.";
    } else if (e.buffer.type == BufferBindingType::BindingNotUsed) {
      error = which + " has no binding type (only buffer bindings are supported).";
    } else if (e.buffer.type == BufferBindingType::Storage &&
               HasFlag(e.visibility, ShaderStage::Vertex)) {
      error = which + " is a writable storage buffer visible to the vertex stage.";
    }
    const bool isUniform = e.buffer.type == BufferBindingType::Uniform;
    ++(isUniform ? uniform : storage);
    if (e.buffer.hasDynamicOffset) ++(isUniform ? dynamicUniform : dynamicStorage);
  }
  if (error.empty()) error = DynamicLimitError("has", dynamicUniform, dynamicStorage, limits);
  if (error.empty() && storage > limits.maxStorageBuffersPerShaderStage)
    error = "has " + std::to_string(storage) + " storage buffers, over maxStorageBuffersPerShaderStage (" +
            std::to_string(limits.maxStorageBuffersPerShaderStage) + ").";
  if (error.empty() && uniform > limits.maxUniformBuffersPerShaderStage)
    error = "has " + std::to_string(uniform) + " uniform buffers, over maxUniformBuffersPerShaderStage (" +
            std::to_string(limits.maxUniformBuffersPerShaderStage) + ").";
  if (!error.empty()) {
    layout->MarkInvalid();
    device->HandleError(ErrorType::Validation, layout->Name() + " " + error +
                                                   "\n - While calling [Device].CreateBindGroupLayout.");
    return layout;
  }
  layout->entries_ = std::move(entries);
  layout->dynamicUniforms_ = dynamicUniform;
  layout->dynamicStorages_ = dynamicStorage;
  layout->key_ = fromAutoLayout ? nextAutoKey.fetch_add(1) : KeyForEntries(layout->entries_);

  std::vector<VkDescriptorSetLayoutBinding> bindings;
  for (const auto& e : layout->entries_) {
    VkDescriptorSetLayoutBinding b{};
    b.binding = e.binding;
    b.descriptorType = VulkanType(e.buffer.type, e.buffer.hasDynamicOffset);
    b.descriptorCount = 1;
    b.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    bindings.push_back(b);
  }
  VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  info.bindingCount = static_cast<uint32_t>(bindings.size());
  info.pBindings = bindings.data();
  if (VkResult r = vkCreateDescriptorSetLayout(device->Vk(), &info, nullptr, &layout->layout_);
      r != VK_SUCCESS) {
    layout->layout_ = VK_NULL_HANDLE;
    layout->MarkInvalid();
    device->HandleError(IsOutOfMemory(r) ? ErrorType::OutOfMemory : ErrorType::Internal,
                        layout->Name() + " " + VkFailure("vkCreateDescriptorSetLayout", r));
  }
  return layout;
}

// ---- PipelineLayout ----

PipelineLayoutImpl::PipelineLayoutImpl(const std::shared_ptr<DeviceImpl>& device,
                                       std::string_view label)
    : ObjectBase(device, "PipelineLayout", label) {}

PipelineLayoutImpl::~PipelineLayoutImpl() {
  if (layout_ && !ProcessExiting()) vkDestroyPipelineLayout(Device().Vk(), layout_, nullptr);
}

std::shared_ptr<PipelineLayoutImpl> PipelineLayoutImpl::Create(
    const std::shared_ptr<DeviceImpl>& device, std::string_view label,
    std::vector<std::shared_ptr<BindGroupLayoutImpl>> groups, std::string error) {
  auto layout = std::make_shared<PipelineLayoutImpl>(device, label);
  const Limits& limits = device->GetLimits();
  uint32_t storage = 0, uniform = 0, dynamicStorage = 0, dynamicUniform = 0;
  if (error.empty() && groups.size() > limits.maxBindGroups)
    error = "has " + std::to_string(groups.size()) + " bind group layouts, over maxBindGroups (" +
            std::to_string(limits.maxBindGroups) + ").";
  for (size_t i = 0; i < groups.size() && error.empty(); ++i) {
    if (!groups[i])
      groups[i] = BindGroupLayoutImpl::Create(device, BindGroupLayoutDescriptor{}, false);
    if (!groups[i]->IsValid()) {
      error = "bindGroupLayouts[" + std::to_string(i) + "] " + groups[i]->Name() + " is invalid.";
      break;
    }
    if (groups[i]->DevicePtr() != device) {
      error = "bindGroupLayouts[" + std::to_string(i) + "] " + ForeignDeviceMessage(*groups[i], *device);
      break;
    }
    for (const auto& e : groups[i]->Entries())
      (e.buffer.type == BufferBindingType::Uniform ? uniform : storage)++;
    dynamicUniform += groups[i]->DynamicUniformCount();
    dynamicStorage += groups[i]->DynamicStorageCount();
  }
  if (error.empty()) error = DynamicLimitError("uses", dynamicUniform, dynamicStorage, limits);
  if (error.empty() && storage > limits.maxStorageBuffersPerShaderStage)
    error = "uses " + std::to_string(storage) + " storage buffers, over maxStorageBuffersPerShaderStage (" +
            std::to_string(limits.maxStorageBuffersPerShaderStage) + ").";
  if (error.empty() && uniform > limits.maxUniformBuffersPerShaderStage)
    error = "uses " + std::to_string(uniform) + " uniform buffers, over maxUniformBuffersPerShaderStage (" +
            std::to_string(limits.maxUniformBuffersPerShaderStage) + ").";
  if (!error.empty()) {
    layout->MarkInvalid();
    device->HandleError(ErrorType::Validation, layout->Name() + " " + error +
                                                   "\n - While calling [Device].CreatePipelineLayout.");
    return layout;
  }
  layout->groups_ = std::move(groups);
  std::vector<VkDescriptorSetLayout> sets;
  for (const auto& g : layout->groups_) sets.push_back(g->Vk());
  VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  info.setLayoutCount = static_cast<uint32_t>(sets.size());
  info.pSetLayouts = sets.data();
  if (VkResult r = vkCreatePipelineLayout(device->Vk(), &info, nullptr, &layout->layout_);
      r != VK_SUCCESS) {
    layout->layout_ = VK_NULL_HANDLE;
    layout->MarkInvalid();
    device->HandleError(IsOutOfMemory(r) ? ErrorType::OutOfMemory : ErrorType::Internal,
                        layout->Name() + " " + VkFailure("vkCreatePipelineLayout", r));
  }
  return layout;
}

// ---- BindGroup ----

BindGroupImpl::BindGroupImpl(const std::shared_ptr<DeviceImpl>& device, std::string_view label)
    : ObjectBase(device, "BindGroup", label) {}

BindGroupImpl::~BindGroupImpl() {
  if (pool_) {
    // Command buffers in flight may still use the descriptor set.
    DeviceImpl* device = device_.get();  // deferred work must not own the device
    VkDescriptorPool pool = pool_;
    device->DeferUntilIdle([device, pool] { vkDestroyDescriptorPool(device->Vk(), pool, nullptr); });
  }
}

std::shared_ptr<BindGroupImpl> BindGroupImpl::Create(const std::shared_ptr<DeviceImpl>& device,
                                                     const BindGroupDescriptor& desc) {
  auto group = std::make_shared<BindGroupImpl>(device, desc.label);
  const Limits& limits = device->GetLimits();
  auto fail = [&](const std::string& message) {
    group->MarkInvalid();
    device->HandleError(ErrorType::Validation,
                        group->Name() + " " + message + "\n - While calling [Device].CreateBindGroup.");
    return group;
  };
  auto layout = desc.layout.Get();
  if (!layout) return fail("has no layout.");
  if (!layout->IsValid()) return fail("uses " + layout->Name() + ", which is invalid.");
  if (layout->DevicePtr() != device) return fail("uses " + ForeignDeviceMessage(*layout, *device));
  std::string arrayError;
  const auto entries =
      DescriptorArray(desc.entries, desc.entryCount, "entries", "entryCount", &arrayError);
  if (!entries) return fail(arrayError);
  if (entries->size() != layout->Entries().size())
    return fail("has " + std::to_string(entries->size()) + " entries but " + layout->Name() +
                " has " + std::to_string(layout->Entries().size()) + ".");

  std::vector<BoundBuffer> bound;
  for (const auto& entry : *entries) {
    const std::string which = "entry (binding " + std::to_string(entry.binding) + ")";
    const BindGroupLayoutEntry* le = layout->Find(entry.binding);
    if (!le) return fail(which + " has no matching entry in " + layout->Name() + ".");
    for (const auto& b : bound)
      if (b.binding == entry.binding) return fail(which + " appears more than once.");
    auto buffer = entry.buffer.Get();
    if (!buffer) return fail(which + " has no buffer.");
    if (!buffer->IsValid()) return fail(which + " uses " + buffer->Name() + ", which is invalid.");
    if (buffer->DevicePtr() != device) return fail(which + " uses " + ForeignDeviceMessage(*buffer, *device));
    const uint64_t bufferSize = buffer->Size();
    if (entry.offset > bufferSize)
      return fail(which + " offset (" + std::to_string(entry.offset) + ") is larger than " +
                  buffer->Name() + " size (" + std::to_string(bufferSize) + ").");
    const uint64_t size = entry.size == kWholeSize ? bufferSize - entry.offset : entry.size;
    if (size == 0) return fail(which + " binds zero bytes of " + buffer->Name() + ".");
    if (size > bufferSize - entry.offset)
      return fail(which + " range (offset " + std::to_string(entry.offset) + ", size " +
                  std::to_string(size) + ") goes past the end of " + buffer->Name() + " (size " +
                  std::to_string(bufferSize) + ").");
    const bool isUniform = le->buffer.type == BufferBindingType::Uniform;
    const BufferUsage needed = isUniform ? BufferUsage::Uniform : BufferUsage::Storage;
    if (!HasFlag(buffer->Usage(), needed))
      return fail(which + " is a " + TypeName(le->buffer.type) + " binding but " + buffer->Name() +
                  " usage (" + ToString(buffer->Usage()) + ") lacks " + ToString(needed) + ".");
    const uint64_t align = isUniform ? limits.minUniformBufferOffsetAlignment
                                     : limits.minStorageBufferOffsetAlignment;
    if (entry.offset % align != 0)
      return fail(which + " offset (" + std::to_string(entry.offset) + ") is not a multiple of " +
                  (isUniform ? "minUniformBufferOffsetAlignment (" : "minStorageBufferOffsetAlignment (") +
                  std::to_string(align) + ").");
    const uint64_t maxSize = isUniform ? limits.maxUniformBufferBindingSize : limits.maxStorageBufferBindingSize;
    if (size > maxSize)
      return fail(which + " size (" + std::to_string(size) + ") exceeds " +
                  (isUniform ? "maxUniformBufferBindingSize (" : "maxStorageBufferBindingSize (") +
                  std::to_string(maxSize) + ").");
    if (!isUniform && size % 4 != 0)
      return fail(which + " size (" + std::to_string(size) + ") of a storage binding is not a multiple of 4.");
    if (size < le->buffer.minBindingSize)
      return fail(which + " size (" + std::to_string(size) + ") is below the layout's minBindingSize (" +
                  std::to_string(le->buffer.minBindingSize) + ").");
    bound.push_back({buffer, entry.offset, size, le->buffer.type, entry.binding});
  }
  // Binding order, so that the dynamic bindings take SetBindGroup's offsets in order.
  std::sort(bound.begin(), bound.end(), [](const auto& a, const auto& b) { return a.binding < b.binding; });
  uint32_t dynamicCount = 0;
  for (auto& b : bound)
    if (layout->Find(b.binding)->buffer.hasDynamicOffset) b.dynamicIndex = dynamicCount++;

  // One small pool per group: groups are created once and live long in tensorgrad's use.
  std::vector<VkDescriptorPoolSize> sizes;
  for (const auto& b : bound) {
    const VkDescriptorType type = VulkanType(b.type, b.dynamicIndex != BoundBuffer::kNotDynamic);
    auto same = std::find_if(sizes.begin(), sizes.end(), [&](const auto& s) { return s.type == type; });
    if (same == sizes.end()) sizes.push_back({type, 1}); else ++same->descriptorCount;
  }
  VkDescriptorPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  poolInfo.maxSets = 1;
  poolInfo.poolSizeCount = static_cast<uint32_t>(sizes.size());
  poolInfo.pPoolSizes = sizes.data();
  VkResult r = vkCreateDescriptorPool(device->Vk(), &poolInfo, nullptr, &group->pool_);
  if (r == VK_SUCCESS) {
    VkDescriptorSetLayout setLayout = layout->Vk();
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = group->pool_;
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &setLayout;
    r = vkAllocateDescriptorSets(device->Vk(), &alloc, &group->set_);
  } else {
    group->pool_ = VK_NULL_HANDLE;
  }
  if (r != VK_SUCCESS) {
    group->MarkInvalid();
    device->HandleError(IsOutOfMemory(r) ? ErrorType::OutOfMemory : ErrorType::Internal,
                        group->Name() + " " + VkFailure("vkAllocateDescriptorSets", r));
    return group;
  }
  std::vector<VkDescriptorBufferInfo> infos(bound.size());
  std::vector<VkWriteDescriptorSet> writes(bound.size());
  for (size_t i = 0; i < bound.size(); ++i) {
    infos[i] = {bound[i].buffer->Vk(), bound[i].offset, bound[i].size};
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = group->set_;
    writes[i].dstBinding = bound[i].binding;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VulkanType(bound[i].type, bound[i].dynamicIndex != BoundBuffer::kNotDynamic);
    writes[i].pBufferInfo = &infos[i];
  }
  vkUpdateDescriptorSets(device->Vk(), static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
  group->layout_ = std::move(layout);
  group->buffers_ = std::move(bound);
  return group;
}

}  // namespace wgpu::detail
