#include "internal_pipeline.h"

#include <memory>
#include <string>
#include <vector>

#include "command_encoder.h"
#include "device.h"
#include "process_exit.h"
#include "vk_check.h"

namespace wgpu::detail {

InternalPipeline::InternalPipeline(DeviceImpl& device, std::span<const uint32_t> spirv,
                                   uint32_t buffers, uint32_t pushBytes)
    : device_(device), buffers_(buffers), pushBytes_(pushBytes) {
  VkDevice vk = device.Vk();
  std::vector<VkDescriptorSetLayoutBinding> bindings(buffers);
  for (uint32_t i = 0; i < buffers; ++i) {
    bindings[i].binding = i;
    bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo setInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  setInfo.bindingCount = buffers;
  setInfo.pBindings = bindings.data();
  // Each object needs the one before it: on a failure the rest stay null, and Dispatch reports
  // the missing pipeline.
  if (vkCreateDescriptorSetLayout(vk, &setInfo, nullptr, &setLayout_) != VK_SUCCESS) return;

  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, pushBytes};
  VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layoutInfo.setLayoutCount = 1;
  layoutInfo.pSetLayouts = &setLayout_;
  layoutInfo.pushConstantRangeCount = 1;
  layoutInfo.pPushConstantRanges = &range;
  if (vkCreatePipelineLayout(vk, &layoutInfo, nullptr, &layout_) != VK_SUCCESS) return;

  VkShaderModuleCreateInfo moduleInfo{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  moduleInfo.codeSize = spirv.size_bytes();
  moduleInfo.pCode = spirv.data();
  if (vkCreateShaderModule(vk, &moduleInfo, nullptr, &module_) != VK_SUCCESS) return;

  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module_;
  info.stage.pName = "main";
  info.layout = layout_;
  if (vkCreateComputePipelines(vk, device.PipelineCache(), 1, &info, nullptr, &pipeline_) !=
      VK_SUCCESS)
    pipeline_ = VK_NULL_HANDLE;
}

InternalPipeline::~InternalPipeline() {
  if (ProcessExiting()) return;
  VkDevice vk = device_.Vk();
  vkDestroyPipeline(vk, pipeline_, nullptr);
  vkDestroyShaderModule(vk, module_, nullptr);
  vkDestroyPipelineLayout(vk, layout_, nullptr);
  vkDestroyDescriptorSetLayout(vk, setLayout_, nullptr);
}

bool InternalPipeline::Dispatch(CommandEncoderImpl& encoder,
                                std::span<const VkDescriptorBufferInfo> buffers, const void* push,
                                uint32_t groups, const char* what) {
  if (!pipeline_) {
    encoder.RecordError(std::string("The ") + what + " pipeline could not be created.");
    return false;
  }
  if (buffers.size() != buffers_) {
    encoder.RecordError(std::string("The ") + what + " pipeline binds " + std::to_string(buffers_) +
                        " buffers, not " + std::to_string(buffers.size()) + ".");
    return false;
  }
  VkDevice vk = device_.Vk();
  const VkDescriptorPoolSize poolSize{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, buffers_};
  VkDescriptorPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  poolInfo.maxSets = 1;
  poolInfo.poolSizeCount = 1;
  poolInfo.pPoolSizes = &poolSize;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  if (VkResult r = vkCreateDescriptorPool(vk, &poolInfo, nullptr, &pool); r != VK_SUCCESS) {
    encoder.RecordError(VkFailure("vkCreateDescriptorPool", r) + " (" + what + ")");
    return false;
  }
  DeviceImpl* device = &device_;  // deferred work must not own the device
  encoder.KeepAlive(std::shared_ptr<void>(nullptr, [device, pool](void*) {
    device->DeferUntilIdle(
        [device, pool] { vkDestroyDescriptorPool(device->Vk(), pool, nullptr); });
  }));
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = pool;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &setLayout_;
  VkDescriptorSet set = VK_NULL_HANDLE;
  if (VkResult r = vkAllocateDescriptorSets(vk, &alloc, &set); r != VK_SUCCESS) {
    encoder.RecordError(VkFailure("vkAllocateDescriptorSets", r) + " (" + what + ")");
    return false;
  }
  std::vector<VkWriteDescriptorSet> writes(buffers_);
  for (uint32_t i = 0; i < buffers_; ++i) {
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = set;
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &buffers[i];
  }
  vkUpdateDescriptorSets(vk, buffers_, writes.data(), 0, nullptr);
  VkCommandBuffer cmd = encoder.Cmd();
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &set, 0, nullptr);
  vkCmdPushConstants(cmd, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, pushBytes_, push);
  vkCmdDispatch(cmd, groups, 1, 1);
  return true;
}

}  // namespace wgpu::detail
