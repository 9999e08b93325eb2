// The WebGPU compute API, source-compatible with Dawn's webgpu_cpp.h (2025, the callback-mode
// API), implemented over Vulkan.
//
// Types, member names, member order and field shapes follow Dawn's, so that Dawn code compiles
// unchanged, designated initializers included: strings are StringView (data + length), arrays
// are a count and a pointer that must stay valid while the call runs (the shim copies what it
// keeps), descriptors start with nextInChain, chained structs (ShaderSourceWGSL, ...) have an
// Init form (`wgpu::ShaderSourceWGSL wgsl{{.code = src}}`). Members of Dawn's structs that belong
// to features outside compute (textures, samplers, render passes, surfaces) are left out, so code
// that names them does not compile here.
//
// Handles (Instance, Adapter, Device, Buffer, ...) are cheap value types with shared ownership; a
// default-constructed handle is null. Async operations take a CallbackMode and a callback (a
// lambda with Dawn's signature, or a function and a typed userdata) and return a Future;
// callbacks run inside Instance::ProcessEvents / Instance::WaitAny (or at once, for
// AllowSpontaneous, when the result is already known). Errors follow WebGPU: a failed call
// reports a validation / out-of-memory / internal error to the device's error scopes (or the
// uncaptured-error callback) and returns an invalid object that poisons whatever uses it. Only
// programming errors that WebGPU itself cannot express (calling a method on a null handle) throw
// std::logic_error.
//
// Threading: a Device and the objects made from it are used from one thread at a time, as with
// Dawn's native API without implicit device synchronization.
//
// Extensions of the shim (not in Dawn) are marked "Shim extension"; they are trailing members or
// extra functions, so they never disturb Dawn's member order.
#pragma once

#include <cassert>  // Dawn's header brings these in, and programs rely on them
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace wgpu {

inline constexpr size_t kStrlen = SIZE_MAX;
inline constexpr uint64_t kWholeSize = UINT64_MAX;
inline constexpr size_t kWholeMapSize = SIZE_MAX;
inline constexpr uint32_t kLimitU32Undefined = UINT32_MAX;
inline constexpr uint64_t kLimitU64Undefined = UINT64_MAX;
inline constexpr uint32_t kQuerySetIndexUndefined = UINT32_MAX;

// ---- Enums (Dawn's names and values) ----

enum class Status : uint32_t { Success = 1, Error = 2 };
enum class WaitStatus : uint32_t { Success = 1, TimedOut = 2, Error = 3 };
enum class CallbackMode : uint32_t {
  WaitAnyOnly = 1,
  AllowProcessEvents = 2,
  AllowSpontaneous = 3
};
enum class MapAsyncStatus : uint32_t { Success = 1, CallbackCancelled = 2, Error = 3, Aborted = 4 };
enum class PopErrorScopeStatus : uint32_t { Success = 1, CallbackCancelled = 2, Error = 3 };
enum class RequestAdapterStatus : uint32_t {
  Success = 1,
  CallbackCancelled = 2,
  Unavailable = 3,
  Error = 4
};
enum class RequestDeviceStatus : uint32_t { Success = 1, CallbackCancelled = 2, Error = 3 };
enum class QueueWorkDoneStatus : uint32_t { Success = 1, CallbackCancelled = 2, Error = 3 };
enum class CreatePipelineAsyncStatus : uint32_t {
  Success = 1,
  CallbackCancelled = 2,
  ValidationError = 3,
  InternalError = 4
};
enum class CompilationInfoRequestStatus : uint32_t { Success = 1, CallbackCancelled = 2 };
enum class CompilationMessageType : uint32_t { Error = 1, Warning = 2, Info = 3 };
enum class DeviceLostReason : uint32_t {
  Unknown = 1,
  Destroyed = 2,
  CallbackCancelled = 3,
  FailedCreation = 4
};
enum class ErrorType : uint32_t {
  NoError = 1,
  Validation = 2,
  OutOfMemory = 3,
  Internal = 4,
  Unknown = 5
};
enum class ErrorFilter : uint32_t { Validation = 1, OutOfMemory = 2, Internal = 3 };
enum class BufferMapState : uint32_t { Unmapped = 1, Pending = 2, Mapped = 3 };
enum class PowerPreference : uint32_t { Undefined = 0, LowPower = 1, HighPerformance = 2 };
enum class FeatureLevel : uint32_t { Undefined = 0, Compatibility = 1, Core = 2 };
enum class AdapterType : uint32_t { DiscreteGPU = 1, IntegratedGPU = 2, CPU = 3, Unknown = 4 };
enum class BackendType : uint32_t {
  Undefined = 0,
  Null = 1,
  WebGPU = 2,
  D3D11 = 3,
  D3D12 = 4,
  Metal = 5,
  Vulkan = 6,
  OpenGL = 7,
  OpenGLES = 8
};
enum class BufferBindingType : uint32_t {
  BindingNotUsed = 0,
  Undefined = 1,
  Uniform = 2,
  Storage = 3,
  ReadOnlyStorage = 4
};
// WebGPU's standard features; the shim supports ShaderF16, Subgroups and TimestampQuery where the
// Vulkan device can (Adapter::HasFeature), the others never.
enum class FeatureName : uint32_t {
  CoreFeaturesAndLimits = 1,
  DepthClipControl = 2,
  Depth32FloatStencil8 = 3,
  TextureCompressionBC = 4,
  TextureCompressionBCSliced3D = 5,
  TextureCompressionETC2 = 6,
  TextureCompressionASTC = 7,
  TextureCompressionASTCSliced3D = 8,
  TimestampQuery = 9,
  IndirectFirstInstance = 10,
  ShaderF16 = 11,
  RG11B10UfloatRenderable = 12,
  BGRA8UnormStorage = 13,
  Float32Filterable = 14,
  Float32Blendable = 15,
  ClipDistances = 16,
  DualSourceBlending = 17,
  Subgroups = 18,
  TextureFormatsTier1 = 19,
  TextureFormatsTier2 = 20,
  PrimitiveIndex = 21,
  TextureComponentSwizzle = 22,
  SubgroupSizeControl = 23
};
// Occlusion queries belong to render passes, which the shim does not have: only Timestamp is
// creatable.
enum class QueryType : uint32_t { Occlusion = 1, Timestamp = 2 };
enum class InstanceFeatureName : uint32_t {
  TimedWaitAny = 1,
  ShaderSourceSPIRV = 2,
  MultipleDevicesPerAdapter = 3
};
// The chained structs this implementation reads (values as Dawn's).
enum class SType : uint32_t {
  ShaderSourceSPIRV = 1,
  ShaderSourceWGSL = 2,
  DawnCacheDeviceDescriptor = 0x0005'0007,
};

// Bit flags, with the operators Dawn's enum-class bitmasks have.
enum class BufferUsage : uint64_t {
  None = 0,
  MapRead = 1 << 0,
  MapWrite = 1 << 1,
  CopySrc = 1 << 2,
  CopyDst = 1 << 3,
  Index = 1 << 4,
  Vertex = 1 << 5,
  Uniform = 1 << 6,
  Storage = 1 << 7,
  Indirect = 1 << 8,
  QueryResolve = 1 << 9,
};
enum class MapMode : uint64_t { None = 0, Read = 1, Write = 2 };
enum class ShaderStage : uint64_t { None = 0, Vertex = 1, Fragment = 2, Compute = 4 };

#define WGPU_SHIM_FLAG_OPERATORS(T)                                             \
  constexpr T operator|(T a, T b) {                                             \
    return static_cast<T>(static_cast<uint64_t>(a) | static_cast<uint64_t>(b)); \
  }                                                                             \
  constexpr T operator&(T a, T b) {                                             \
    return static_cast<T>(static_cast<uint64_t>(a) & static_cast<uint64_t>(b)); \
  }                                                                             \
  constexpr T operator^(T a, T b) {                                             \
    return static_cast<T>(static_cast<uint64_t>(a) ^ static_cast<uint64_t>(b)); \
  }                                                                             \
  constexpr T operator~(T a) {                                                  \
    return static_cast<T>(~static_cast<uint64_t>(a));                           \
  }                                                                             \
  constexpr T& operator|=(T& a, T b) {                                          \
    return a = a | b;                                                           \
  }                                                                             \
  constexpr T& operator&=(T& a, T b) {                                          \
    return a = a & b;                                                           \
  }                                                                             \
  constexpr T& operator^=(T& a, T b) {                                          \
    return a = a ^ b;                                                           \
  }                                                                             \
  constexpr bool HasFlag(T set, T flag) {                                       \
    return (static_cast<uint64_t>(set & flag)) != 0;                            \
  }
WGPU_SHIM_FLAG_OPERATORS(BufferUsage)
WGPU_SHIM_FLAG_OPERATORS(MapMode)
WGPU_SHIM_FLAG_OPERATORS(ShaderStage)
#undef WGPU_SHIM_FLAG_OPERATORS

// Shim extension: stringifiers used by error messages and tests ("MapRead|CopyDst", ...).
std::string ToString(BufferUsage usage);
std::string_view ToString(ErrorType type);
std::string_view ToString(BufferMapState state);

// ---- Strings ----

// A string as Dawn passes it: `data` and `length`, where length kStrlen means "up to the NUL"
// and {nullptr, kStrlen} means "no string" (an undefined label). Views do not own their text.
struct StringView {
  const char* data = nullptr;
  size_t length = kStrlen;

  constexpr StringView() noexcept = default;
  constexpr StringView(const std::string_view& sv) noexcept : data(sv.data()), length(sv.size()) {}
  constexpr StringView(const char* s) : data(s), length(kStrlen) {}
  constexpr StringView(const char* d, size_t n) : data(d), length(n) {}
  constexpr StringView(std::nullptr_t) {}
  constexpr StringView(std::nullopt_t) {}
  // Convenience (not in Dawn): the view borrows the string's text. Not from a temporary string,
  // which would be gone before the view is used (`desc.label = MakeName();` does not compile).
  StringView(const std::string& s) noexcept : data(s.data()), length(s.size()) {}
  StringView(std::string&&) = delete;
  StringView(const std::string&&) = delete;  // e.g. `cond ? makeName() : name` (a const prvalue)

  bool IsUndefined() const { return data == nullptr && length == kStrlen; }
  // A null `data` reads as empty whatever the length, so a malformed view is never dereferenced.
  operator std::string_view() const {
    if (data == nullptr) return {};
    if (length == kStrlen) return std::string_view(data);
    return {data, length};
  }
  template <typename View,
            typename = std::enable_if_t<std::is_constructible_v<View, const char*, size_t>>>
  explicit operator View() const {
    const std::string_view sv(*this);
    return View(sv.data(), sv.size());
  }
};

// ---- Futures ----

struct Future {
  uint64_t id = 0;
};
struct FutureWaitInfo {
  Future future = {};
  bool completed = false;
};

// ---- Chaining ----

struct ChainedStruct {
  const ChainedStruct* nextInChain = nullptr;
  SType sType = SType(0u);
};
struct ChainedStructOut {
  ChainedStructOut* nextInChain = nullptr;
  SType sType = SType(0u);
};

// ---- Plain structs ----

struct Limits {
  ChainedStructOut* nextInChain = nullptr;
  uint32_t maxTextureDimension1D = kLimitU32Undefined;
  uint32_t maxTextureDimension2D = kLimitU32Undefined;
  uint32_t maxTextureDimension3D = kLimitU32Undefined;
  uint32_t maxTextureArrayLayers = kLimitU32Undefined;
  uint32_t maxBindGroups = kLimitU32Undefined;
  uint32_t maxBindGroupsPlusVertexBuffers = kLimitU32Undefined;
  uint32_t maxBindingsPerBindGroup = kLimitU32Undefined;
  uint32_t maxDynamicUniformBuffersPerPipelineLayout = kLimitU32Undefined;
  uint32_t maxDynamicStorageBuffersPerPipelineLayout = kLimitU32Undefined;
  uint32_t maxSampledTexturesPerShaderStage = kLimitU32Undefined;
  uint32_t maxSamplersPerShaderStage = kLimitU32Undefined;
  uint32_t maxStorageBuffersPerShaderStage = kLimitU32Undefined;
  uint32_t maxStorageTexturesPerShaderStage = kLimitU32Undefined;
  uint32_t maxUniformBuffersPerShaderStage = kLimitU32Undefined;
  uint64_t maxUniformBufferBindingSize = kLimitU64Undefined;
  uint64_t maxStorageBufferBindingSize = kLimitU64Undefined;
  uint32_t minUniformBufferOffsetAlignment = kLimitU32Undefined;
  uint32_t minStorageBufferOffsetAlignment = kLimitU32Undefined;
  uint32_t maxVertexBuffers = kLimitU32Undefined;
  uint64_t maxBufferSize = kLimitU64Undefined;
  uint32_t maxVertexAttributes = kLimitU32Undefined;
  uint32_t maxVertexBufferArrayStride = kLimitU32Undefined;
  uint32_t maxInterStageShaderVariables = kLimitU32Undefined;
  uint32_t maxColorAttachments = kLimitU32Undefined;
  uint32_t maxColorAttachmentBytesPerSample = kLimitU32Undefined;
  uint32_t maxComputeWorkgroupStorageSize = kLimitU32Undefined;
  uint32_t maxComputeInvocationsPerWorkgroup = kLimitU32Undefined;
  uint32_t maxComputeWorkgroupSizeX = kLimitU32Undefined;
  uint32_t maxComputeWorkgroupSizeY = kLimitU32Undefined;
  uint32_t maxComputeWorkgroupSizeZ = kLimitU32Undefined;
  uint32_t maxComputeWorkgroupsPerDimension = kLimitU32Undefined;
  uint32_t maxImmediateSize = kLimitU32Undefined;
};

// Shim extension: WebGPU's default limits, what a device gets for every limit it does not
// request. The limits of features the shim lacks (textures, vertex input, immediates, dynamic
// offsets) are 0 here and on every adapter.
Limits DefaultLimits();

struct InstanceLimits {
  ChainedStructOut* nextInChain = nullptr;
  size_t timedWaitAnyMaxCount = 0;
};

struct SupportedFeatures {
  size_t featureCount = 0;
  const FeatureName* features = nullptr;
};

namespace detail {
class AdapterImpl;
class BindGroupImpl;
class BlobCache;
class BindGroupLayoutImpl;
class BufferImpl;
class CommandBufferImpl;
class CommandEncoderImpl;
class ComputePassEncoderImpl;
class ComputePipelineImpl;
class DeviceImpl;
class InstanceImpl;
class PipelineLayoutImpl;
class QuerySetImpl;
class QueueImpl;
class ShaderModuleImpl;
[[noreturn]] void ThrowNullHandle(const char* type);
}  // namespace detail

// The strings of an AdapterInfo view text that the info itself keeps alive, so a copy stays
// valid after the adapter is gone (Dawn frees them in the destructor instead).
struct AdapterInfo {
  ChainedStructOut* nextInChain = nullptr;
  StringView vendor = {};
  StringView architecture = {};
  StringView device = {};       // the driver's device name, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"
  StringView description = {};  // driver name and version
  BackendType backendType = BackendType::Undefined;
  AdapterType adapterType = AdapterType::Unknown;
  uint32_t vendorID = 0;
  uint32_t deviceID = 0;
  uint32_t subgroupMinSize = 0;
  uint32_t subgroupMaxSize = 0;

 private:
  friend class detail::AdapterImpl;
  std::shared_ptr<const void> storage_;
};

struct CompilationMessage {
  const ChainedStruct* nextInChain = nullptr;
  StringView message = {};
  CompilationMessageType type = CompilationMessageType::Error;
  uint64_t lineNum = 0;  // 1-based; 0 when the source has no lines (SPIR-V)
  uint64_t linePos = 0;  // 1-based column
  uint64_t offset = 0;   // byte offset in WGSL, word offset in SPIR-V
  uint64_t length = 0;
};

struct CompilationInfo {
  const ChainedStruct* nextInChain = nullptr;
  size_t messageCount = 0;
  const CompilationMessage* messages = nullptr;
};

class Adapter;
class BindGroup;
class BindGroupLayout;
class Buffer;
class CommandBuffer;
class CommandEncoder;
class ComputePassEncoder;
class ComputePipeline;
class Device;
class Instance;
class PipelineLayout;
class QuerySet;
class Queue;
class ShaderModule;

// ---- Callbacks ----
//
// As in Dawn, `XxxCallback<>` is the std::function a method takes for a lambda (captures
// allowed), and `XxxCallback<T>` the plain function type taking a trailing typed userdata.
namespace detail {
template <typename Signature, typename... T>
struct CallbackType;
template <typename... Args>
struct CallbackType<void(Args...)> {
  using Type = std::function<void(Args...)>;
};
template <typename... Args, typename T>
struct CallbackType<void(Args...), T> {
  using Type = void(Args..., T);
};
// Adapts a function taking a trailing userdata to the std::function form.
template <typename... Args, typename F, typename T>
std::function<void(Args...)> BindUserdata(F callback, T userdata) {
  return [callback, userdata](Args... args) { callback(std::forward<Args>(args)..., userdata); };
}
}  // namespace detail

template <typename... T>
using RequestAdapterCallback =
    typename detail::CallbackType<void(RequestAdapterStatus, Adapter, StringView), T...>::Type;
template <typename... T>
using RequestDeviceCallback =
    typename detail::CallbackType<void(RequestDeviceStatus, Device, StringView), T...>::Type;
template <typename... T>
using DeviceLostCallback =
    typename detail::CallbackType<void(const Device&, DeviceLostReason, StringView), T...>::Type;
template <typename... T>
using UncapturedErrorCallback =
    typename detail::CallbackType<void(const Device&, ErrorType, StringView), T...>::Type;
template <typename... T>
using BufferMapCallback =
    typename detail::CallbackType<void(MapAsyncStatus, StringView), T...>::Type;
template <typename... T>
using PopErrorScopeCallback =
    typename detail::CallbackType<void(PopErrorScopeStatus, ErrorType, StringView), T...>::Type;
template <typename... T>
using QueueWorkDoneCallback =
    typename detail::CallbackType<void(QueueWorkDoneStatus, StringView), T...>::Type;
template <typename... T>
using CreateComputePipelineAsyncCallback =
    typename detail::CallbackType<void(CreatePipelineAsyncStatus, ComputePipeline, StringView),
                                  T...>::Type;
template <typename... T>
using CompilationInfoCallback =
    typename detail::CallbackType<void(CompilationInfoRequestStatus, const CompilationInfo*),
                                  T...>::Type;

// ---- Handles ----

// Shared-ownership handle. Equality is identity of the underlying object.
template <typename Impl>
class Handle {
 public:
  Handle() = default;
  Handle(std::nullptr_t) {}
  explicit Handle(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  explicit operator bool() const { return impl_ != nullptr; }
  bool operator==(const Handle& other) const { return impl_ == other.impl_; }
  bool operator==(std::nullptr_t) const { return impl_ == nullptr; }
  // Shim extension: the implementation object (Dawn's Get() returns its C handle).
  const std::shared_ptr<Impl>& Get() const { return impl_; }

 protected:
  Impl& Checked(const char* type) const {
    if (!impl_) detail::ThrowNullHandle(type);
    return *impl_;
  }
  std::shared_ptr<Impl> impl_;
};

class Buffer : public Handle<detail::BufferImpl> {
 public:
  using Handle::Handle;
  Future MapAsync(MapMode mode, size_t offset, size_t size, CallbackMode callbackMode,
                  BufferMapCallback<> callback) const;
  template <typename F, typename T>
  Future MapAsync(MapMode mode, size_t offset, size_t size, CallbackMode callbackMode, F callback,
                  T userdata) const {
    return MapAsync(mode, offset, size, callbackMode,
                    detail::BindUserdata<MapAsyncStatus, StringView>(callback, userdata));
  }
  void* GetMappedRange(size_t offset = 0, size_t size = kWholeMapSize) const;
  const void* GetConstMappedRange(size_t offset = 0, size_t size = kWholeMapSize) const;
  void Unmap() const;
  void Destroy() const;
  uint64_t GetSize() const;
  BufferUsage GetUsage() const;
  BufferMapState GetMapState() const;
  void SetLabel(StringView label) const;
};

class ShaderModule : public Handle<detail::ShaderModuleImpl> {
 public:
  using Handle::Handle;
  Future GetCompilationInfo(CallbackMode mode, CompilationInfoCallback<> callback) const;
  template <typename F, typename T>
  Future GetCompilationInfo(CallbackMode mode, F callback, T userdata) const {
    return GetCompilationInfo(
        mode, detail::BindUserdata<CompilationInfoRequestStatus, const CompilationInfo*>(callback,
                                                                                         userdata));
  }
  void SetLabel(StringView label) const;
};

class BindGroupLayout : public Handle<detail::BindGroupLayoutImpl> {
 public:
  using Handle::Handle;
  void SetLabel(StringView label) const;
};

class PipelineLayout : public Handle<detail::PipelineLayoutImpl> {
 public:
  using Handle::Handle;
  void SetLabel(StringView label) const;
};

class BindGroup : public Handle<detail::BindGroupImpl> {
 public:
  using Handle::Handle;
  void SetLabel(StringView label) const;
};

class ComputePipeline : public Handle<detail::ComputePipelineImpl> {
 public:
  using Handle::Handle;
  BindGroupLayout GetBindGroupLayout(uint32_t groupIndex) const;
  void SetLabel(StringView label) const;
};

class QuerySet : public Handle<detail::QuerySetImpl> {
 public:
  using Handle::Handle;
  void Destroy() const;
  uint32_t GetCount() const;
  QueryType GetType() const;
  void SetLabel(StringView label) const;
};

class CommandBuffer : public Handle<detail::CommandBufferImpl> {
 public:
  using Handle::Handle;
  void SetLabel(StringView label) const;
  // Shim extension: pipeline barriers the shim recorded (tests check none are redundant).
  uint32_t GetBarrierCountForTesting() const;
};

class ComputePassEncoder : public Handle<detail::ComputePassEncoderImpl> {
 public:
  using Handle::Handle;
  void SetPipeline(const ComputePipeline& pipeline) const;
  void SetBindGroup(uint32_t groupIndex, const BindGroup& group, size_t dynamicOffsetCount = 0,
                    const uint32_t* dynamicOffsets = nullptr) const;
  void DispatchWorkgroups(uint32_t workgroupCountX, uint32_t workgroupCountY = 1,
                          uint32_t workgroupCountZ = 1) const;
  void DispatchWorkgroupsIndirect(const Buffer& indirectBuffer, uint64_t indirectOffset) const;
  void End() const;
  void SetLabel(StringView label) const;
};

struct ComputePassDescriptor;
struct CommandBufferDescriptor;

class CommandEncoder : public Handle<detail::CommandEncoderImpl> {
 public:
  using Handle::Handle;
  ComputePassEncoder BeginComputePass(const ComputePassDescriptor* descriptor = nullptr) const;
  void CopyBufferToBuffer(const Buffer& source, uint64_t sourceOffset, const Buffer& destination,
                          uint64_t destinationOffset, uint64_t size) const;
  void ClearBuffer(const Buffer& buffer, uint64_t offset = 0, uint64_t size = kWholeSize) const;
  // Writes queries [firstQuery, firstQuery + queryCount) as u64 nanoseconds at
  // destinationOffset; a query that no earlier submission nor this encoder wrote reads 0.
  void ResolveQuerySet(const QuerySet& querySet, uint32_t firstQuery, uint32_t queryCount,
                       const Buffer& destination, uint64_t destinationOffset) const;
  CommandBuffer Finish(const CommandBufferDescriptor* descriptor = nullptr) const;
  void SetLabel(StringView label) const;
};

class Queue : public Handle<detail::QueueImpl> {
 public:
  using Handle::Handle;
  void Submit(size_t commandCount, const CommandBuffer* commands) const;
  // Convenience (not in Dawn).
  void Submit(std::span<const CommandBuffer> commands) const {
    Submit(commands.size(), commands.data());
  }
  void WriteBuffer(const Buffer& buffer, uint64_t bufferOffset, const void* data,
                   size_t size) const;
  Future OnSubmittedWorkDone(CallbackMode mode, QueueWorkDoneCallback<> callback) const;
  template <typename F, typename T>
  Future OnSubmittedWorkDone(CallbackMode mode, F callback, T userdata) const {
    return OnSubmittedWorkDone(
        mode, detail::BindUserdata<QueueWorkDoneStatus, StringView>(callback, userdata));
  }
  void SetLabel(StringView label) const;
};

struct BufferDescriptor;
struct ShaderModuleDescriptor;
struct BindGroupLayoutDescriptor;
struct PipelineLayoutDescriptor;
struct BindGroupDescriptor;
struct ComputePipelineDescriptor;
struct CommandEncoderDescriptor;
struct QuerySetDescriptor;
struct DeviceDescriptor;
struct RequestAdapterOptions;
struct InstanceDescriptor;

class Device : public Handle<detail::DeviceImpl> {
 public:
  using Handle::Handle;
  Buffer CreateBuffer(const BufferDescriptor* descriptor) const;
  ShaderModule CreateShaderModule(const ShaderModuleDescriptor* descriptor) const;
  BindGroupLayout CreateBindGroupLayout(const BindGroupLayoutDescriptor* descriptor) const;
  PipelineLayout CreatePipelineLayout(const PipelineLayoutDescriptor* descriptor) const;
  BindGroup CreateBindGroup(const BindGroupDescriptor* descriptor) const;
  ComputePipeline CreateComputePipeline(const ComputePipelineDescriptor* descriptor) const;
  Future CreateComputePipelineAsync(const ComputePipelineDescriptor* descriptor, CallbackMode mode,
                                    CreateComputePipelineAsyncCallback<> callback) const;
  template <typename F, typename T>
  Future CreateComputePipelineAsync(const ComputePipelineDescriptor* descriptor, CallbackMode mode,
                                    F callback, T userdata) const {
    return CreateComputePipelineAsync(
        descriptor, mode,
        detail::BindUserdata<CreatePipelineAsyncStatus, ComputePipeline, StringView>(callback,
                                                                                     userdata));
  }
  CommandEncoder CreateCommandEncoder(const CommandEncoderDescriptor* descriptor = nullptr) const;
  QuerySet CreateQuerySet(const QuerySetDescriptor* descriptor) const;
  Queue GetQueue() const;
  Status GetLimits(Limits* limits) const;
  bool HasFeature(FeatureName feature) const;
  void GetFeatures(SupportedFeatures* features) const;
  Status GetAdapterInfo(AdapterInfo* adapterInfo) const;
  void PushErrorScope(ErrorFilter filter) const;
  Future PopErrorScope(CallbackMode mode, PopErrorScopeCallback<> callback) const;
  template <typename F, typename T>
  Future PopErrorScope(CallbackMode mode, F callback, T userdata) const {
    return PopErrorScope(
        mode, detail::BindUserdata<PopErrorScopeStatus, ErrorType, StringView>(callback, userdata));
  }
  void Destroy() const;
  // Loses the device now, as a driver reset would (Dawn's test API of the same name): the lost
  // callback fires with `type` and `message`, pending maps abort, later work is dropped.
  void ForceLoss(DeviceLostReason type, StringView message) const;
  void SetLabel(StringView label) const;
  // Shim extension: waits on this device poll from shortly before a submission's expected end, as
  // they do on a GPU, or (false) poll briefly and then block, as on a CPU device such as
  // lavapipe, so tests cover either way on any device.
  void SetWaitsPollNearTheEndForTesting(bool on) const;
};

class Adapter : public Handle<detail::AdapterImpl> {
 public:
  using Handle::Handle;
  Status GetLimits(Limits* limits) const;
  Status GetInfo(AdapterInfo* info) const;
  bool HasFeature(FeatureName feature) const;
  void GetFeatures(SupportedFeatures* features) const;
  Future RequestDevice(const DeviceDescriptor* descriptor, CallbackMode mode,
                       RequestDeviceCallback<> callback) const;
  template <typename F, typename T>
  Future RequestDevice(const DeviceDescriptor* descriptor, CallbackMode mode, F callback,
                       T userdata) const {
    return RequestDevice(
        descriptor, mode,
        detail::BindUserdata<RequestDeviceStatus, Device, StringView>(callback, userdata));
  }
};

class Instance : public Handle<detail::InstanceImpl> {
 public:
  using Handle::Handle;
  Future RequestAdapter(const RequestAdapterOptions* options, CallbackMode mode,
                        RequestAdapterCallback<> callback) const;
  template <typename F, typename T>
  Future RequestAdapter(const RequestAdapterOptions* options, CallbackMode mode, F callback,
                        T userdata) const {
    return RequestAdapter(
        options, mode,
        detail::BindUserdata<RequestAdapterStatus, Adapter, StringView>(callback, userdata));
  }
  // Shim extension: every adapter the options allow, best first (discrete > integrated > CPU).
  std::vector<Adapter> EnumerateAdapters(const RequestAdapterOptions* options = nullptr) const;
  void ProcessEvents() const;
  // Waits until one of the futures completes (its callback runs here) or the timeout passes.
  // Timed waits work whether or not the instance asked for InstanceFeatureName::TimedWaitAny.
  WaitStatus WaitAny(size_t futureCount, FutureWaitInfo* futures, uint64_t timeoutNS) const;
  WaitStatus WaitAny(Future f, uint64_t timeout) const;
  // Shim extension: Vulkan validation-layer messages seen so far (0 unless validation is on).
  uint64_t GetVulkanValidationMessageCount() const;
};

// ---- Descriptors ----

struct InstanceDescriptor {
  const ChainedStruct* nextInChain = nullptr;
  size_t requiredFeatureCount = 0;
  const InstanceFeatureName* requiredFeatures = nullptr;
  const InstanceLimits* requiredLimits = nullptr;
  // Shim extension: enable VK_LAYER_KHRONOS_validation with synchronization validation. Also
  // enabled by the environment variable WEBGPU_SHIM_VALIDATION=1. Messages go to stderr and are
  // counted (Instance::GetVulkanValidationMessageCount).
  bool enableVulkanValidation = false;
  // Shim extension: a Vulkan driver manifest (an ICD JSON file, as the loader's VK_DRIVER_FILES
  // takes) whose devices alone this instance offers, in place of the system's drivers; e.g.
  // Chromium's SwiftShader, /usr/lib/chromium/vk_swiftshader_icd.json. Empty: the drivers the
  // Vulkan loader finds (VK_DRIVER_FILES included). A file that cannot be read makes every
  // adapter request fail with a message naming it.
  StringView vulkanDriverFile = {};
};

// Null when the descriptor asks for an instance feature or limit the shim does not have.
Instance CreateInstance(const InstanceDescriptor* descriptor = nullptr);
bool HasInstanceFeature(InstanceFeatureName feature);
Status GetInstanceLimits(InstanceLimits* limits);

struct RequestAdapterOptions {
  const ChainedStruct* nextInChain = nullptr;
  FeatureLevel featureLevel = FeatureLevel::Core;
  PowerPreference powerPreference = PowerPreference::Undefined;
  bool forceFallbackAdapter = false;                 // the CPU adapter (lavapipe)
  BackendType backendType = BackendType::Undefined;  // Undefined or Vulkan
  // Shim extension: pick the adapter whose device name contains this text (case-insensitive).
  // The environment variable WEBGPU_ADAPTER does the same and wins over the default order;
  // this field wins over both.
  StringView adapterName = {};
};

struct QueueDescriptor {
  const ChainedStruct* nextInChain = nullptr;
  StringView label = {};
};

// Chained in DeviceDescriptor (as Dawn's native API), the device's blob cache. Two kinds of
// entries go through it. The compiled-pipeline cache: read when the device is created and, if it
// grew, written back when the device is destroyed and whenever the last
// CreateComputePipelineAsync build in flight finishes; its key names the driver and device, and
// the driver checks the data's header. And the SPIR-V of each WGSL module: read before the WGSL
// is translated and written after, on the device's worker threads; its key is "wgsl-spirv-" and
// a hash of the WGSL, and an entry is used only when its full WGSL text, its translator's id (a
// digest of the translator's sources and versions) and its checksum match, so a corrupted or
// stale entry costs a translation, never a wrong module. The callbacks are called from several
// threads at once and must be thread-safe. Load is called as Dawn calls it: once with an empty
// value to learn the size (0 is a miss), then with room for it; it returns the bytes it wrote.
// Keys start with `isolationKey`. Unlike Dawn's, these callbacks may capture.
struct DawnCacheDeviceDescriptor : ChainedStruct {
  DawnCacheDeviceDescriptor() : ChainedStruct{nullptr, SType::DawnCacheDeviceDescriptor} {}
  struct Init;
  DawnCacheDeviceDescriptor(Init&& init);
  StringView isolationKey = {};

  using LoadCallback =
      std::function<size_t(std::span<const std::byte> key, std::span<std::byte> value)>;
  using StoreCallback =
      std::function<void(std::span<const std::byte> key, std::span<const std::byte> value)>;
  void SetLoadCacheDataCallback(LoadCallback callback) { loadCallback_ = std::move(callback); }
  void SetStoreCacheDataCallback(StoreCallback callback) { storeCallback_ = std::move(callback); }

 private:
  friend class detail::BlobCache;
  LoadCallback loadCallback_;
  StoreCallback storeCallback_;
};
struct DawnCacheDeviceDescriptor::Init {
  const ChainedStruct* nextInChain = nullptr;
  StringView isolationKey = {};
};
inline DawnCacheDeviceDescriptor::DawnCacheDeviceDescriptor(Init&& init)
    : ChainedStruct{init.nextInChain, SType::DawnCacheDeviceDescriptor},
      isolationKey(init.isolationKey) {}

// As in Dawn, the callbacks are set through SetDeviceLostCallback / SetUncapturedErrorCallback,
// and the other members can be given with designated initializers through Init:
// `wgpu::DeviceDescriptor desc{{.label = "main", .requiredLimits = &limits}};`.
struct DeviceDescriptor {
  DeviceDescriptor() = default;
  struct Init;
  DeviceDescriptor(Init&& init);

  const ChainedStruct* nextInChain = nullptr;
  StringView label = {};
  size_t requiredFeatureCount = 0;
  const FeatureName* requiredFeatures = nullptr;
  const Limits* requiredLimits = nullptr;
  QueueDescriptor defaultQueue = {};

  void SetDeviceLostCallback(CallbackMode callbackMode, DeviceLostCallback<> callback) {
    deviceLostCallbackMode_ = callbackMode;
    deviceLostCallback_ = std::move(callback);
  }
  template <typename F, typename T>
  void SetDeviceLostCallback(CallbackMode callbackMode, F callback, T userdata) {
    SetDeviceLostCallback(
        callbackMode,
        detail::BindUserdata<const Device&, DeviceLostReason, StringView>(callback, userdata));
  }
  void SetUncapturedErrorCallback(UncapturedErrorCallback<> callback) {
    uncapturedErrorCallback_ = std::move(callback);
  }
  template <typename F, typename T>
  void SetUncapturedErrorCallback(F callback, T userdata) {
    SetUncapturedErrorCallback(
        detail::BindUserdata<const Device&, ErrorType, StringView>(callback, userdata));
  }

 private:
  friend class detail::DeviceImpl;
  CallbackMode deviceLostCallbackMode_ = CallbackMode::AllowProcessEvents;
  DeviceLostCallback<> deviceLostCallback_;
  UncapturedErrorCallback<> uncapturedErrorCallback_;
};
struct DeviceDescriptor::Init {
  const ChainedStruct* nextInChain = nullptr;
  StringView label = {};
  size_t requiredFeatureCount = 0;
  const FeatureName* requiredFeatures = nullptr;
  const Limits* requiredLimits = nullptr;
  QueueDescriptor defaultQueue = {};
};
inline DeviceDescriptor::DeviceDescriptor(Init&& init)
    : nextInChain(init.nextInChain),
      label(init.label),
      requiredFeatureCount(init.requiredFeatureCount),
      requiredFeatures(init.requiredFeatures),
      requiredLimits(init.requiredLimits),
      defaultQueue(init.defaultQueue) {}

struct BufferDescriptor {
  const ChainedStruct* nextInChain = nullptr;
  StringView label = {};
  BufferUsage usage = BufferUsage::None;
  uint64_t size = 0;
  bool mappedAtCreation = false;
  // Shim extension (not in WebGPU): the buffer is written through Queue::WriteBuffer often (a
  // training step's inputs). It is placed in device memory the host can write where the device
  // has some, so that a write while no submitted work uses the buffer is a copy on the host, not
  // a copy on the queue's timeline (which costs a GPU a few microseconds a submission).
  bool directWrites = false;
};

struct ShaderSourceSPIRV : ChainedStruct {
  ShaderSourceSPIRV() : ChainedStruct{nullptr, SType::ShaderSourceSPIRV} {}
  struct Init;
  ShaderSourceSPIRV(Init&& init);
  uint32_t codeSize = 0;  // in 32-bit words
  const uint32_t* code = nullptr;
  // Shim extension: the caller already ran spirv-val (Vulkan 1.1 environment) on exactly this
  // code, so the shim skips its own pass (about 0.2 ms a tensorgrad kernel on a 2 GHz core).
  // tensorgrad's runtime sets it: it validates a whole compile's modules at once on all cores.
  // Reflection and the checks on what reflection finds still run.
  bool prevalidated = false;
};
struct ShaderSourceSPIRV::Init {
  const ChainedStruct* nextInChain = nullptr;
  uint32_t codeSize = 0;
  const uint32_t* code = nullptr;
  bool prevalidated = false;
};
inline ShaderSourceSPIRV::ShaderSourceSPIRV(Init&& init)
    : ChainedStruct{init.nextInChain, SType::ShaderSourceSPIRV},
      codeSize(init.codeSize),
      code(init.code),
      prevalidated(init.prevalidated) {}

// WGSL, translated by wgsl_subset (the subset tensorgrad emits, see wgsl_subset/README.md);
// errors come back as compilation messages with line and column.
struct ShaderSourceWGSL : ChainedStruct {
  ShaderSourceWGSL() : ChainedStruct{nullptr, SType::ShaderSourceWGSL} {}
  struct Init;
  ShaderSourceWGSL(Init&& init);
  StringView code = {};
};
struct ShaderSourceWGSL::Init {
  const ChainedStruct* nextInChain = nullptr;
  StringView code = {};
};
inline ShaderSourceWGSL::ShaderSourceWGSL(Init&& init)
    : ChainedStruct{init.nextInChain, SType::ShaderSourceWGSL}, code(init.code) {}

struct ShaderModuleDescriptor {
  const ChainedStruct* nextInChain = nullptr;
  StringView label = {};
};

struct BufferBindingLayout {
  const ChainedStruct* nextInChain = nullptr;
  BufferBindingType type = BufferBindingType::Undefined;  // Undefined means Uniform
  bool hasDynamicOffset = false;
  uint64_t minBindingSize = 0;
};

struct BindGroupLayoutEntry {
  const ChainedStruct* nextInChain = nullptr;
  uint32_t binding = 0;
  ShaderStage visibility = ShaderStage::None;
  uint32_t bindingArraySize = 0;  // 0 or 1: arrays of buffer bindings do not exist in WebGPU
  // Only buffer bindings exist here; an entry that leaves it unused is an error.
  BufferBindingLayout buffer = {nullptr, BufferBindingType::BindingNotUsed, false, 0};
};

struct BindGroupLayoutDescriptor {
  const ChainedStruct* nextInChain = nullptr;
  StringView label = {};
  size_t entryCount = 0;
  const BindGroupLayoutEntry* entries = nullptr;
};

struct PipelineLayoutDescriptor {
  const ChainedStruct* nextInChain = nullptr;
  StringView label = {};
  size_t bindGroupLayoutCount = 0;
  const BindGroupLayout* bindGroupLayouts = nullptr;  // null entries mean an empty group
  uint32_t immediateSize = 0;                         // must be 0: immediates are not implemented
};

struct BindGroupEntry {
  const ChainedStruct* nextInChain = nullptr;
  uint32_t binding = 0;
  Buffer buffer = nullptr;
  uint64_t offset = 0;
  uint64_t size = kWholeSize;
};

struct BindGroupDescriptor {
  const ChainedStruct* nextInChain = nullptr;
  StringView label = {};
  BindGroupLayout layout = nullptr;
  size_t entryCount = 0;
  const BindGroupEntry* entries = nullptr;
};

struct ConstantEntry {
  const ChainedStruct* nextInChain = nullptr;
  StringView key = {};  // the override's name or its numeric id (SPIR-V SpecId)
  double value = 0;
};

struct ComputeState {
  const ChainedStruct* nextInChain = nullptr;
  ShaderModule module = nullptr;
  StringView entryPoint = {};  // undefined or empty: the module's only compute entry point
  size_t constantCount = 0;
  const ConstantEntry* constants = nullptr;
};

struct ComputePipelineDescriptor {
  const ChainedStruct* nextInChain = nullptr;
  StringView label = {};
  PipelineLayout layout = nullptr;  // null: `layout: "auto"`, derived from the shader
  ComputeState compute = {};
};

struct CommandEncoderDescriptor {
  const ChainedStruct* nextInChain = nullptr;
  StringView label = {};
  // Shim extension (not in WebGPU): the finished command buffer may be submitted any number of
  // times, so a fixed sequence of passes and copies is recorded once and replayed.
  bool reusable = false;
};

struct CommandBufferDescriptor {
  const ChainedStruct* nextInChain = nullptr;
  StringView label = {};
};

struct QuerySetDescriptor {
  const ChainedStruct* nextInChain = nullptr;
  StringView label = {};
  QueryType type = {};
  uint32_t count = 0;
};

// Where a compute pass writes timestamps (FeatureName::TimestampQuery): the beginning one once
// every earlier command is done, the end one once the pass's dispatches are.
struct PassTimestampWrites {
  const ChainedStruct* nextInChain = nullptr;
  QuerySet querySet = nullptr;
  uint32_t beginningOfPassWriteIndex = kQuerySetIndexUndefined;
  uint32_t endOfPassWriteIndex = kQuerySetIndexUndefined;
};

struct ComputePassDescriptor {
  const ChainedStruct* nextInChain = nullptr;
  StringView label = {};
  const PassTimestampWrites* timestampWrites = nullptr;
};

// Shim extension: the bytes of device memory that buffers (the application's and the shim's own
// staging) hold right now, over every device of the process. For tests that check memory stays
// flat.
uint64_t GetBufferMemoryInUseForTesting();
// Shim extension: the devices of the process not yet freed (tests check that dropping every
// handle, even mid-submit, frees the device once the GPU is done).
uint64_t GetLiveDeviceCountForTesting();
// Shim extension: the WGSL modules the process has translated so far (a blob-cache hit
// translates nothing; tests check that).
uint64_t GetWgslTranslationCountForTesting();
// Shim extension: the WriteBuffer calls of the process that wrote the buffer's memory from the
// host at once, not through staging and a copy on the queue.
uint64_t GetDirectBufferWritesForTesting();

}  // namespace wgpu
