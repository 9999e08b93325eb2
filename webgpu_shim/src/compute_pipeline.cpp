#include "compute_pipeline.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>

#include "descriptor_arrays.h"
#include "device.h"
#include "shader_module.h"
#include "vk_check.h"

namespace wgpu::detail {

namespace {

// `v` as IEEE binary16 bits, rounded to nearest even (WebGPU converts a pipeline constant to the
// override's type); nullopt past the largest finite f16 (65504: 65520 and up round to infinity).
std::optional<uint16_t> F16Bits(double v) {
  if (std::isnan(v)) return std::nullopt;
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  const double a = std::fabs(v);
  if (a >= 65520.0) return std::nullopt;
  if (a < std::ldexp(1.0, -14))  // subnormal (or the smallest normal, rounded up): units of 2^-24
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(std::ldexp(a, 24))));
  int e = 0;
  const double m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  double q = std::nearbyint(std::ldexp(m, 11));  // 11 significant bits, exact scaling
  if (q == 2048.0) q = 1024.0, ++e;
  return static_cast<uint16_t>(sign | ((e - 1 + 15) << 10) | (static_cast<uint16_t>(q) - 1024));
}

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
      case ShaderConstant::Kind::F16: {  // a 2-byte specialization constant
        const std::optional<uint16_t> h = F16Bits(c.value);
        if (!h)
          return fail("sets constant \"" + std::string(key) + "\" to " + std::to_string(c.value) +
                      ", which f16 cannot represent.");
        bits = *h;
        break;
      }
    }
    specEntries.push_back({match->specId, static_cast<uint32_t>(specData.size() * 4),
                           match->kind == ShaderConstant::Kind::F16 ? size_t{2} : size_t{4}});
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
  // Array counts and workgroup sizes that are override-expressions, computed as WGSL evaluates
  // them from the overrides' values (the pipeline's constant, else the default); each is a
  // specialization constant of its own. Every var<workgroup> count of the module is computed,
  // used by the entry point or not.
  std::map<uint32_t, int64_t> computedCounts;  // by SpecId
  for (const wgsl::ComputedCount& k : ep->computedCounts) {
    const auto overrideValue = [&](uint32_t id) -> std::optional<double> {
      for (const auto& o : ep->overrides) {
        if (o.specId != id) continue;
        for (const auto& c : *constants)
          if (o.name == std::string_view(c.key) || std::to_string(id) == std::string_view(c.key))
            return c.value;
        return o.defaultValue;
      }
      return std::nullopt;
    };
    for (const std::string& token : k.program) {  // an override neither set nor defaulted
      if (token.empty() || token[0] != 'o') continue;
      const uint32_t id = static_cast<uint32_t>(std::strtoul(token.c_str() + 1, nullptr, 10));
      if (overrideValue(id)) continue;
      std::string name = std::to_string(id);
      for (const auto& o : ep->overrides)
        if (o.specId == id) name = o.name;
      return fail("does not set override \"" + name + "\" (id " + std::to_string(id) +
                  ") in compute.constants; it has no default value and the override-expression '" +
                  k.text + "' uses it.");
    }
    const wgsl::CountValue v = wgsl::evaluateCount(k, overrideValue);
    if (!v.value) return fail("cannot evaluate the override-expression " + v.error + ".");
    computedCounts[k.id] = *v.value;
    specEntries.push_back({k.id, static_cast<uint32_t>(specData.size() * 4), 4});
    specData.push_back(static_cast<uint32_t>(*v.value));
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
  // An override's size falls back to its WGSL default, which the SPIR-V's replaces when it is no
  // valid size (the translator cannot write it there): WebGPU checks it here, not earlier.
  std::array<double, 3> size;
  std::array<const ShaderConstant*, 3> sizeOverride{};
  for (int d = 0; d < 3; ++d) {
    size[d] = ep->workgroupSize[d];
    if (ep->workgroupSizeSpecIds[d] == kNoSpecId) continue;
    if (auto k = computedCounts.find(ep->workgroupSizeSpecIds[d]); k != computedCounts.end()) {
      size[d] = static_cast<double>(k->second);  // an override-expression's value
      continue;
    }
    for (const auto& sc : ep->constants)
      if (sc.specId == ep->workgroupSizeSpecIds[d]) sizeOverride[d] = &sc;
    const double fallback = sizeOverride[d] && sizeOverride[d]->wgslDefault
                                ? *sizeOverride[d]->wgslDefault
                                : ep->workgroupSize[d];
    size[d] = constantValue(ep->workgroupSizeSpecIds[d], fallback);
  }
  std::array<uint64_t, 3> wg;
  for (int d = 0; d < 3; ++d)
    wg[d] = size[d] < 1                ? 0
            : size[d] > 4294967295.0 ? uint64_t{1} << 32
                                     : static_cast<uint64_t>(size[d]);
  const std::string wgText = "workgroup size (" + std::to_string(wg[0]) + ", " +
                             std::to_string(wg[1]) + ", " + std::to_string(wg[2]) + ")";
  const std::array<uint64_t, 3> maxSize{limits.maxComputeWorkgroupSizeX,
                                        limits.maxComputeWorkgroupSizeY,
                                        limits.maxComputeWorkgroupSizeZ};
  for (int d = 0; d < 3; ++d) {
    if (!sizeOverride[d] || (wg[d] >= 1 && wg[d] <= maxSize[d])) continue;
    const std::string axis(1, "xyz"[d]);
    std::string value = std::to_string(size[d]);
    value.erase(value.find_last_not_of('0') + 1);  // 9999.000000 -> 9999
    if (value.back() == '.') value.pop_back();
    return fail(wgText + ": override \"" + sizeOverride[d]->name + "\" sets workgroup size " +
                axis + " to " + value + ", which is " +
                (wg[d] < 1 ? std::string("below 1")
                           : "over maxComputeWorkgroupSize" +
                                 std::string(1, static_cast<char>('X' + d)) + " (" +
                                 std::to_string(maxSize[d]) + ")") +
                ".");
  }
  if (wg[0] == 0 || wg[1] == 0 || wg[2] == 0)
    return fail(wgText + " has a dimension below 1.");
  if (wg[0] > maxSize[0] || wg[1] > maxSize[1] || wg[2] > maxSize[2] ||
      wg[0] * wg[1] * wg[2] > limits.maxComputeInvocationsPerWorkgroup)
    return fail(wgText + " exceeds the device limits (" + std::to_string(maxSize[0]) + ", " +
                std::to_string(maxSize[1]) + ", " + std::to_string(maxSize[2]) + "; " +
                std::to_string(limits.maxComputeInvocationsPerWorkgroup) + " invocations).");
  uint64_t workgroupBytes = ep->workgroupStorageBytes;
  for (const auto& a : ep->workgroupSpecArrays) {
    const auto computed = computedCounts.find(a.specId);
    const double length = computed != computedCounts.end()
                              ? static_cast<double>(computed->second)
                              : constantValue(a.specId, static_cast<double>(a.defaultLength));
    if (length < 1) {  // WGSL: an array count must be greater than 0
      std::string name = std::to_string(a.specId);
      for (const auto& sc : ep->constants)
        if (sc.specId == a.specId) name = sc.name;
      return fail("sizes a var<workgroup> array by override \"" + name + "\" = " +
                  std::to_string(static_cast<int64_t>(length)) +
                  "; an array count must be greater than 0.");
    }
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
