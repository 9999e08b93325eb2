// Compute pipelines, with explicit layouts or `layout: auto` derived from reflection.
#pragma once

#include <webgpu/webgpu_cpp.h>
#include <vulkan/vulkan.h>

#include <memory>

#include "binding.h"
#include "object.h"

namespace wgpu::detail {

class ComputePipelineImpl : public ObjectBase {
 public:
  static std::shared_ptr<ComputePipelineImpl> Create(const std::shared_ptr<DeviceImpl>& device,
                                                     const ComputePipelineDescriptor& desc);
  ComputePipelineImpl(const std::shared_ptr<DeviceImpl>& device, std::string label);
  ~ComputePipelineImpl() override;

  std::shared_ptr<BindGroupLayoutImpl> GetBindGroupLayout(uint32_t index);
  const std::shared_ptr<PipelineLayoutImpl>& Layout() const { return layout_; }
  VkPipeline Vk() const { return pipeline_; }

 private:
  std::shared_ptr<PipelineLayoutImpl> layout_;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
};

}  // namespace wgpu::detail
