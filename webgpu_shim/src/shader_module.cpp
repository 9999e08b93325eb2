#include "shader_module.h"

#include <spirv-tools/libspirv.hpp>
#include <spirv_cross/spirv_cross.hpp>

#include "device.h"
#include "vk_check.h"
#include "wgsl_subset/wgsl_subset.h"

namespace wgpu::detail {

ShaderModuleImpl::ShaderModuleImpl(const std::shared_ptr<DeviceImpl>& device,
                                   const ShaderModuleDescriptor& desc)
    : ObjectBase(device, "ShaderModule", desc.label) {
  const ShaderSourceSPIRV* source = nullptr;
  const ShaderSourceWGSL* wgslSource = nullptr;
  std::vector<wgsl::OverrideInfo> overrides;  // WGSL names of the specialization constants
  for (const ChainedStruct* c = desc.nextInChain; c; c = c->nextInChain) {
    if (c->sType == ChainedStruct::SType::ShaderSourceSPIRV)
      source = static_cast<const ShaderSourceSPIRV*>(c);
    if (c->sType == ChainedStruct::SType::ShaderSourceWGSL)
      wgslSource = static_cast<const ShaderSourceWGSL*>(c);
  }
  if (wgslSource) {
    wgsl::Result r = wgsl::translate(wgslSource->code);
    if (!r.ok()) {
      for (const auto& d : r.diagnostics) {
        CompilationMessage m;
        m.message = d.message;
        m.lineNum = d.line;
        m.linePos = d.column;
        info_.messages.push_back(std::move(m));
      }
      MarkInvalid();
      Device().HandleError(ErrorType::Validation,
                           Name() + " is not valid WGSL:\n" +
                               wgsl::formatDiagnostics(r.diagnostics) +
                               " - While calling [Device].CreateShaderModule.");
      return;
    }
    spirv_ = std::move(r.spirv);
    overrides = std::move(r.reflection.overrides);
  } else if (!source || !source->code || source->codeSize == 0) {
    Fail("the descriptor has no shader source (chain a ShaderSourceWGSL or ShaderSourceSPIRV).");
    return;
  } else {
    spirv_.assign(source->code, source->code + source->codeSize);
  }
  // WebGPU-grade validation first: a module the driver would reject never reaches it. WGSL's
  // output was validated by the translator.
  if (source && !source->prevalidated) Validate();
  if (!IsValid()) return;
  Reflect();
  if (!IsValid()) return;
  // Pipeline constants name WGSL overrides as the source spells them.
  for (auto& ep : entryPoints_) {
    for (auto& c : ep.constants) {
      for (const auto& o : overrides) {
        if (o.id == c.specId) c.name = o.name;
      }
    }
  }

  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = spirv_.size() * sizeof(uint32_t);
  info.pCode = spirv_.data();
  if (VkResult r = vkCreateShaderModule(Device().Vk(), &info, nullptr, &module_); r != VK_SUCCESS) {
    module_ = VK_NULL_HANDLE;
    MarkInvalid();
    Device().HandleError(IsOutOfMemory(r) ? ErrorType::OutOfMemory : ErrorType::Internal,
                         Name() + " " + VkFailure("vkCreateShaderModule", r));
  }
}

ShaderModuleImpl::~ShaderModuleImpl() {
  // Pipelines made from the module hold their own compiled code; it can go at once.
  if (module_) vkDestroyShaderModule(Device().Vk(), module_, nullptr);
}

void ShaderModuleImpl::Fail(std::string message, uint64_t offset) {
  CompilationMessage m;
  m.message = message;
  m.offset = offset;
  info_.messages.push_back(m);
  MarkInvalid();
  Device().HandleError(ErrorType::Validation,
                       Name() + " " + message + "\n - While calling [Device].CreateShaderModule.");
}

void ShaderModuleImpl::Validate() {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
  std::vector<CompilationMessage> messages;
  tools.SetMessageConsumer(
      [&](spv_message_level_t, const char*, const spv_position_t& pos, const char* message) {
        CompilationMessage m;
        m.message = message;
        m.offset = pos.index;
        messages.push_back(std::move(m));
      });
  if (tools.Validate(spirv_)) return;
  info_.messages = messages;
  if (info_.messages.empty()) info_.messages.push_back({"SPIR-V failed validation."});
  MarkInvalid();
  Device().HandleError(ErrorType::Validation, Name() + " is not valid SPIR-V: " +
                                                  info_.messages.front().message +
                                                  "\n - While calling [Device].CreateShaderModule.");
}

void ShaderModuleImpl::Reflect() {
  try {
    spirv_cross::Compiler compiler(spirv_);
    for (const auto& ep : compiler.get_entry_points_and_stages()) {
      if (ep.execution_model != spv::ExecutionModelGLCompute) continue;
      compiler.set_entry_point(ep.name, ep.execution_model);
      EntryPointReflection r;
      r.name = ep.name;
      const auto& entry = compiler.get_entry_point(ep.name, ep.execution_model);
      r.workgroupSize = {entry.workgroup_size.x, entry.workgroup_size.y, entry.workgroup_size.z};
      auto resources = compiler.get_shader_resources(compiler.get_active_interface_variables());
      auto add = [&](const spirv_cross::Resource& res, BufferBindingType type) {
        ShaderBinding b;
        b.group = compiler.get_decoration(res.id, spv::DecorationDescriptorSet);
        b.binding = compiler.get_decoration(res.id, spv::DecorationBinding);
        b.type = type;
        b.name = res.name;
        r.bindings.push_back(b);
      };
      for (const auto& res : resources.storage_buffers) {
        const bool readOnly =
            compiler.get_buffer_block_flags(res.id).get(spv::DecorationNonWritable);
        add(res, readOnly ? BufferBindingType::ReadOnlyStorage : BufferBindingType::Storage);
      }
      for (const auto& res : resources.uniform_buffers) add(res, BufferBindingType::Uniform);
      if (!resources.sampled_images.empty() || !resources.storage_images.empty() ||
          !resources.separate_images.empty() || !resources.separate_samplers.empty()) {
        Fail("uses textures or samplers, which this compute-only implementation does not support.");
        return;
      }
      for (const auto& sc : compiler.get_specialization_constants()) {
        ShaderConstant c;
        c.specId = sc.constant_id;
        c.name = compiler.get_name(sc.id);
        const auto& type = compiler.get_type(compiler.get_constant(sc.id).constant_type);
        switch (type.basetype) {
          case spirv_cross::SPIRType::Boolean:
            c.kind = ShaderConstant::Kind::Bool;
            break;
          case spirv_cross::SPIRType::Int:
            c.kind = ShaderConstant::Kind::I32;
            break;
          case spirv_cross::SPIRType::UInt:
            c.kind = ShaderConstant::Kind::U32;
            break;
          default:
            c.kind = ShaderConstant::Kind::F32;
            break;
        }
        r.constants.push_back(c);
      }
      entryPoints_.push_back(std::move(r));
    }
  } catch (const std::exception& e) {
    Fail(std::string("could not be reflected: ") + e.what());
    return;
  }
  if (entryPoints_.empty()) Fail("has no compute entry point.");
}

const EntryPointReflection* ShaderModuleImpl::FindEntryPoint(const std::string& name,
                                                             std::string* error) const {
  if (name.empty()) {
    if (entryPoints_.size() == 1) return &entryPoints_.front();
    *error = Name() + " has " + std::to_string(entryPoints_.size()) +
             " compute entry points; the entry point must be named.";
    return nullptr;
  }
  for (const auto& ep : entryPoints_)
    if (ep.name == name) return &ep;
  *error = Name() + " has no compute entry point named \"" + name + "\".";
  return nullptr;
}

Future ShaderModuleImpl::GetCompilationInfo(CallbackMode mode, CompilationInfoCallback callback) {
  CompilationInfo info = info_;
  return Device().Instance().Events().Track(mode, device_, 0, [callback, info] {
    callback(CompilationInfoRequestStatus::Success, &info);
  });
}

}  // namespace wgpu::detail
