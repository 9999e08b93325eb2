// Shader modules: SPIR-V validated with SPIRV-Tools and reflected with SPIRV-Cross; WGSL
// translated to SPIR-V first (wgsl_translation.h, through the device's blob cache). A WGSL module
// compiles on the device's worker threads: CreateShaderModule returns at once, so the modules of
// many pipelines created in a row translate on all cores. It is resolved (waited for, its error
// reported to the error scopes that were current when it was created, as if it had compiled
// then) when first needed: by a pipeline, GetCompilationInfo, PopErrorScope, the device's Tick
// once it is done, or its destruction.
#pragma once

#include <webgpu/webgpu_cpp.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "device_features.h"
#include "object.h"
#include "wgsl_subset/wgsl_subset.h"

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
  enum class Kind { Bool, I32, U32, F32, F16 } kind = Kind::F32;
  bool used = false;      // the entry point's code refers to it (WGSL's static use)
  bool required = false;  // a WGSL override without a default that the entry point uses
  // WGSL's default where the SPIR-V's may differ (a workgroup size outside the limits: the
  // pipeline's constant may bring it in, so only pipeline creation checks it).
  std::optional<double> wgslDefault;
};

struct EntryPointReflection {
  std::string name;       // as the source names it (WGSL: the @compute function)
  std::string spirvName;  // in the SPIR-V (a WGSL entry point is its own module's "main")
  VkShaderModule module = VK_NULL_HANDLE;  // the Vulkan module that holds it
  std::array<uint32_t, 3> workgroupSize{1, 1, 1};  // with the overrides' default values
  // The SpecId overriding each workgroup size dimension, or kNoSpecId.
  std::array<uint32_t, 3> workgroupSizeSpecIds{kNoSpecId, kNoSpecId, kNoSpecId};
  // Bytes of var<workgroup> storage the entry point uses (WGSL sizes, overrides at defaults).
  uint64_t workgroupStorageBytes = 0;
  std::vector<WorkgroupSpecArray> workgroupSpecArrays;
  std::vector<ShaderBinding> bindings;
  std::vector<ShaderConstant> constants;  // a WGSL module's computed counts left out
  // WGSL: array counts that are override-expressions, each a specialization constant computed
  // at pipeline creation from the overrides' values (their defaults: `overrideDefaults`).
  std::vector<wgsl::ComputedCount> computedCounts;
  struct Override {
    uint32_t specId = 0;
    std::string name;
    std::optional<double> defaultValue;
  };
  std::vector<Override> overrides;  // WGSL: every override of the module, as the source has it
};

// A compilation message that owns its text (the public CompilationMessage only views it).
struct CompilationRecord {
  std::string message;
  uint64_t lineNum = 0;
  uint64_t linePos = 0;
  uint64_t offset = 0;
};

// What compiling a module produces (on any thread); the module takes it on the device's thread.
struct ModuleCompilation {
  std::vector<EntryPointReflection> entryPoints;
  std::vector<CompilationRecord> messages;  // all errors
  ErrorType errorType = ErrorType::NoError;
  std::string error;  // the device error's message
  std::vector<VkShaderModule> modules;  // one per WGSL entry point; one for SPIR-V
};

// A module's source, copied out of the descriptor.
struct ModuleSource {
  std::optional<std::string> wgsl;
  std::vector<uint32_t> spirv;
  bool prevalidated = false;
  FeatureSet features;  // the device's enabled features: which WGSL extensions may be enabled
};

class ShaderModuleImpl : public ObjectBase {
 public:
  ShaderModuleImpl(const std::shared_ptr<DeviceImpl>& device, const ShaderModuleDescriptor& desc);
  ~ShaderModuleImpl() override;

  Future GetCompilationInfo(CallbackMode mode, CompilationInfoCallback<> callback);
  // The compute entry point called `name` (or the only one when `name` is empty).
  const EntryPointReflection* FindEntryPoint(const std::string& name, std::string* error);
  // Waits for a WGSL module's compilation, if still pending, and takes its result (validity,
  // reflection, error). Before IsValid() means anything.
  void Resolve();
  // Whether Resolve() would not wait.
  bool Compiled() const;
  // Whether error scope `id` was pushed when the module was created.
  bool CreatedInScope(uint64_t id) const {
    return std::find(errorScopes_.begin(), errorScopes_.end(), id) != errorScopes_.end();
  }

 private:
  struct Pending;
  void Apply(ModuleCompilation compilation);

  std::vector<uint64_t> errorScopes_;  // the device's error scopes when the module was created
  std::shared_ptr<Pending> pending_;   // a WGSL compilation not yet taken by Resolve()
  std::vector<EntryPointReflection> entryPoints_;
  std::vector<CompilationRecord> messages_;  // all errors
  std::vector<VkShaderModule> modules_;
};

}  // namespace wgpu::detail
