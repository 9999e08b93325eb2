#include "indirect_validation.h"

#include "buffer.h"
#include "command_encoder.h"
#include "device.h"
#include "indirect_validation.spv.h"  // generated at build time from shaders/indirect_validation.comp
#include "process_exit.h"
#include "vk_check.h"

namespace wgpu::detail {

namespace {
struct PushConstants {
  uint32_t srcWord;
  uint32_t maxCount;
};
}  // namespace

IndirectValidator::IndirectValidator(DeviceImpl& device) : device_(device) {
  VkDevice vk = device.Vk();
  VkDescriptorSetLayoutBinding bindings[2] = {};
  for (uint32_t i = 0; i < 2; ++i) {
    bindings[i].binding = i;
    bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo setInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  setInfo.bindingCount = 2;
  setInfo.pBindings = bindings;
  vkCreateDescriptorSetLayout(vk, &setInfo, nullptr, &setLayout_);

  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(PushConstants)};
  VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layoutInfo.setLayoutCount = 1;
  layoutInfo.pSetLayouts = &setLayout_;
  layoutInfo.pushConstantRangeCount = 1;
  layoutInfo.pPushConstantRanges = &range;
  vkCreatePipelineLayout(vk, &layoutInfo, nullptr, &layout_);

  VkShaderModuleCreateInfo moduleInfo{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  moduleInfo.codeSize = sizeof(kIndirectValidationSpv);
  moduleInfo.pCode = kIndirectValidationSpv;
  vkCreateShaderModule(vk, &moduleInfo, nullptr, &module_);

  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module_;
  info.stage.pName = "main";
  info.layout = layout_;
  vkCreateComputePipelines(vk, device.PipelineCache(), 1, &info, nullptr, &pipeline_);
}

IndirectValidator::~IndirectValidator() {
  if (ProcessExiting()) return;
  VkDevice vk = device_.Vk();
  vkDestroyPipeline(vk, pipeline_, nullptr);
  vkDestroyShaderModule(vk, module_, nullptr);
  vkDestroyPipelineLayout(vk, layout_, nullptr);
  vkDestroyDescriptorSetLayout(vk, setLayout_, nullptr);
}

std::pair<BufferImpl*, uint64_t> IndirectValidator::Record(CommandEncoderImpl& encoder,
                                                           BufferImpl& indirect, uint64_t offset) {
  BufferImpl* scratch = encoder.IndirectScratch();
  if (!scratch || !scratch->IsValid() || !pipeline_) return {nullptr, 0};
  const CommandEncoderImpl::Access accesses[] = {
      {&indirect, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT, false},
      {scratch, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, true}};
  encoder.PrepareAccesses(accesses);

  // Bind the user's buffer from an aligned offset so any offset works.
  const uint64_t align = device_.GetLimits().minStorageBufferOffsetAlignment;
  const uint64_t base = offset / align * align;
  // A descriptor set of its own per validation (a plain set: push descriptors are not core
  // Vulkan 1.1, and indirect dispatches are few), freed once the commands have run.
  VkDevice vk = device_.Vk();
  const VkDescriptorPoolSize poolSize{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2};
  VkDescriptorPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  poolInfo.maxSets = 1;
  poolInfo.poolSizeCount = 1;
  poolInfo.pPoolSizes = &poolSize;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  if (VkResult r = vkCreateDescriptorPool(vk, &poolInfo, nullptr, &pool); r != VK_SUCCESS) {
    encoder.RecordError(VkFailure("vkCreateDescriptorPool", r) + " (indirect dispatch validation)");
    return {nullptr, 0};
  }
  DeviceImpl* device = &device_;  // deferred work must not own the device
  encoder.KeepAlive(std::shared_ptr<void>(nullptr, [device, pool](void*) {
    device->DeferUntilIdle([device, pool] { vkDestroyDescriptorPool(device->Vk(), pool, nullptr); });
  }));
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = pool;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &setLayout_;
  VkDescriptorSet set = VK_NULL_HANDLE;
  if (VkResult r = vkAllocateDescriptorSets(vk, &alloc, &set); r != VK_SUCCESS) {
    encoder.RecordError(VkFailure("vkAllocateDescriptorSets", r) + " (indirect dispatch validation)");
    return {nullptr, 0};
  }
  VkDescriptorBufferInfo infos[2] = {{indirect.Vk(), base, offset - base + 12},
                                     {scratch->Vk(), 0, 16}};
  VkWriteDescriptorSet writes[2] = {};
  for (uint32_t i = 0; i < 2; ++i) {
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = set;
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  vkUpdateDescriptorSets(vk, 2, writes, 0, nullptr);
  VkCommandBuffer cmd = encoder.Cmd();
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &set, 0, nullptr);
  const PushConstants pc{static_cast<uint32_t>((offset - base) / 4),
                         device_.GetLimits().maxComputeWorkgroupsPerDimension};
  vkCmdPushConstants(cmd, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(pc), &pc);
  vkCmdDispatch(cmd, 1, 1, 1);
  return {scratch, 0};
}

}  // namespace wgpu::detail
