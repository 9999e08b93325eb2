#include "shader_module.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <unordered_set>

#include <spirv-tools/libspirv.hpp>
#include <spirv_cross/spirv_cross.hpp>

#include "device.h"
#include "process_exit.h"
#include "vk_check.h"
#include "wgsl_translation.h"

namespace wgpu::detail {

namespace {

// spirv_cross::Compiler with the one query reflection needs that it keeps protected.
class ReflectCompiler : public spirv_cross::Compiler {
 public:
  using Compiler::Compiler;
  // The value of a constant (or specialization constant) id; nullptr for a spec-constant
  // expression, whose value is not known until the driver folds it.
  const spirv_cross::SPIRConstant* PlainConstant(uint32_t id) const {
    return maybe_get<spirv_cross::SPIRConstant>(id);
  }
  // The var<workgroup> variables `entry` uses. get_active_interface_variables() leaves them out;
  // before SPIR-V 1.4 an entry point does not list them either, so every one of the module
  // counts then (modules have one entry point in practice; more only over-counts).
  std::vector<uint32_t> WorkgroupVariables(const spirv_cross::SPIREntryPoint& entry) const {
    std::vector<uint32_t> out;
    const bool listed = ir.get_spirv_version() >= 0x10400;
    ir.for_each_typed_id<spirv_cross::SPIRVariable>([&](uint32_t id, const spirv_cross::SPIRVariable& v) {
      if (v.storage != spv::StorageClassWorkgroup) return;
      if (listed && std::find(entry.interface_variables.begin(), entry.interface_variables.end(),
                              spirv_cross::VariableID(id)) == entry.interface_variables.end())
        return;
      out.push_back(id);
    });
    return out;
  }
  // The ids that `entryFunction`'s call tree refers to: every operand of its instructions but the
  // literal ones, branch conditions and returned values, then what the constant expressions among
  // them are built from. A use missed here only leaves a check out (fail-open).
  std::unordered_set<uint32_t> UsedIds(uint32_t entryFunction) const {
    std::unordered_set<uint32_t> used, seen;
    std::vector<uint32_t> functions{entryFunction};
    while (!functions.empty()) {
      const uint32_t f = functions.back();
      functions.pop_back();
      if (!seen.insert(f).second) continue;
      const auto* fn = maybe_get<spirv_cross::SPIRFunction>(f);
      if (!fn) continue;
      for (uint32_t blockId : fn->blocks) {
        const auto& block = get<spirv_cross::SPIRBlock>(blockId);
        used.insert(block.condition);
        used.insert(block.return_value);
        for (const auto& ins : block.ops) {
          const uint32_t* w = stream(ins);
          size_t n = ins.length;
          switch (static_cast<spv::Op>(ins.op)) {
            case spv::OpCompositeExtract: n = std::min<size_t>(n, 3); break;  // then indices
            case spv::OpCompositeInsert:
            case spv::OpVectorShuffle: n = std::min<size_t>(n, 4); break;  // then indices
            case spv::OpExtInst: if (n > 3) used.insert(w + 4, w + n); n = std::min<size_t>(n, 3); break;
            case spv::OpLine:
            case spv::OpLoopMerge:
            case spv::OpSelectionMerge: n = 0; break;
            case spv::OpFunctionCall: if (n > 2) functions.push_back(w[2]); break;
            default: break;
          }
          used.insert(w, w + n);
        }
      }
    }
    // Constant expressions (OpSpecConstantOp, composites) use what they are built from.
    std::vector<uint32_t> pending(used.begin(), used.end());
    while (!pending.empty()) {
      const uint32_t id = pending.back();
      pending.pop_back();
      if (id == 0 || id >= ir.ids.size()) continue;
      std::vector<uint32_t> parts;
      if (const auto* op = maybe_get<spirv_cross::SPIRConstantOp>(id)) {
        parts.assign(op->arguments.begin(), op->arguments.end());
      } else if (const auto* k = maybe_get<spirv_cross::SPIRConstant>(id)) {
        for (auto sub : k->subconstants) parts.push_back(sub);
      }
      for (uint32_t part : parts)
        if (used.insert(part).second) pending.push_back(part);
    }
    return used;
  }
};

struct SizeAlign {
  uint64_t size = 0;
  uint64_t align = 1;
};

uint64_t RoundUp(uint64_t align, uint64_t n) { return (n + align - 1) / align * align; }

// The length of array dimension `dim` of `type` (0 = innermost); `runtimeLength` for a
// runtime-sized one, 0 when the length is a spec-constant expression.
uint64_t ArrayLength(const ReflectCompiler& c, const spirv_cross::SPIRType& type, size_t dim,
                     uint64_t runtimeLength) {
  if (type.array_size_literal[dim]) return type.array[dim] == 0 ? runtimeLength : type.array[dim];
  const spirv_cross::SPIRConstant* k = c.PlainConstant(type.array[dim]);
  return k ? k->scalar() : 0;
}

// WGSL's SizeOf / AlignOf of `type` with its innermost `dims` array dimensions (all of them
// by default): scalars 4 bytes (f16 2), vec2 aligned to 2 elements, vec3/vec4 to 4, matrices as
// arrays of column vectors, arrays as length × roundUp(align, size), structs member by member.
SizeAlign WgslLayout(const ReflectCompiler& c, const spirv_cross::SPIRType& type,
                     size_t dims = SIZE_MAX, uint64_t runtimeLength = 1) {
  SizeAlign r;
  if (type.basetype == spirv_cross::SPIRType::Struct) {
    uint64_t offset = 0;
    for (uint32_t member : type.member_types) {
      const SizeAlign m = WgslLayout(c, c.get_type(member), SIZE_MAX, runtimeLength);
      offset = RoundUp(m.align, offset) + m.size;
      r.align = std::max(r.align, m.align);
    }
    r.size = RoundUp(r.align, offset);
  } else {
    const uint64_t scalar =
        type.basetype == spirv_cross::SPIRType::Boolean ? 4 : std::max<uint64_t>(type.width / 8, 1);
    const uint64_t n = type.vecsize;
    const uint64_t vecSize = n * scalar;
    const uint64_t vecAlign = (n == 1 ? 1 : n == 2 ? 2 : 4) * scalar;
    r.align = vecAlign;
    r.size = type.columns > 1 ? type.columns * RoundUp(vecAlign, vecSize) : vecSize;
  }
  for (size_t d = 0; d < std::min(dims, type.array.size()); ++d)
    r.size = ArrayLength(c, type, d, runtimeLength) * RoundUp(r.align, r.size);
  return r;
}

// Compiles a module from its source: translation (WGSL), spirv-val, reflection and the driver's
// module. Touches no device state, so it runs on any thread; errors are collected in `out`.
struct ModuleCompiler {
  std::string name;  // the module's Name(), for messages
  std::vector<uint32_t> spirv{};
  ModuleCompilation out{};
  bool fromWgsl = false;  // `spirv` is wgsl_subset's translation of WGSL

  bool Ok() const { return out.errorType == ErrorType::NoError; }
  void Fail(const std::string& message, uint64_t offset = 0) {
    out.messages.push_back({message, 0, 0, offset});
    out.errorType = ErrorType::Validation;
    out.error = name + " " + message + "\n - While calling [Device].CreateShaderModule.";
  }
  void Validate();  // spirv-val
  void Reflect();
  void Run(VkDevice device, const ModuleSource& source, const BlobCache& cache);
  void CreateModule(VkDevice device, size_t first, const WgslTranslation* translation);
};

void ModuleCompiler::Validate() {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
  std::vector<CompilationRecord> messages;
  tools.SetMessageConsumer(
      [&](spv_message_level_t, const char*, const spv_position_t& pos, const char* message) {
        messages.push_back({message, 0, 0, pos.index});
      });
  if (tools.Validate(spirv)) return;
  out.messages = std::move(messages);
  if (out.messages.empty()) out.messages.push_back({"SPIR-V failed validation."});
  out.errorType = ErrorType::Validation;
  out.error = name + " is not valid SPIR-V: " + out.messages.front().message +
              "\n - While calling [Device].CreateShaderModule.";
}

void ModuleCompiler::Reflect() {
  try {
    ReflectCompiler compiler(spirv);
    for (const auto& ep : compiler.get_entry_points_and_stages()) {
      if (ep.execution_model != spv::ExecutionModelGLCompute) continue;
      compiler.set_entry_point(ep.name, ep.execution_model);
      EntryPointReflection r;
      r.name = ep.name;
      const auto& entry = compiler.get_entry_point(ep.name, ep.execution_model);
      r.workgroupSize = {entry.workgroup_size.x, entry.workgroup_size.y, entry.workgroup_size.z};
      // Overridable workgroup sizes (WGSL override / GLSL local_size_x_id): the default value
      // here, the pipeline's constants at pipeline creation.
      spirv_cross::SpecializationConstant spec[3];
      compiler.get_work_group_size_specialization_constants(spec[0], spec[1], spec[2]);
      for (int d = 0; d < 3; ++d) {
        if (spec[d].id == 0) continue;
        if (const auto* k = compiler.PlainConstant(spec[d].id)) r.workgroupSize[d] = k->scalar();
        r.workgroupSizeSpecIds[d] = spec[d].constant_id;
      }
      const auto active = compiler.get_active_interface_variables();
      // var<workgroup> storage, in WGSL sizes (a module's SPIR-V carries no layout for it).
      for (uint32_t id : compiler.WorkgroupVariables(entry)) {
        const spirv_cross::SPIRType& type = compiler.get_type_from_variable(id);
        r.workgroupStorageBytes += WgslLayout(compiler, type).size;
        const size_t dims = type.array.size();
        if (dims == 0 || type.array_size_literal[dims - 1]) continue;
        const uint32_t lengthId = type.array[dims - 1];
        if (!compiler.has_decoration(lengthId, spv::DecorationSpecId)) continue;
        const SizeAlign element = WgslLayout(compiler, type, dims - 1);
        r.workgroupSpecArrays.push_back({compiler.get_decoration(lengthId, spv::DecorationSpecId),
                                         RoundUp(element.align, element.size),
                                         ArrayLength(compiler, type, dims - 1, 0)});
      }
      auto resources = compiler.get_shader_resources(active);
      auto add = [&](const spirv_cross::Resource& res, BufferBindingType type) {
        ShaderBinding b;
        b.group = compiler.get_decoration(res.id, spv::DecorationDescriptorSet);
        b.binding = compiler.get_decoration(res.id, spv::DecorationBinding);
        b.type = type;
        b.name = res.name;
        // WGSL's SizeOf of the variable's store type: the block's declared layout (its Offset /
        // ArrayStride decorations) with one element in a runtime-sized array, rounded up to the
        // struct's alignment when the store type is a struct. wgsl_subset declares a struct-typed
        // variable as a named block of the struct's members and any other type (vec3<f32>,
        // array<f32>, ...) as an anonymous block holding it alone: a vec3<f32> needs 12 bytes,
        // not the 16 of a struct around it.
        const spirv_cross::SPIRType& block = compiler.get_type(res.base_type_id);
        const uint64_t declared = compiler.get_declared_struct_size_runtime_array(block, 1);
        const bool wrapsNonStruct = fromWgsl && compiler.get_name(res.id).empty();
        b.minBindingSize = wrapsNonStruct ? declared : RoundUp(WgslLayout(compiler, block).align, declared);
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
      const std::unordered_set<uint32_t> used = compiler.UsedIds(entry.self);
      for (const auto& sc : compiler.get_specialization_constants()) {
        ShaderConstant c;
        c.specId = sc.constant_id;
        c.used = used.count(sc.id) != 0;
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
          case spirv_cross::SPIRType::Half:
            c.kind = ShaderConstant::Kind::F16;
            break;
          default:
            c.kind = ShaderConstant::Kind::F32;
            break;
        }
        r.constants.push_back(c);
      }
      out.entryPoints.push_back(std::move(r));
    }
  } catch (const std::exception& e) {
    Fail(std::string("could not be reflected: ") + e.what());
    return;
  }
  if (out.entryPoints.empty()) Fail("has no compute entry point.");
}

void ModuleCompiler::Run(VkDevice device, const ModuleSource& source, const BlobCache& cache) {
  if (!source.wgsl && source.spirv.empty()) {
    Fail("the descriptor has no shader source (chain a ShaderSourceWGSL or ShaderSourceSPIRV).");
    return;
  }
  if (!source.wgsl) {
    spirv = source.spirv;
    // WebGPU-grade validation first: a module the driver would reject never reaches it. WGSL's
    // output was validated by the translator (or, read from the cache, by TranslateWgsl).
    if (!source.prevalidated) Validate();
    if (!Ok()) return;
    Reflect();
    if (Ok()) CreateModule(device, 0, nullptr);
    return;
  }
  // WGSL: each @compute function is translated on its own (SPIR-V made through GLSL has one
  // entry point, "main"), each its own Vulkan module. The first translation names them all.
  std::vector<std::string> entries{std::string()};
  for (size_t i = 0; i < entries.size(); ++i) {
    WgslTranslation translation = TranslateWgsl(*source.wgsl, entries[i], source.features, cache);
    if (!translation.diagnostics.empty()) {
      for (const auto& d : translation.diagnostics)
        out.messages.push_back({d.message, d.line, d.column, 0});
      out.errorType = ErrorType::Validation;
      out.error = name + " is not valid WGSL:\n" + wgsl::formatDiagnostics(translation.diagnostics) +
                  " - While calling [Device].CreateShaderModule.";
      return;
    }
    if (i == 0) {
      for (const std::string& e : translation.entryPoints)
        if (e != translation.entryPoint) entries.push_back(e);
    }
    spirv = std::move(translation.spirv);
    fromWgsl = true;
    const size_t first = out.entryPoints.size();
    Reflect();
    if (!Ok()) return;
    CreateModule(device, first, &translation);
    if (!Ok()) return;
  }
}

// Makes the Vulkan module of `spirv` for the entry points reflected from index `first` on; a
// WGSL translation names them (its SPIR-V calls its one entry point "main") and adds what only
// the translator knows.
void ModuleCompiler::CreateModule(VkDevice device, size_t first,
                                  const WgslTranslation* translation) {
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = spirv.size() * sizeof(uint32_t);
  info.pCode = spirv.data();
  VkShaderModule module = VK_NULL_HANDLE;
  if (VkResult r = vkCreateShaderModule(device, &info, nullptr, &module); r != VK_SUCCESS) {
    out.errorType = IsOutOfMemory(r) ? ErrorType::OutOfMemory : ErrorType::Internal;
    out.error = name + " " + VkFailure("vkCreateShaderModule", r);
    return;
  }
  out.modules.push_back(module);
  for (size_t i = first; i < out.entryPoints.size(); ++i) {
    EntryPointReflection& ep = out.entryPoints[i];
    ep.spirvName = ep.name;
    ep.module = module;
    if (!translation) continue;
    ep.name = translation->entryPoint;
    // The translator sizes WGSL's workgroup variables itself; never count fewer bytes than it.
    ep.workgroupStorageBytes = std::max<uint64_t>(ep.workgroupStorageBytes, translation->workgroupStorageBytes);
    // Computed counts are no overrides: no pipeline constant may set them.
    ep.computedCounts = translation->computedCounts;
    std::erase_if(ep.constants, [&](const ShaderConstant& c) {
      return std::any_of(ep.computedCounts.begin(), ep.computedCounts.end(),
                         [&](const wgsl::ComputedCount& k) { return k.id == c.specId; });
    });
    for (const auto& o : translation->overrides)
      ep.overrides.push_back(
          {o.id, o.name, o.hasDefault ? std::optional<double>(o.defaultValue) : std::nullopt});
    // Pipeline constants name WGSL overrides as the source spells them; one without a default
    // that the entry point uses must be set.
    for (auto& c : ep.constants) {
      for (const auto& o : translation->overrides) {
        if (o.id != c.specId) continue;
        c.name = o.name;
        c.required = c.used && !o.hasDefault;
        if (o.hasDefault) c.wgslDefault = o.defaultValue;
      }
    }
  }
}

}  // namespace

// A WGSL module's compilation on a worker thread, until Resolve() takes its result.
struct ShaderModuleImpl::Pending {
  std::mutex mutex;
  std::condition_variable done;
  std::optional<ModuleCompilation> result;
};

ShaderModuleImpl::ShaderModuleImpl(const std::shared_ptr<DeviceImpl>& device,
                                   const ShaderModuleDescriptor& desc)
    : ObjectBase(device, "ShaderModule", desc.label), errorScopes_(device->ErrorScopeIds()) {
  ModuleSource source;
  source.features = device->Features();
  for (const ChainedStruct* c = desc.nextInChain; c; c = c->nextInChain) {
    if (c->sType == SType::ShaderSourceSPIRV) {
      const auto* spirv = static_cast<const ShaderSourceSPIRV*>(c);
      if (spirv->code) source.spirv.assign(spirv->code, spirv->code + spirv->codeSize);
      source.prevalidated = spirv->prevalidated;
    }
    if (c->sType == SType::ShaderSourceWGSL)
      source.wgsl = std::string(std::string_view(static_cast<const ShaderSourceWGSL*>(c)->code));
  }
  if (!source.wgsl) {  // SPIR-V: validated and reflected now
    ModuleCompiler compiler{Name()};
    compiler.Run(device->Vk(), source, device->Cache());
    Apply(std::move(compiler.out));
    return;
  }
  // WGSL: translated on the device's worker threads, so that the modules of many pipelines
  // created in a row translate at once. The job borrows the device: this module owns it and
  // waits for the job before it goes.
  pending_ = std::make_shared<Pending>();
  device->AddPendingModule(this);
  device->RunInBackground([pending = pending_, name = Name(), source = std::move(source),
                           vk = device->Vk(), cache = &device->Cache()] {
    ModuleCompiler compiler{name};
    compiler.Run(vk, source, *cache);
    std::lock_guard lock(pending->mutex);
    pending->result = std::move(compiler.out);
    pending->done.notify_all();
  });
}

ShaderModuleImpl::~ShaderModuleImpl() {
  Resolve();
  // Pipelines made from the module hold their own compiled code; it can go at once.
  if (ProcessExiting()) return;
  for (VkShaderModule m : modules_) vkDestroyShaderModule(Device().Vk(), m, nullptr);
}

bool ShaderModuleImpl::Compiled() const {
  if (!pending_) return true;
  std::lock_guard lock(pending_->mutex);
  return pending_->result.has_value();
}

void ShaderModuleImpl::Resolve() {
  if (!pending_) return;
  std::unique_lock lock(pending_->mutex);
  pending_->done.wait(lock, [&] { return pending_->result.has_value(); });
  ModuleCompilation result = std::move(*pending_->result);
  lock.unlock();
  pending_.reset();
  Device().RemovePendingModule(this);
  Apply(std::move(result));
}

void ShaderModuleImpl::Apply(ModuleCompilation compilation) {
  entryPoints_ = std::move(compilation.entryPoints);
  messages_ = std::move(compilation.messages);
  modules_ = std::move(compilation.modules);
  if (compilation.errorType == ErrorType::NoError) return;
  MarkInvalid();
  // Where the error would have gone had the module compiled in CreateShaderModule.
  Device().HandleError(compilation.errorType, std::move(compilation.error), errorScopes_);
}

const EntryPointReflection* ShaderModuleImpl::FindEntryPoint(const std::string& name,
                                                             std::string* error) {
  Resolve();
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

Future ShaderModuleImpl::GetCompilationInfo(CallbackMode mode, CompilationInfoCallback<> callback) {
  Resolve();
  // The callback's views point into this copy, which lives as long as the event.
  auto records = std::make_shared<const std::vector<CompilationRecord>>(messages_);
  return Device().Instance().Events().Track(mode, device_, 0, [callback, records] {
    std::vector<CompilationMessage> messages;
    for (const auto& r : *records) {
      CompilationMessage m;
      m.message = r.message;
      m.lineNum = r.lineNum;
      m.linePos = r.linePos;
      m.offset = r.offset;
      messages.push_back(m);
    }
    const CompilationInfo info{nullptr, messages.size(), messages.data()};
    callback(CompilationInfoRequestStatus::Success, &info);
  });
}

}  // namespace wgpu::detail
