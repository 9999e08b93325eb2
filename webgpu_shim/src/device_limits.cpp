#include "device_limits.h"

#include <algorithm>

namespace wgpu::detail {

namespace {

template <typename T>
bool IsUndefined(T v) {
  return v == static_cast<T>(~T{0});
}

template <typename T>
std::string ResolveMaximum(const char* name, T adapter, T def, T required, T* out) {
  if (IsUndefined(required)) {
    *out = std::min(def, adapter);
    return {};
  }
  if (required > adapter)
    return std::string("requiredLimits.") + name + " (" + std::to_string(required) +
           ") exceeds the adapter's limit (" + std::to_string(adapter) + ")";
  *out = std::max(required, std::min(def, adapter));
  return {};
}

template <typename T>
std::string ResolveAlignment(const char* name, T adapter, T def, T required, T* out) {
  if (IsUndefined(required)) {
    *out = std::max(def, adapter);
    return {};
  }
  if (required == 0 || (required & (required - 1)) != 0)
    return std::string("requiredLimits.") + name + " (" + std::to_string(required) +
           ") is not a power of two";
  if (required < adapter)
    return std::string("requiredLimits.") + name + " (" + std::to_string(required) +
           ") is better than the adapter's alignment (" + std::to_string(adapter) + ")";
  *out = required;
  return {};
}

}  // namespace

std::string ResolveLimits(const Limits& adapter, const Limits* required, Limits* out) {
  const Limits none;
  const Limits& req = required ? *required : none;
  const Limits def = DefaultLimits();
  std::string e;
#define TG_MAX(f) \
  if (e.empty()) e = ResolveMaximum(#f, adapter.f, def.f, req.f, &out->f);
#define TG_ALIGN(f) \
  if (e.empty()) e = ResolveAlignment(#f, adapter.f, def.f, req.f, &out->f);
  TG_MAX(maxBindGroups)
  TG_MAX(maxBindingsPerBindGroup)
  TG_MAX(maxStorageBuffersPerShaderStage)
  TG_MAX(maxUniformBuffersPerShaderStage)
  TG_MAX(maxUniformBufferBindingSize)
  TG_MAX(maxStorageBufferBindingSize)
  TG_ALIGN(minUniformBufferOffsetAlignment)
  TG_ALIGN(minStorageBufferOffsetAlignment)
  TG_MAX(maxBufferSize)
  TG_MAX(maxComputeWorkgroupStorageSize)
  TG_MAX(maxComputeInvocationsPerWorkgroup)
  TG_MAX(maxComputeWorkgroupSizeX)
  TG_MAX(maxComputeWorkgroupSizeY)
  TG_MAX(maxComputeWorkgroupSizeZ)
  TG_MAX(maxComputeWorkgroupsPerDimension)
  // The render and texture limits sit at WebGPU's defaults on the adapter (adapter.cpp),
  // immediates at 0: above those, a request fails.
  TG_MAX(maxTextureDimension1D)
  TG_MAX(maxTextureDimension2D)
  TG_MAX(maxTextureDimension3D)
  TG_MAX(maxTextureArrayLayers)
  TG_MAX(maxBindGroupsPlusVertexBuffers)
  TG_MAX(maxDynamicUniformBuffersPerPipelineLayout)
  TG_MAX(maxDynamicStorageBuffersPerPipelineLayout)
  TG_MAX(maxSampledTexturesPerShaderStage)
  TG_MAX(maxSamplersPerShaderStage)
  TG_MAX(maxStorageTexturesPerShaderStage)
  TG_MAX(maxVertexBuffers)
  TG_MAX(maxVertexAttributes)
  TG_MAX(maxVertexBufferArrayStride)
  TG_MAX(maxInterStageShaderVariables)
  TG_MAX(maxColorAttachments)
  TG_MAX(maxColorAttachmentBytesPerSample)
  TG_MAX(maxImmediateSize)
#undef TG_MAX
#undef TG_ALIGN
  return e;
}

}  // namespace wgpu::detail
