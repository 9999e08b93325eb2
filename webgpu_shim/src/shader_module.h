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
  // WebGPU's minimum buffer binding size: SizeOf the store type, a runtime-sized array counted
  // as one element (layout: 'auto' puts it in the layout; CreateBindGroup and dispatches check it).
  uint64_t minBindingSize = 0;
};

inline constexpr uint32_t kNoSpecId = ~uint32_t{0};

// A var<workgroup> array whose length is an override (a specialization constant).
struct WorkgroupSpecArray {
  uint32_t specId = kNoSpecId;
  uint64_t elementStride = 0;  // bytes per element
  uint64_t defaultLength = 0;  // the length counted in workgroupStorageBytes
};

struct ShaderConstant {
  uint32_t specId = 0;
  std::string name;
  enum class Kind { Bool, I32, U32, F32 } kind = Kind::F32;
};

struct EntryPointReflection {
  std::string name;
  std::array<uint32_t, 3> workgroupSize{1, 1, 1};  // with the overrides' default values
  // The SpecId overriding each workgroup size dimension, or kNoSpecId.
  std::array<uint32_t, 3> workgroupSizeSpecIds{kNoSpecId, kNoSpecId, kNoSpecId};
  // Bytes of var<workgroup> storage the entry point uses (WGSL sizes, overrides at defaults).
  uint64_t workgroupStorageBytes = 0;
  std::vector<WorkgroupSpecArray> workgroupSpecArrays;
  std::vector<ShaderBinding> bindings;
  std::vector<ShaderConstant> constants;
};

// A compilation message that owns its text (the public CompilationMessage only views it).
struct CompilationRecord {
  std::string message;
  uint64_t lineNum = 0;
  uint64_t linePos = 0;
  uint64_t offset = 0;
};

class ShaderModuleImpl : public ObjectBase {
 public:
  ShaderModuleImpl(const std::shared_ptr<DeviceImpl>& device, const ShaderModuleDescriptor& desc);
  ~ShaderModuleImpl() override;

  Future GetCompilationInfo(CallbackMode mode, CompilationInfoCallback<> callback);
  // The compute entry point called `name` (or the only one when `name` is empty).
  const EntryPointReflection* FindEntryPoint(const std::string& name, std::string* error) const;
  VkShaderModule Vk() const { return module_; }

 private:
  void Validate();  // spirv-val; reports and marks the module invalid on failure
  void Reflect();
  void Fail(std::string message, uint64_t offset = 0);

  std::vector<uint32_t> spirv_;
  std::vector<EntryPointReflection> entryPoints_;
  uint64_t wgslWorkgroupBytes_ = 0;  // the WGSL translator's count, for WGSL sources
  std::vector<CompilationRecord> messages_;  // all errors
  VkShaderModule module_ = VK_NULL_HANDLE;
};

}  // namespace wgpu::detail
