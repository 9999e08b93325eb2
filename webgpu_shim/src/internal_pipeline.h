// A compute pipeline of the shim's own: a SPIR-V shader compiled at build time, storage buffers
// at set 0, bindings 0.., and push constants. The indirect-dispatch validation and the timestamp
// conversion are such pipelines.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <span>

namespace wgpu::detail {

class CommandEncoderImpl;
class DeviceImpl;

class InternalPipeline {
 public:
  InternalPipeline(DeviceImpl& device, std::span<const uint32_t> spirv, uint32_t buffers,
                   uint32_t pushBytes);
  ~InternalPipeline();
  InternalPipeline(const InternalPipeline&) = delete;
  InternalPipeline& operator=(const InternalPipeline&) = delete;

  // Records a dispatch of `groups` workgroups with `buffers` bound in order and `push` (the
  // pipeline's push-constant bytes). The descriptor set is one of its own, freed once the commands
  // have run (a plain set: push descriptors are not core Vulkan 1.1, and these dispatches are
  // few). False, with an error on the encoder naming `what`, when it cannot be recorded. The
  // caller declares the buffers' accesses first and rebinds its own pipeline afterwards.
  bool Dispatch(CommandEncoderImpl& encoder, std::span<const VkDescriptorBufferInfo> buffers,
                const void* push, uint32_t groups, const char* what);

 private:
  DeviceImpl& device_;
  uint32_t buffers_, pushBytes_;
  VkDescriptorSetLayout setLayout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
};

}  // namespace wgpu::detail
