// The standard C API: instance, adapter, device requests, and what the c_api files share.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "c_api.h"
#include "device.h"
#include "instance.h"

namespace wgpu::capi {

void NullArgument(const char* function, const char* argument) {
  std::fprintf(stderr, "webgpu.h: %s: %s is null; the call does nothing.\n", function, argument);
}

std::string CheckChain(const WGPUChainedStruct* chain, const char* owner,
                       std::initializer_list<WGPUSType> accepted) {
  for (const WGPUChainedStruct* c = chain; c; c = c->next) {
    bool ok = false;
    for (WGPUSType t : accepted) ok = ok || c->sType == t;
    if (ok) continue;
    char type[16];
    std::snprintf(type, sizeof type, "0x%08X", static_cast<unsigned>(c->sType));
    return std::string(owner) + ".nextInChain holds a struct of sType " + type +
           ", which this implementation does not support there.";
  }
  return {};
}

void ValidationError(const Device& device, const std::string& message) {
  device.Get()->HandleError(ErrorType::Validation, message);
}

bool ValidCallbackMode(WGPUCallbackMode mode, const char* function) {
  if (mode >= WGPUCallbackMode_WaitAnyOnly && mode <= WGPUCallbackMode_AllowSpontaneous)
    return true;
  std::fprintf(stderr,
               "webgpu.h: %s: invalid callback mode %u (WGPUCallbackMode_WaitAnyOnly, "
               "AllowProcessEvents or AllowSpontaneous); the callback will not be called.\n",
               function, static_cast<unsigned>(mode));
  return false;
}

// Every member of WGPULimits / wgpu::Limits after nextInChain, in order.
// clang-format off
#define WGPU_CAPI_LIMITS(X) \
  X(maxTextureDimension1D) X(maxTextureDimension2D) X(maxTextureDimension3D) \
  X(maxTextureArrayLayers) X(maxBindGroups) X(maxBindGroupsPlusVertexBuffers) \
  X(maxBindingsPerBindGroup) X(maxDynamicUniformBuffersPerPipelineLayout) \
  X(maxDynamicStorageBuffersPerPipelineLayout) \
  X(maxSampledTexturesPerShaderStage) X(maxSamplersPerShaderStage) \
  X(maxStorageBuffersPerShaderStage) X(maxStorageTexturesPerShaderStage) \
  X(maxUniformBuffersPerShaderStage) X(maxUniformBufferBindingSize) \
  X(maxStorageBufferBindingSize) X(minUniformBufferOffsetAlignment) \
  X(minStorageBufferOffsetAlignment) X(maxVertexBuffers) X(maxBufferSize) \
  X(maxVertexAttributes) X(maxVertexBufferArrayStride) X(maxInterStageShaderVariables) \
  X(maxColorAttachments) X(maxColorAttachmentBytesPerSample) X(maxComputeWorkgroupStorageSize) \
  X(maxComputeInvocationsPerWorkgroup) X(maxComputeWorkgroupSizeX) X(maxComputeWorkgroupSizeY) \
  X(maxComputeWorkgroupSizeZ) X(maxComputeWorkgroupsPerDimension) X(maxImmediateSize)
// clang-format on

namespace {

Limits ToCpp(const WGPULimits& c) {
  Limits l;
#define WGPU_CAPI_COPY(name) l.name = c.name;
  WGPU_CAPI_LIMITS(WGPU_CAPI_COPY)
#undef WGPU_CAPI_COPY
  return l;
}

// Fills `out` (keeping its chain, which must be empty: the shim fills no chained outputs).
WGPUStatus FillLimits(const Limits& l, WGPULimits* out) {
  if (!out || out->nextInChain) return WGPUStatus_Error;
#define WGPU_CAPI_COPY(name) out->name = l.name;
  WGPU_CAPI_LIMITS(WGPU_CAPI_COPY)
#undef WGPU_CAPI_COPY
  return WGPUStatus_Success;
}

// The strings of `info` copied into one allocation that the application owns (freed by
// wgpuAdapterInfoFreeMembers through `vendor.data`).
WGPUStatus FillInfo(const AdapterInfo& info, WGPUAdapterInfo* out) {
  if (!out || out->nextInChain) return WGPUStatus_Error;
  const std::string_view parts[] = {info.vendor, info.architecture, info.device, info.description};
  size_t total = 0;
  for (auto p : parts) total += p.size() + 1;
  char* block = static_cast<char*>(std::malloc(total));
  if (!block) return WGPUStatus_Error;
  WGPUStringView* views[] = {&out->vendor, &out->architecture, &out->device, &out->description};
  char* at = block;
  for (size_t i = 0; i < 4; ++i) {
    std::memcpy(at, parts[i].data(), parts[i].size());
    at[parts[i].size()] = '\0';
    *views[i] = WGPUStringView{at, parts[i].size()};
    at += parts[i].size() + 1;
  }
  out->backendType = static_cast<WGPUBackendType>(info.backendType);
  out->adapterType = static_cast<WGPUAdapterType>(info.adapterType);
  out->vendorID = info.vendorID;
  out->deviceID = info.deviceID;
  out->subgroupMinSize = info.subgroupMinSize;
  out->subgroupMaxSize = info.subgroupMaxSize;
  return WGPUStatus_Success;
}

constexpr WGPUInstanceFeatureName kInstanceFeatures[] = {
    WGPUInstanceFeatureName_TimedWaitAny, WGPUInstanceFeatureName_ShaderSourceSPIRV,
    WGPUInstanceFeatureName_MultipleDevicesPerAdapter};

}  // namespace

void FillSupportedFeatures(const SupportedFeatures& features, WGPUSupportedFeatures* out) {
  out->featureCount = 0;
  out->features = nullptr;
  if (features.featureCount == 0) return;
  auto* list =
      static_cast<WGPUFeatureName*>(std::malloc(features.featureCount * sizeof(WGPUFeatureName)));
  if (!list) return;
  for (size_t i = 0; i < features.featureCount; ++i)
    list[i] = static_cast<WGPUFeatureName>(features.features[i]);
  out->features = list;
  out->featureCount = features.featureCount;
}

WGPUStatus GetDeviceLimits(const Device& device, WGPULimits* out) {
  Limits l;
  device.GetLimits(&l);
  return FillLimits(l, out);
}

WGPUStatus GetDeviceAdapterInfo(const Device& device, WGPUAdapterInfo* out) {
  return FillInfo(device.Get()->Adapter()->Info(), out);
}

}  // namespace wgpu::capi

using namespace wgpu;
using namespace wgpu::capi;

// ---- Global functions ----

WGPUInstance wgpuCreateInstance(const WGPUInstanceDescriptor* descriptor) {
  InstanceDescriptor desc;
  std::vector<InstanceFeatureName> features;
  InstanceLimits limits;
  if (descriptor) {
    if (std::string e = CheckChain(descriptor->nextInChain, "WGPUInstanceDescriptor"); !e.empty()) {
      std::fprintf(stderr, "webgpu.h: wgpuCreateInstance: %s\n", e.c_str());
      return nullptr;
    }
    if (descriptor->requiredFeatures)
      for (size_t i = 0; i < descriptor->requiredFeatureCount; ++i)
        features.push_back(static_cast<InstanceFeatureName>(descriptor->requiredFeatures[i]));
    desc.requiredFeatureCount = descriptor->requiredFeatureCount;
    desc.requiredFeatures = descriptor->requiredFeatures ? features.data() : nullptr;
    if (descriptor->requiredLimits) {
      if (descriptor->requiredLimits->nextInChain) return nullptr;
      limits.timedWaitAnyMaxCount = descriptor->requiredLimits->timedWaitAnyMaxCount;
      desc.requiredLimits = &limits;
    }
  }
  return Wrap<WGPUInstanceImpl>(CreateInstance(&desc));
}

void wgpuGetInstanceFeatures(WGPUSupportedInstanceFeatures* features) {
  if (!features) return NullArgument("wgpuGetInstanceFeatures", "features");
  auto* list = static_cast<WGPUInstanceFeatureName*>(std::malloc(sizeof kInstanceFeatures));
  if (list) std::memcpy(list, kInstanceFeatures, sizeof kInstanceFeatures);
  features->features = list;
  features->featureCount = list ? std::size(kInstanceFeatures) : 0;
}

WGPUStatus wgpuGetInstanceLimits(WGPUInstanceLimits* limits) {
  if (!limits || limits->nextInChain) return WGPUStatus_Error;
  InstanceLimits l;
  if (GetInstanceLimits(&l) != Status::Success) return WGPUStatus_Error;
  limits->timedWaitAnyMaxCount = l.timedWaitAnyMaxCount;
  return WGPUStatus_Success;
}

WGPUBool wgpuHasInstanceFeature(WGPUInstanceFeatureName feature) {
  return HasInstanceFeature(static_cast<InstanceFeatureName>(feature)) ? WGPU_TRUE : WGPU_FALSE;
}

void wgpuSupportedInstanceFeaturesFreeMembers(WGPUSupportedInstanceFeatures features) {
  std::free(const_cast<WGPUInstanceFeatureName*>(features.features));
}

void wgpuSupportedFeaturesFreeMembers(WGPUSupportedFeatures features) {
  std::free(const_cast<WGPUFeatureName*>(features.features));
}

void wgpuAdapterInfoFreeMembers(WGPUAdapterInfo info) {
  std::free(const_cast<char*>(info.vendor.data));
}

// ---- Instance ----

WGPUFuture wgpuInstanceRequestAdapter(WGPUInstance instance,
                                      const WGPURequestAdapterOptions* options,
                                      WGPURequestAdapterCallbackInfo info) {
  if (!instance) return NullArgument("wgpuInstanceRequestAdapter", "instance"), WGPUFuture{0};
  if (!ValidCallbackMode(info.mode, "wgpuInstanceRequestAdapter")) return WGPUFuture{0};
  RequestAdapterOptions opts;
  std::string error;
  if (options) {
    error = CheckChain(options->nextInChain, "WGPURequestAdapterOptions");
    if (error.empty() && options->compatibleSurface)
      error = "WGPURequestAdapterOptions.compatibleSurface is set, but surfaces are not supported.";
    opts.featureLevel = static_cast<FeatureLevel>(options->featureLevel);
    opts.powerPreference = static_cast<PowerPreference>(options->powerPreference);
    opts.forceFallbackAdapter = options->forceFallbackAdapter != 0;
    opts.backendType = static_cast<BackendType>(options->backendType);
  }
  if (!error.empty()) {
    return ToC(instance->handle.Get()->Events().Track(ToCpp(info.mode), nullptr, 0, [info, error] {
      if (info.callback)
        info.callback(WGPURequestAdapterStatus_Error, nullptr, ToC(std::string_view(error)),
                      info.userdata1, info.userdata2);
    }));
  }
  return ToC(instance->handle.RequestAdapter(
      &opts, ToCpp(info.mode),
      [info](RequestAdapterStatus status, Adapter adapter, StringView message) {
        if (!info.callback) return;
        info.callback(static_cast<WGPURequestAdapterStatus>(status),
                      Wrap<WGPUAdapterImpl>(std::move(adapter)), ToC(message), info.userdata1,
                      info.userdata2);
      }));
}

void wgpuInstanceProcessEvents(WGPUInstance instance) {
  if (!instance) return NullArgument("wgpuInstanceProcessEvents", "instance");
  instance->handle.ProcessEvents();
}

WGPUWaitStatus wgpuInstanceWaitAny(WGPUInstance instance, size_t futureCount,
                                   WGPUFutureWaitInfo* futures, uint64_t timeoutNS) {
  if (!instance) return NullArgument("wgpuInstanceWaitAny", "instance"), WGPUWaitStatus_Error;
  if (futureCount > 0 && !futures) return WGPUWaitStatus_Error;
  std::vector<FutureWaitInfo> infos(futureCount);
  for (size_t i = 0; i < futureCount; ++i) infos[i].future.id = futures[i].future.id;
  const WaitStatus status = instance->handle.WaitAny(futureCount, infos.data(), timeoutNS);
  for (size_t i = 0; i < futureCount; ++i)
    futures[i].completed = infos[i].completed ? WGPU_TRUE : WGPU_FALSE;
  return static_cast<WGPUWaitStatus>(status);
}

void wgpuInstanceAddRef(WGPUInstance instance) {
  AddRef(instance, "wgpuInstanceAddRef");
}
void wgpuInstanceRelease(WGPUInstance instance) {
  Release(instance, "wgpuInstanceRelease");
}

// ---- Adapter ----

WGPUStatus wgpuAdapterGetLimits(WGPUAdapter adapter, WGPULimits* limits) {
  if (!adapter) return NullArgument("wgpuAdapterGetLimits", "adapter"), WGPUStatus_Error;
  Limits l;
  adapter->handle.GetLimits(&l);
  return FillLimits(l, limits);
}

WGPUStatus wgpuAdapterGetInfo(WGPUAdapter adapter, WGPUAdapterInfo* info) {
  if (!adapter) return NullArgument("wgpuAdapterGetInfo", "adapter"), WGPUStatus_Error;
  AdapterInfo i;
  adapter->handle.GetInfo(&i);
  return FillInfo(i, info);
}

WGPUBool wgpuAdapterHasFeature(WGPUAdapter adapter, WGPUFeatureName feature) {
  if (!adapter) return NullArgument("wgpuAdapterHasFeature", "adapter"), WGPU_FALSE;
  return adapter->handle.HasFeature(static_cast<FeatureName>(feature)) ? WGPU_TRUE : WGPU_FALSE;
}

void wgpuAdapterGetFeatures(WGPUAdapter adapter, WGPUSupportedFeatures* features) {
  if (!adapter) return NullArgument("wgpuAdapterGetFeatures", "adapter");
  if (!features) return NullArgument("wgpuAdapterGetFeatures", "features");
  SupportedFeatures list;
  adapter->handle.GetFeatures(&list);
  FillSupportedFeatures(list, features);
}

WGPUFuture wgpuAdapterRequestDevice(WGPUAdapter adapter, const WGPUDeviceDescriptor* descriptor,
                                    WGPURequestDeviceCallbackInfo info) {
  if (!adapter) return NullArgument("wgpuAdapterRequestDevice", "adapter"), WGPUFuture{0};
  if (!ValidCallbackMode(info.mode, "wgpuAdapterRequestDevice")) return WGPUFuture{0};
  auto callbacks = std::make_shared<DeviceCallbacks>();
  DeviceDescriptor desc;
  std::vector<FeatureName> features;
  Limits limits;
  std::string error;
  if (descriptor) {
    error = CheckChain(descriptor->nextInChain, "WGPUDeviceDescriptor");
    if (error.empty())
      error = CheckChain(descriptor->defaultQueue.nextInChain, "WGPUDeviceDescriptor.defaultQueue");
    if (error.empty() && descriptor->requiredLimits)
      error = CheckChain(descriptor->requiredLimits->nextInChain,
                         "WGPUDeviceDescriptor.requiredLimits");
    desc.label = ToCpp(descriptor->label);
    if (descriptor->requiredFeatures)
      for (size_t i = 0; i < descriptor->requiredFeatureCount; ++i)
        features.push_back(static_cast<FeatureName>(descriptor->requiredFeatures[i]));
    desc.requiredFeatureCount = descriptor->requiredFeatureCount;
    desc.requiredFeatures = descriptor->requiredFeatures ? features.data() : nullptr;
    if (descriptor->requiredLimits) {
      limits = ToCpp(*descriptor->requiredLimits);
      desc.requiredLimits = &limits;
    }
    desc.defaultQueue.label = ToCpp(descriptor->defaultQueue.label);
    if (descriptor->deviceLostCallbackInfo.callback &&
        ValidCallbackMode(descriptor->deviceLostCallbackInfo.mode,
                          "wgpuAdapterRequestDevice (deviceLostCallbackInfo)"))
      callbacks->lost = descriptor->deviceLostCallbackInfo;
    callbacks->uncaptured = descriptor->uncapturedErrorCallbackInfo;
  }
  if (callbacks->lost.callback) {
    desc.SetDeviceLostCallback(
        ToCpp(callbacks->lost.mode),
        [callbacks](const Device&, DeviceLostReason reason, StringView message) {
          WGPUDevice self = callbacks->self.load();
          callbacks->lost.callback(&self, static_cast<WGPUDeviceLostReason>(reason), ToC(message),
                                   callbacks->lost.userdata1, callbacks->lost.userdata2);
        });
  }
  if (callbacks->uncaptured.callback) {
    desc.SetUncapturedErrorCallback([callbacks](const Device&, ErrorType type, StringView message) {
      WGPUDevice self = callbacks->self.load();
      callbacks->uncaptured.callback(&self, static_cast<WGPUErrorType>(type), ToC(message),
                                     callbacks->uncaptured.userdata1,
                                     callbacks->uncaptured.userdata2);
    });
  }
  // A device that is not created is lost at once (FailedCreation, with a null device), then
  // the request fails.
  auto complete = [info, callbacks](RequestDeviceStatus status, Device device, StringView message) {
    WGPUDevice result = nullptr;
    if (status == RequestDeviceStatus::Success) {
      if (!info.callback) return;  // nobody would own it
      result = new WGPUDeviceImpl(std::move(device), callbacks);
      callbacks->self = result;
    } else if (callbacks->lost.callback) {
      WGPUDevice none = nullptr;
      callbacks->lost.callback(&none, WGPUDeviceLostReason_FailedCreation, ToC(message),
                               callbacks->lost.userdata1, callbacks->lost.userdata2);
    }
    if (info.callback)
      info.callback(static_cast<WGPURequestDeviceStatus>(status), result, ToC(message),
                    info.userdata1, info.userdata2);
  };
  if (!error.empty()) {
    return ToC(adapter->handle.Get()->Instance()->Events().Track(
        ToCpp(info.mode), nullptr, 0,
        [complete, error] { complete(RequestDeviceStatus::Error, Device(), StringView(error)); }));
  }
  return ToC(adapter->handle.RequestDevice(&desc, ToCpp(info.mode), complete));
}

void wgpuAdapterAddRef(WGPUAdapter adapter) {
  AddRef(adapter, "wgpuAdapterAddRef");
}
void wgpuAdapterRelease(WGPUAdapter adapter) {
  Release(adapter, "wgpuAdapterRelease");
}
