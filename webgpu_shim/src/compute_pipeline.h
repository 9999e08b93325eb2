// Compute pipelines, with explicit layouts or `layout: auto` derived from reflection.
#pragma once

#include <webgpu/webgpu_cpp.h>
#include <vulkan/vulkan.h>

#include <memory>
#include <string>
#include <vector>

#include "binding.h"
#include "object.h"

namespace wgpu::detail {

class ShaderModuleImpl;
class ComputePipelineImpl;

// A validated pipeline waiting for the driver: everything vkCreateComputePipelines needs.
// Build() touches no shim state but the pipeline it fills, so it may run on any thread.
struct PipelineBuild {
  std::shared_ptr<ComputePipelineImpl> pipeline;
  std::shared_ptr<ShaderModuleImpl> module;
  std::shared_ptr<PipelineLayoutImpl> layout;
  std::string entryPoint;        // the SPIR-V entry point's name
  VkShaderModule vkModule = VK_NULL_HANDLE;  // the module holding it (owned by `module`)
  std::vector<VkSpecializationMapEntry> specEntries;
  std::vector<uint32_t> specData;
  VkResult result = VK_NOT_READY;

  void Build();
  // The Vulkan failure as a message, after Build failed.
  std::string Failure() const;
};

class ComputePipelineImpl : public ObjectBase {
 public:
  // Validates and builds at once; errors go to the device's error scopes.
  static std::shared_ptr<ComputePipelineImpl> Create(const std::shared_ptr<DeviceImpl>& device,
                                                     const ComputePipelineDescriptor& desc);
  // Validates only (errors go to the device's error scopes, the pipeline is then invalid and
  // the result null); the caller runs Build(), on any thread.
  static std::unique_ptr<PipelineBuild> Validate(const std::shared_ptr<DeviceImpl>& device,
                                                 const ComputePipelineDescriptor& desc,
                                                 std::shared_ptr<ComputePipelineImpl>* pipeline);
  ComputePipelineImpl(const std::shared_ptr<DeviceImpl>& device, std::string_view label);
  ~ComputePipelineImpl() override;

  std::shared_ptr<BindGroupLayoutImpl> GetBindGroupLayout(uint32_t index);
  const std::shared_ptr<PipelineLayoutImpl>& Layout() const { return layout_; }
  // Bindings whose layout entry has no minBindingSize (0) while the shader needs some bytes:
  // each dispatch checks the bound size, as WebGPU specifies.
  struct LateMinSize {
    uint32_t group = 0;
    uint32_t binding = 0;
    uint64_t size = 0;
  };
  const std::vector<LateMinSize>& LateMinSizes() const { return lateMinSizes_; }
  VkPipeline Vk() const { return pipeline_; }

 private:
  friend struct PipelineBuild;
  std::shared_ptr<PipelineLayoutImpl> layout_;
  std::vector<LateMinSize> lateMinSizes_;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
};

}  // namespace wgpu::detail
