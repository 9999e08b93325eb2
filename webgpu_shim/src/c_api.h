// The standard C API (<webgpu/webgpu.h>) over the C++ objects: what the c_api_*.cpp files
// share. Each WGPUx handle points to a small heap object holding the C++ handle and the count
// of the application's references; validation and error routing stay in the C++ layer, and
// this layer adds only what C needs on top (null checks, struct chains, conversions, ownership).
#pragma once

#include <webgpu/webgpu.h>
#include <webgpu/webgpu_cpp.h>

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace wgpu::capi {

// A C object: the C++ handle and the application's references (AddRef / Release).
template <typename Handle>
struct Object {
  explicit Object(Handle h) : handle(std::move(h)) {}
  std::atomic<uint64_t> refs{1};
  Handle handle;
};

// The C callbacks of a device's descriptor, shared by the C device and the C++ device's
// callbacks. `self` is the C device, null before it exists and once its last reference is
// released (the lost callback then sees a null device, as webgpu.h specifies).
struct DeviceCallbacks {
  WGPUDeviceLostCallbackInfo lost = WGPU_DEVICE_LOST_CALLBACK_INFO_INIT;
  WGPUUncapturedErrorCallbackInfo uncaptured = WGPU_UNCAPTURED_ERROR_CALLBACK_INFO_INIT;
  std::atomic<WGPUDevice> self{nullptr};
};

}  // namespace wgpu::capi

struct WGPUInstanceImpl : wgpu::capi::Object<wgpu::Instance> {
  using Object::Object;
};
struct WGPUAdapterImpl : wgpu::capi::Object<wgpu::Adapter> {
  using Object::Object;
};
struct WGPUQueueImpl : wgpu::capi::Object<wgpu::Queue> {
  using Object::Object;
};
struct WGPUDeviceImpl : wgpu::capi::Object<wgpu::Device> {
  WGPUDeviceImpl(wgpu::Device device, std::shared_ptr<wgpu::capi::DeviceCallbacks> cbs)
      : Object(std::move(device)), callbacks(std::move(cbs)) {}
  std::shared_ptr<wgpu::capi::DeviceCallbacks> callbacks;
  WGPUQueue queue = nullptr;  // made on first GetQueue; the device holds one reference to it
};
struct WGPUBufferImpl : wgpu::capi::Object<wgpu::Buffer> {
  using Object::Object;
};
struct WGPUShaderModuleImpl : wgpu::capi::Object<wgpu::ShaderModule> {
  using Object::Object;
};
struct WGPUBindGroupLayoutImpl : wgpu::capi::Object<wgpu::BindGroupLayout> {
  using Object::Object;
};
struct WGPUPipelineLayoutImpl : wgpu::capi::Object<wgpu::PipelineLayout> {
  using Object::Object;
};
struct WGPUBindGroupImpl : wgpu::capi::Object<wgpu::BindGroup> {
  using Object::Object;
};
struct WGPUComputePipelineImpl : wgpu::capi::Object<wgpu::ComputePipeline> {
  using Object::Object;
};
struct WGPUCommandEncoderImpl : wgpu::capi::Object<wgpu::CommandEncoder> {
  using Object::Object;
};
struct WGPUComputePassEncoderImpl : wgpu::capi::Object<wgpu::ComputePassEncoder> {
  using Object::Object;
};
struct WGPUCommandBufferImpl : wgpu::capi::Object<wgpu::CommandBuffer> {
  using Object::Object;
};
struct WGPUQuerySetImpl : wgpu::capi::Object<wgpu::QuerySet> {
  using Object::Object;
};

namespace wgpu::capi {

// A new C object for `handle` (null for a null handle), holding one reference.
template <typename C, typename Handle>
C* Wrap(Handle handle) {
  return handle ? new C(std::move(handle)) : nullptr;
}

// The C++ handle of a C object (a null handle for null).
template <typename C>
auto Unwrap(const C* object) -> decltype(object->handle) {
  return object ? object->handle : decltype(object->handle)();
}

// A call that needs an object got null and has no device to report it to: the message goes
// to stderr, naming the function and the argument, and the call does nothing.
void NullArgument(const char* function, const char* argument);

template <typename C>
void AddRef(C* object, const char* function) {
  if (!object) return NullArgument(function, "the object");
  object->refs.fetch_add(1, std::memory_order_relaxed);
}
template <typename C>
void Release(C* object, const char* function) {
  if (!object) return NullArgument(function, "the object");
  if (object->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete object;
}

inline StringView ToCpp(WGPUStringView s) {
  return StringView(s.data, s.length);
}
inline WGPUStringView ToC(StringView s) {
  return WGPUStringView{s.data, s.length};
}
inline WGPUStringView ToC(std::string_view s) {
  return WGPUStringView{s.data(), s.size()};
}

// Empty when every struct chained to `chain` has one of the `accepted` types; otherwise the
// validation message for the first that does not ("<owner>.nextInChain holds ...").
std::string CheckChain(const WGPUChainedStruct* chain, const char* owner,
                       std::initializer_list<WGPUSType> accepted = {});

// Reports a validation error to `device`'s error scopes / uncaptured-error callback.
void ValidationError(const Device& device, const std::string& message);

// An invalid object made after its error was already reported: `create` runs with its own
// validation errors captured (they would repeat the reported one) and its result is marked
// invalid, so whatever uses it fails as WebGPU's error objects do.
template <typename Handle, typename F>
Handle ErrorObject(const Device& device, F create) {
  device.PushErrorScope(ErrorFilter::Validation);
  Handle h = create();
  device.PopErrorScope(CallbackMode::AllowSpontaneous,
                       [](PopErrorScopeStatus, ErrorType, StringView) {});
  if (h) h.Get()->MarkInvalid();
  return h;
}

// Callback modes outside WGPUCallbackMode's values are refused as Dawn refuses them: the
// message goes to stderr and the call returns a null future without calling back.
bool ValidCallbackMode(WGPUCallbackMode mode, const char* function);
inline CallbackMode ToCpp(WGPUCallbackMode mode) {
  return static_cast<CallbackMode>(mode);
}
inline WGPUFuture ToC(Future f) {
  return WGPUFuture{f.id};
}

// GetLimits / GetAdapterInfo of a device, into the application's out-structs.
WGPUStatus GetDeviceLimits(const Device& device, WGPULimits* out);
WGPUStatus GetDeviceAdapterInfo(const Device& device, WGPUAdapterInfo* out);
// A copy of `features` in memory wgpuSupportedFeaturesFreeMembers frees.
void FillSupportedFeatures(const SupportedFeatures& features, WGPUSupportedFeatures* out);

// The C++ descriptor of a compute pipeline (shared by the sync and async creations); `error`
// gets the first problem only the C layer sees (a struct chained where none is supported).
ComputePipelineDescriptor ToCpp(const WGPUComputePipelineDescriptor& d,
                                std::vector<ConstantEntry>* constants, std::string* error);

}  // namespace wgpu::capi
