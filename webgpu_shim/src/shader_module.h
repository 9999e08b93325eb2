// Shader modules: SPIR-V validated with SPIRV-Tools and reflected with SPIRV-Cross.
#pragma once

#include <webgpu/webgpu_cpp.h>
#include <vulkan/vulkan.h>

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "object.h"

namespace wgpu::detail {

struct ShaderBinding {
  uint32_t group = 0;
  uint32_t binding = 0;
  BufferBindingType type = BufferBindingType::Uniform;  // Uniform, Storage or ReadOnlyStorage
  std::string name;
};

struct ShaderConstant {
  uint32_t specId = 0;
  std::string name;
  enum class Kind { Bool, I32, U32, F32 } kind = Kind::F32;
};

struct EntryPointReflection {
  std::string name;
  std::array<uint32_t, 3> workgroupSize{1, 1, 1};
  uint64_t workgroupStorageBytes = 0;
  std::vector<ShaderBinding> bindings;
  std::vector<ShaderConstant> constants;
};

class ShaderModuleImpl : public ObjectBase {
 public:
  ShaderModuleImpl(const std::shared_ptr<DeviceImpl>& device, const ShaderModuleDescriptor& desc);
  ~ShaderModuleImpl() override;

  Future GetCompilationInfo(CallbackMode mode, CompilationInfoCallback callback);
  // The compute entry point called `name` (or the only one when `name` is empty).
  const EntryPointReflection* FindEntryPoint(const std::string& name, std::string* error) const;
  VkShaderModule Vk() const { return module_; }

 private:
  void Validate();  // spirv-val; reports and marks the module invalid on failure
  void Reflect();
  void Fail(std::string message, uint64_t offset = 0);

  std::vector<uint32_t> spirv_;
  std::vector<EntryPointReflection> entryPoints_;
  CompilationInfo info_;
  VkShaderModule module_ = VK_NULL_HANDLE;
};

}  // namespace wgpu::detail
