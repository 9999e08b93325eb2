#include "compute_pipeline.h"

#include <cstring>

#include "descriptor_arrays.h"
#include "device.h"
#include "shader_module.h"
#include "vk_check.h"

namespace wgpu::detail {

namespace {

const char* BindingTypeName(BufferBindingType t) {
  switch (t) {
    case BufferBindingType::Uniform: return "uniform";
    case BufferBindingType::Storage: return "storage (read_write)";
    case BufferBindingType::ReadOnlyStorage: return "storage (read)";
    default: return "none";
  }
}

// Builds `layout: auto` from the entry point's bindings.
std::vector<std::shared_ptr<BindGroupLayoutImpl>> AutoLayout(const std::shared_ptr<DeviceImpl>& device,
                                                             const EntryPointReflection& ep,
                                                             const std::string& label) {
  uint32_t groupCount = 0;
  for (const auto& b : ep.bindings) groupCount = std::max(groupCount, b.group + 1);
  std::vector<std::vector<BindGroupLayoutEntry>> entries(groupCount);
  for (const auto& b : ep.bindings) {
    BindGroupLayoutEntry e;
    e.binding = b.binding;
    e.visibility = ShaderStage::Compute;
    e.buffer.type = b.type;
    e.buffer.minBindingSize = b.minBindingSize;
    entries[b.group].push_back(e);
  }
  std::vector<std::shared_ptr<BindGroupLayoutImpl>> groups;
  for (uint32_t g = 0; g < groupCount; ++g) {
    const std::string groupLabel = label + " auto group " + std::to_string(g);
    BindGroupLayoutDescriptor desc;
    desc.label = groupLabel;
    desc.entryCount = entries[g].size();
    desc.entries = entries[g].data();
    groups.push_back(BindGroupLayoutImpl::Create(device, desc, true));
  }
  return groups;
}

}  // namespace

ComputePipelineImpl::ComputePipelineImpl(const std::shared_ptr<DeviceImpl>& device,
                                         std::string_view label)
    : ObjectBase(device, "ComputePipeline", label) {}

ComputePipelineImpl::~ComputePipelineImpl() {
  if (pipeline_) {
    DeviceImpl* device = device_.get();  // deferred work must not own the device
    VkPipeline pipeline = pipeline_;
    device->DeferUntilIdle([device, pipeline] { vkDestroyPipeline(device->Vk(), pipeline, nullptr); });
  }
}

std::shared_ptr<ComputePipelineImpl> ComputePipelineImpl::Create(
    const std::shared_ptr<DeviceImpl>& device, const ComputePipelineDescriptor& desc) {
  std::shared_ptr<ComputePipelineImpl> pipeline;
  std::unique_ptr<PipelineBuild> build = Validate(device, desc, &pipeline);
  if (!build) return pipeline;
  build->Build();
  if (build->result != VK_SUCCESS) {
    device->HandleError(IsOutOfMemory(build->result) ? ErrorType::OutOfMemory : ErrorType::Internal,
                        build->Failure());
  }
  return pipeline;
}

std::unique_ptr<PipelineBuild> ComputePipelineImpl::Validate(
    const std::shared_ptr<DeviceImpl>& device, const ComputePipelineDescriptor& desc,
    std::shared_ptr<ComputePipelineImpl>* out) {
  auto pipeline = std::make_shared<ComputePipelineImpl>(device, desc.label);
  *out = pipeline;
  const Limits& limits = device->GetLimits();
  auto fail = [&](const std::string& message) -> std::unique_ptr<PipelineBuild> {
    pipeline->MarkInvalid();
    device->HandleError(ErrorType::Validation, pipeline->Name() + " " + message +
                                                   "\n - While calling [Device].CreateComputePipeline.");
    return nullptr;
  };
  auto module = desc.compute.module.Get();
  if (!module) return fail("has no compute.module.");
  module->Resolve();  // a WGSL module may still be compiling
  if (!module->IsValid()) return fail("uses " + module->Name() + ", which is invalid.");
  if (module->DevicePtr() != device) return fail("uses " + ForeignDeviceMessage(*module, *device));
  std::string error;
  const auto constants = DescriptorArray(desc.compute.constants, desc.compute.constantCount,
                                         "compute.constants", "compute.constantCount", &error);
  if (!constants) return fail(error);
  const EntryPointReflection* ep =
      module->FindEntryPoint(std::string(std::string_view(desc.compute.entryPoint)), &error);
  if (!ep) return fail(error);

  // Override constants become specialization constants.
  std::vector<VkSpecializationMapEntry> specEntries;
  std::vector<uint32_t> specData;
  for (const auto& c : *constants) {
    const std::string_view key = c.key;
    const ShaderConstant* match = nullptr;
    for (const auto& sc : ep->constants)
      if (sc.name == key || std::to_string(sc.specId) == key) match = &sc;
    if (!match)
      return fail("sets constant \"" + std::string(key) + "\", which the shader does not declare.");
    uint32_t bits = 0;
    switch (match->kind) {
      case ShaderConstant::Kind::Bool: bits = c.value != 0 ? 1u : 0u; break;
      case ShaderConstant::Kind::I32: bits = static_cast<uint32_t>(static_cast<int32_t>(c.value)); break;
      case ShaderConstant::Kind::U32: bits = static_cast<uint32_t>(c.value); break;
      case ShaderConstant::Kind::F32: {
        const float f = static_cast<float>(c.value);
        std::memcpy(&bits, &f, 4);
        break;
      }
    }
    specEntries.push_back({match->specId, static_cast<uint32_t>(specData.size() * 4), 4});
    specData.push_back(bits);
  }
  // WebGPU: an override the entry point uses and that has no default must be set.
  for (const auto& sc : ep->constants) {
    if (!sc.required) continue;
    bool set = false;
    for (const auto& c : *constants)
      set = set || sc.name == std::string_view(c.key) || std::to_string(sc.specId) == std::string_view(c.key);
    if (!set)
      return fail("does not set override \"" + sc.name + "\" (id " + std::to_string(sc.specId) +
                  ") in compute.constants; it has no default value and entry point \"" + ep->name +
                  "\" uses it.");
  }
  // The value a specialization constant has in this pipeline, or `fallback` when not set.
  auto constantValue = [&](uint32_t specId, double fallback) {
    double value = fallback;
    for (const auto& c : *constants)
      for (const auto& sc : ep->constants)
        if (sc.specId == specId && (sc.name == std::string_view(c.key) ||
                                    std::to_string(sc.specId) == std::string_view(c.key)))
          value = c.value;
    return value;
  };

  // Workgroup size and storage, with the pipeline's overrides, against the device's limits.
  std::array<uint64_t, 3> wg;
  for (int d = 0; d < 3; ++d) {
    const double v = ep->workgroupSizeSpecIds[d] == kNoSpecId
                         ? ep->workgroupSize[d]
                         : constantValue(ep->workgroupSizeSpecIds[d], ep->workgroupSize[d]);
    wg[d] = v < 1 ? 0 : v > 4294967295.0 ? uint64_t{1} << 32 : static_cast<uint64_t>(v);
  }
  const std::string wgText = "workgroup size (" + std::to_string(wg[0]) + ", " +
                             std::to_string(wg[1]) + ", " + std::to_string(wg[2]) + ")";
  if (wg[0] == 0 || wg[1] == 0 || wg[2] == 0)
    return fail(wgText + " has a dimension below 1.");
  if (wg[0] > limits.maxComputeWorkgroupSizeX || wg[1] > limits.maxComputeWorkgroupSizeY ||
      wg[2] > limits.maxComputeWorkgroupSizeZ ||
      wg[0] * wg[1] * wg[2] > limits.maxComputeInvocationsPerWorkgroup)
    return fail(wgText + " exceeds the device limits (" +
                std::to_string(limits.maxComputeWorkgroupSizeX) + ", " +
                std::to_string(limits.maxComputeWorkgroupSizeY) + ", " +
                std::to_string(limits.maxComputeWorkgroupSizeZ) + "; " +
                std::to_string(limits.maxComputeInvocationsPerWorkgroup) + " invocations).");
  uint64_t workgroupBytes = ep->workgroupStorageBytes;
  for (const auto& a : ep->workgroupSpecArrays) {
    const double length = constantValue(a.specId, static_cast<double>(a.defaultLength));
    const uint64_t n = length < 0 ? 0 : length > 4294967295.0 ? uint64_t{1} << 32
                                                               : static_cast<uint64_t>(length);
    workgroupBytes = workgroupBytes - a.defaultLength * a.elementStride + n * a.elementStride;
  }
  if (workgroupBytes > limits.maxComputeWorkgroupStorageSize)
    return fail("uses " + std::to_string(workgroupBytes) +
                " bytes of workgroup storage, over maxComputeWorkgroupStorageSize (" +
                std::to_string(limits.maxComputeWorkgroupStorageSize) + ").");

  std::shared_ptr<PipelineLayoutImpl> layout = desc.layout.Get();
  if (layout) {
    if (!layout->IsValid()) return fail("uses " + layout->Name() + ", which is invalid.");
    if (layout->DevicePtr() != device) return fail("uses " + ForeignDeviceMessage(*layout, *device));
  } else {
    const std::string label{std::string_view(desc.label)};
    auto groups = AutoLayout(device, *ep, label);
    for (const auto& g : groups)
      if (!g->IsValid()) return fail("has an automatic layout that is invalid.");
    layout = PipelineLayoutImpl::Create(device, label + " auto layout", std::move(groups));
    if (!layout->IsValid()) return fail("has an automatic layout that is invalid.");
  }
  for (const auto& b : ep->bindings) {
    const std::string where = "binding (group " + std::to_string(b.group) + ", binding " +
                              std::to_string(b.binding) + ") \"" + b.name + "\"";
    if (b.group >= layout->Groups().size())
      return fail(where + " is not in " + layout->Name() + ", which has " +
                  std::to_string(layout->Groups().size()) + " groups.");
    const auto& group = layout->Groups()[b.group];
    const BindGroupLayoutEntry* e = group->Find(b.binding);
    if (!e) return fail(where + " is not in " + group->Name() + ".");
    if (!HasFlag(e->visibility, ShaderStage::Compute))
      return fail(where + " is not visible to the compute stage in " + group->Name() + ".");
    if (e->buffer.type != b.type)
      return fail(where + " is " + BindingTypeName(b.type) + " in the shader but " +
                  BindingTypeName(e->buffer.type) + " in " + group->Name() + ".");
    if (e->buffer.minBindingSize != 0 && e->buffer.minBindingSize < b.minBindingSize)
      return fail(where + " needs at least " + std::to_string(b.minBindingSize) +
                  " bytes, but its minBindingSize (" + std::to_string(e->buffer.minBindingSize) +
                  ") in " + group->Name() + " is smaller.");
    if (e->buffer.minBindingSize < b.minBindingSize)
      pipeline->lateMinSizes_.push_back({b.group, b.binding, b.minBindingSize});
  }

  auto build = std::make_unique<PipelineBuild>();
  build->pipeline = pipeline;
  build->module = module;
  build->layout = std::move(layout);
  build->entryPoint = ep->spirvName;
  build->vkModule = ep->module;
  build->specEntries = std::move(specEntries);
  build->specData = std::move(specData);
  return build;
}

void PipelineBuild::Build() {
  VkSpecializationInfo spec{};
  spec.mapEntryCount = static_cast<uint32_t>(specEntries.size());
  spec.pMapEntries = specEntries.data();
  spec.dataSize = specData.size() * 4;
  spec.pData = specData.data();
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = vkModule;
  info.stage.pName = entryPoint.c_str();
  info.stage.pSpecializationInfo = specEntries.empty() ? nullptr : &spec;
  info.layout = layout->Vk();
  DeviceImpl& device = pipeline->Device();
  // The pipeline cache is internally synchronized, so builds may run on several threads.
  result = vkCreateComputePipelines(device.Vk(), device.PipelineCache(), 1, &info, nullptr,
                                    &pipeline->pipeline_);
  if (result != VK_SUCCESS) {
    pipeline->pipeline_ = VK_NULL_HANDLE;
    pipeline->MarkInvalid();
    return;
  }
  pipeline->layout_ = layout;
}

std::string PipelineBuild::Failure() const {
  return pipeline->Name() + " " + VkFailure("vkCreateComputePipelines", result);
}

std::shared_ptr<BindGroupLayoutImpl> ComputePipelineImpl::GetBindGroupLayout(uint32_t index) {
  const Limits& limits = Device().GetLimits();
  std::string error;
  if (!IsValid()) {
    error = Name() + " is invalid.";
  } else if (index >= limits.maxBindGroups) {
    error = "Bind group layout index (" + std::to_string(index) + ") is not less than maxBindGroups (" +
            std::to_string(limits.maxBindGroups) + ").";
  }
  if (!error.empty()) {
    Device().HandleError(ErrorType::Validation,
                         error + "\n - While calling " + Name() + ".GetBindGroupLayout.");
    auto invalid = std::make_shared<BindGroupLayoutImpl>(device_, "");
    invalid->MarkInvalid();
    return invalid;
  }
  if (index < layout_->Groups().size()) return layout_->Groups()[index];
  return BindGroupLayoutImpl::Create(device_, {}, false);  // an unused group is empty
}

}  // namespace wgpu::detail
