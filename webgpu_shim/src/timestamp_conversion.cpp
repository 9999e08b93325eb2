#include "timestamp_conversion.h"

#include <cmath>
#include <cstdlib>

#include "buffer.h"
#include "command_encoder.h"
#include "device.h"
#include "process_exit.h"
#include "timestamp_to_ns.spv.h"  // generated at build time from shaders/timestamp_to_ns.comp
#include "vk_check.h"

namespace wgpu::detail {

namespace {
struct PushConstants {
  uint32_t first;
  uint32_t count;
  uint32_t scale;
};
}  // namespace

uint32_t AssumedTimestampScale(float timestampPeriod) {
  double period = timestampPeriod;
  if (const char* v = std::getenv("WEBGPU_SHIM_TIMESTAMP_PERIOD")) {
    char* end = nullptr;
    const double assumed = std::strtod(v, &end);
    if (end != v && assumed > 0) period = assumed;
  }
  const double scale = std::round(period * kNsTimestampScale);
  if (!(scale >= 1)) return kNsTimestampScale;  // a driver reporting 0 (or NaN): assume ns
  return scale >= 4294967295.0 ? UINT32_MAX : static_cast<uint32_t>(scale);
}

TimestampConverter::TimestampConverter(DeviceImpl& device) : device_(device) {
  VkDevice vk = device.Vk();
  VkDescriptorSetLayoutBinding binding{};
  binding.binding = 0;
  binding.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  binding.descriptorCount = 1;
  binding.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  VkDescriptorSetLayoutCreateInfo setInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  setInfo.bindingCount = 1;
  setInfo.pBindings = &binding;
  vkCreateDescriptorSetLayout(vk, &setInfo, nullptr, &setLayout_);

  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(PushConstants)};
  VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layoutInfo.setLayoutCount = 1;
  layoutInfo.pSetLayouts = &setLayout_;
  layoutInfo.pushConstantRangeCount = 1;
  layoutInfo.pPushConstantRanges = &range;
  vkCreatePipelineLayout(vk, &layoutInfo, nullptr, &layout_);

  VkShaderModuleCreateInfo moduleInfo{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  moduleInfo.codeSize = sizeof(kTimestampToNsSpv);
  moduleInfo.pCode = kTimestampToNsSpv;
  vkCreateShaderModule(vk, &moduleInfo, nullptr, &module_);

  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module_;
  info.stage.pName = "main";
  info.layout = layout_;
  vkCreateComputePipelines(vk, device.PipelineCache(), 1, &info, nullptr, &pipeline_);
}

TimestampConverter::~TimestampConverter() {
  if (ProcessExiting()) return;
  VkDevice vk = device_.Vk();
  vkDestroyPipeline(vk, pipeline_, nullptr);
  vkDestroyShaderModule(vk, module_, nullptr);
  vkDestroyPipelineLayout(vk, layout_, nullptr);
  vkDestroyDescriptorSetLayout(vk, setLayout_, nullptr);
}

void TimestampConverter::Record(CommandEncoderImpl& encoder, BufferImpl& buffer, uint64_t offset,
                                uint32_t count) {
  if (!pipeline_) {
    encoder.RecordError("The timestamp conversion pipeline could not be created.");
    return;
  }
  const uint64_t size = uint64_t{count} * sizeof(uint64_t);
  // The resolve's copies wrote the range: the tracker puts a barrier before the shader, and
  // records its writes for whatever reads the range next.
  const CommandEncoderImpl::Access accesses[] = {
      {&buffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
       VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, true, offset, size}};
  encoder.PrepareAccesses(accesses);

  // Bind the buffer from an aligned offset so any offset works.
  const uint64_t align = device_.GetLimits().minStorageBufferOffsetAlignment;
  const uint64_t base = offset / align * align;
  // A descriptor set of its own per resolve (resolves are few), freed once the commands have run.
  VkDevice vk = device_.Vk();
  const VkDescriptorPoolSize poolSize{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1};
  VkDescriptorPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  poolInfo.maxSets = 1;
  poolInfo.poolSizeCount = 1;
  poolInfo.pPoolSizes = &poolSize;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  if (VkResult r = vkCreateDescriptorPool(vk, &poolInfo, nullptr, &pool); r != VK_SUCCESS) {
    encoder.RecordError(VkFailure("vkCreateDescriptorPool", r) + " (timestamp conversion)");
    return;
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
    encoder.RecordError(VkFailure("vkAllocateDescriptorSets", r) + " (timestamp conversion)");
    return;
  }
  const VkDescriptorBufferInfo bufferInfo{buffer.Vk(), base, offset - base + size};
  VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  write.dstSet = set;
  write.dstBinding = 0;
  write.descriptorCount = 1;
  write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  write.pBufferInfo = &bufferInfo;
  vkUpdateDescriptorSets(vk, 1, &write, 0, nullptr);
  VkCommandBuffer cmd = encoder.Cmd();
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &set, 0, nullptr);
  const PushConstants pc{static_cast<uint32_t>((offset - base) / 4), count,
                         device_.TimestampScale()};
  vkCmdPushConstants(cmd, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(pc), &pc);
  vkCmdDispatch(cmd, (count + 63) / 64, 1, 1);
}

}  // namespace wgpu::detail
