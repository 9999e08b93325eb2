// The WebGPU compute API in the shape of Dawn's webgpu_cpp.h, implemented over Vulkan.
//
// Handles (Instance, Adapter, Device, Buffer, ...) are cheap value types with shared ownership; a
// default-constructed handle is null. Descriptors are plain structs with WebGPU's defaults. Async
// operations take a CallbackMode and a callback and return a Future; callbacks run inside
// Instance::ProcessEvents / Instance::WaitAny (or at once, for AllowSpontaneous, when the result is
// already known). Errors follow WebGPU: a failed call reports a validation / out-of-memory /
// internal error to the device's error scopes (or the uncaptured-error callback) and returns an
// invalid object that poisons whatever uses it. Only programming errors that WebGPU itself cannot
// express (calling a method on a null handle) throw std::logic_error.
//
// Threading: a Device and the objects made from it are used from one thread at a time, as with
// Dawn's native API without implicit device synchronization.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wgpu {

inline constexpr uint64_t kWholeSize = ~uint64_t{0};
inline constexpr size_t kWholeMapSize = ~size_t{0};
inline constexpr uint32_t kLimitU32Undefined = ~uint32_t{0};
inline constexpr uint64_t kLimitU64Undefined = ~uint64_t{0};

#define WGPU_SHIM_FLAG_OPERATORS(T)                                                          \
  constexpr T operator|(T a, T b) {                                                          \
    return static_cast<T>(static_cast<uint64_t>(a) | static_cast<uint64_t>(b));              \
  }                                                                                          \
  constexpr T operator&(T a, T b) {                                                          \
    return static_cast<T>(static_cast<uint64_t>(a) & static_cast<uint64_t>(b));              \
  }                                                                                          \
  constexpr T& operator|=(T& a, T b) { return a = a | b; }                                   \
  constexpr bool HasFlag(T set, T flag) { return (static_cast<uint64_t>(set & flag)) != 0; }

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
WGPU_SHIM_FLAG_OPERATORS(BufferUsage)

enum class MapMode : uint64_t { None = 0, Read = 1, Write = 2 };
WGPU_SHIM_FLAG_OPERATORS(MapMode)

enum class ShaderStage : uint64_t { None = 0, Vertex = 1, Fragment = 2, Compute = 4 };
WGPU_SHIM_FLAG_OPERATORS(ShaderStage)

#undef WGPU_SHIM_FLAG_OPERATORS

enum class BufferMapState { Unmapped, Pending, Mapped };
enum class ErrorType { NoError, Validation, OutOfMemory, Internal, Unknown };
enum class ErrorFilter { Validation, OutOfMemory, Internal };
enum class CallbackMode { WaitAnyOnly, AllowProcessEvents, AllowSpontaneous };
enum class WaitStatus { Success, TimedOut, Error };
enum class MapAsyncStatus { Success, CallbackCancelled, Error, Aborted };
enum class PopErrorScopeStatus { Success, CallbackCancelled, Error };
enum class RequestAdapterStatus { Success, CallbackCancelled, Unavailable, Error };
enum class RequestDeviceStatus { Success, CallbackCancelled, Error };
enum class QueueWorkDoneStatus { Success, CallbackCancelled, Error };
enum class CreatePipelineAsyncStatus { Success, CallbackCancelled, ValidationError, InternalError };
enum class CompilationInfoRequestStatus { Success, CallbackCancelled };
enum class CompilationMessageType { Error, Warning, Info };
enum class DeviceLostReason { Unknown, Destroyed, CallbackCancelled, FailedCreation };
enum class PowerPreference { Undefined, LowPower, HighPerformance };
enum class AdapterType { DiscreteGPU, IntegratedGPU, CPU, Unknown };
enum class BackendType { Undefined, Vulkan };
enum class BufferBindingType { BindingNotUsed, Undefined, Uniform, Storage, ReadOnlyStorage };
enum class FeatureName { ShaderF16, TimestampQuery };

// Stringifiers used by error messages and tests ("MapRead|CopyDst", "Validation", ...).
std::string ToString(BufferUsage usage);
std::string_view ToString(ErrorType type);
std::string_view ToString(BufferMapState state);

struct Future {
  uint64_t id = 0;
};
struct FutureWaitInfo {
  Future future;
  bool completed = false;
};

struct Limits {
  uint32_t maxBindGroups = kLimitU32Undefined;
  uint32_t maxBindingsPerBindGroup = kLimitU32Undefined;
  uint32_t maxStorageBuffersPerShaderStage = kLimitU32Undefined;
  uint32_t maxUniformBuffersPerShaderStage = kLimitU32Undefined;
  uint64_t maxUniformBufferBindingSize = kLimitU64Undefined;
  uint64_t maxStorageBufferBindingSize = kLimitU64Undefined;
  uint32_t minUniformBufferOffsetAlignment = kLimitU32Undefined;
  uint32_t minStorageBufferOffsetAlignment = kLimitU32Undefined;
  uint64_t maxBufferSize = kLimitU64Undefined;
  uint32_t maxComputeWorkgroupStorageSize = kLimitU32Undefined;
  uint32_t maxComputeInvocationsPerWorkgroup = kLimitU32Undefined;
  uint32_t maxComputeWorkgroupSizeX = kLimitU32Undefined;
  uint32_t maxComputeWorkgroupSizeY = kLimitU32Undefined;
  uint32_t maxComputeWorkgroupSizeZ = kLimitU32Undefined;
  uint32_t maxComputeWorkgroupsPerDimension = kLimitU32Undefined;
};

// WebGPU's default limits: what a device gets for every limit it does not request.
Limits DefaultLimits();

struct AdapterInfo {
  std::string vendor;
  std::string architecture;
  std::string device;       // the driver's device name, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"
  std::string description;  // driver name and version
  BackendType backendType = BackendType::Vulkan;
  AdapterType adapterType = AdapterType::Unknown;
  uint32_t vendorID = 0;
  uint32_t deviceID = 0;
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
class Queue;
class ShaderModule;

namespace detail {
class AdapterImpl;
class BindGroupImpl;
class BindGroupLayoutImpl;
class BufferImpl;
class CommandBufferImpl;
class CommandEncoderImpl;
class ComputePassEncoderImpl;
class ComputePipelineImpl;
class DeviceImpl;
class InstanceImpl;
class PipelineLayoutImpl;
class QueueImpl;
class ShaderModuleImpl;
[[noreturn]] void ThrowNullHandle(const char* type);
}  // namespace detail

// Shared-ownership handle. Equality is identity of the underlying object.
template <typename Impl>
class Handle {
 public:
  Handle() = default;
  explicit Handle(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  explicit operator bool() const { return impl_ != nullptr; }
  bool operator==(const Handle& other) const { return impl_ == other.impl_; }
  const std::shared_ptr<Impl>& Get() const { return impl_; }

 protected:
  Impl& Checked(const char* type) const {
    if (!impl_) detail::ThrowNullHandle(type);
    return *impl_;
  }
  std::shared_ptr<Impl> impl_;
};

// ---- Callback signatures (Dawn's, with std::string_view for WGPUStringView) ----
using RequestAdapterCallback =
    std::function<void(RequestAdapterStatus, Adapter, std::string_view message)>;
using RequestDeviceCallback =
    std::function<void(RequestDeviceStatus, Device, std::string_view message)>;
using DeviceLostCallback =
    std::function<void(const Device&, DeviceLostReason, std::string_view message)>;
using UncapturedErrorCallback =
    std::function<void(const Device&, ErrorType, std::string_view message)>;
using BufferMapCallback = std::function<void(MapAsyncStatus, std::string_view message)>;
using PopErrorScopeCallback =
    std::function<void(PopErrorScopeStatus, ErrorType, std::string_view message)>;
using QueueWorkDoneCallback = std::function<void(QueueWorkDoneStatus, std::string_view message)>;
using CreateComputePipelineAsyncCallback =
    std::function<void(CreatePipelineAsyncStatus, ComputePipeline, std::string_view message)>;

// ---- Descriptors ----
struct InstanceDescriptor {
  // Shim extension: enable VK_LAYER_KHRONOS_validation with synchronization validation. Also
  // enabled by the environment variable WEBGPU_SHIM_VALIDATION=1. Messages go to stderr and are
  // counted (Instance::GetVulkanValidationMessageCount).
  bool enableVulkanValidation = false;
};

struct RequestAdapterOptions {
  PowerPreference powerPreference = PowerPreference::Undefined;
  bool forceFallbackAdapter = false;  // the CPU adapter (lavapipe)
  // Shim extension: pick the adapter whose device name contains this text (case-insensitive).
  // The environment variable WEBGPU_ADAPTER does the same and wins over the default order;
  // this field wins over both.
  std::string adapterName;
};

struct QueueDescriptor {
  std::string label;
};

struct DeviceDescriptor {
  std::string label;
  std::vector<FeatureName> requiredFeatures;
  const Limits* requiredLimits = nullptr;
  QueueDescriptor defaultQueue;

  void SetDeviceLostCallback(CallbackMode mode, DeviceLostCallback callback) {
    deviceLostCallbackMode = mode;
    deviceLostCallback = std::move(callback);
  }
  void SetUncapturedErrorCallback(UncapturedErrorCallback callback) {
    uncapturedErrorCallback = std::move(callback);
  }
  CallbackMode deviceLostCallbackMode = CallbackMode::AllowProcessEvents;
  DeviceLostCallback deviceLostCallback;
  UncapturedErrorCallback uncapturedErrorCallback;

  // Blob-cache hooks, as Dawn's DawnCacheDeviceDescriptor load/store functions: the device reads
  // its compiled-pipeline cache through `loadCacheData` when created (an empty result is a miss)
  // and, if it grew, writes it back through `storeCacheData` when destroyed and whenever the
  // last CreateComputePipelineAsync build in flight finishes (then on a background thread: the
  // hook must be thread-safe). Keys name the driver and device; the driver also checks the
  // data's header and ignores what it cannot use.
  std::function<std::vector<uint8_t>(std::string_view key)> loadCacheData;
  std::function<void(std::string_view key, std::span<const uint8_t> data)> storeCacheData;
};

struct BufferDescriptor {
  std::string label;
  BufferUsage usage = BufferUsage::None;
  uint64_t size = 0;
  bool mappedAtCreation = false;
};

struct ChainedStruct {
  const ChainedStruct* nextInChain = nullptr;
  enum class SType { ShaderSourceSPIRV, ShaderSourceWGSL } sType;

 protected:
  explicit ChainedStruct(SType type) : sType(type) {}
};

struct ShaderSourceSPIRV : ChainedStruct {
  ShaderSourceSPIRV() : ChainedStruct(SType::ShaderSourceSPIRV) {}
  uint32_t codeSize = 0;  // in 32-bit words, as in Dawn
  const uint32_t* code = nullptr;
  // Extension: the caller already ran spirv-val (Vulkan 1.1 environment) on exactly this code,
  // so the shim skips its own pass (about 0.2 ms a tensorgrad kernel on a 2 GHz core).
  // tensorgrad's runtime sets it: it validates a whole compile's modules at once on all cores.
  // Reflection and the checks on what reflection finds still run.
  bool prevalidated = false;
};

// WGSL, translated by wgsl_subset (the subset tensorgrad emits); errors come back as
// compilation messages with line and column.
struct ShaderSourceWGSL : ChainedStruct {
  ShaderSourceWGSL() : ChainedStruct(SType::ShaderSourceWGSL) {}
  std::string code;
};

struct ShaderModuleDescriptor {
  const ChainedStruct* nextInChain = nullptr;
  std::string label;
};

struct CompilationMessage {
  std::string message;
  CompilationMessageType type = CompilationMessageType::Error;
  uint64_t lineNum = 0;  // 1-based; 0 when the source has no lines (SPIR-V)
  uint64_t linePos = 0;  // 1-based column
  uint64_t offset = 0;   // byte offset in WGSL, word offset in SPIR-V
  uint64_t length = 0;
};

struct CompilationInfo {
  std::vector<CompilationMessage> messages;
};
using CompilationInfoCallback =
    std::function<void(CompilationInfoRequestStatus, const CompilationInfo*)>;

struct BufferBindingLayout {
  BufferBindingType type = BufferBindingType::Undefined;  // Undefined means Uniform
  bool hasDynamicOffset = false;  // accepted only as false: dynamic offsets are not implemented
  uint64_t minBindingSize = 0;
};

struct BindGroupLayoutEntry {
  uint32_t binding = 0;
  ShaderStage visibility = ShaderStage::None;
  BufferBindingLayout buffer;
};

struct BindGroupLayoutDescriptor {
  std::string label;
  std::vector<BindGroupLayoutEntry> entries;
};


struct ConstantEntry {
  std::string key;  // the override's name or its numeric id (SPIR-V SpecId)
  double value = 0;
};

struct CommandEncoderDescriptor {
  std::string label;
  // Shim extension (not in WebGPU): the finished command buffer may be submitted any number of
  // times, so a fixed sequence of passes and copies is recorded once and replayed.
  bool reusable = false;
};
struct CommandBufferDescriptor {
  std::string label;
};
struct ComputePassDescriptor {
  std::string label;
};

// Forward declarations of the descriptors that hold handles (defined after the handle classes).
struct BindGroupDescriptor;
struct PipelineLayoutDescriptor;
struct ComputePipelineDescriptor;

// ---- Handles ----

class Buffer : public Handle<detail::BufferImpl> {
 public:
  using Handle::Handle;
  Future MapAsync(MapMode mode, size_t offset, size_t size, CallbackMode callbackMode,
                  BufferMapCallback callback) const;
  void* GetMappedRange(size_t offset = 0, size_t size = kWholeMapSize) const;
  const void* GetConstMappedRange(size_t offset = 0, size_t size = kWholeMapSize) const;
  void Unmap() const;
  void Destroy() const;
  uint64_t GetSize() const;
  BufferUsage GetUsage() const;
  BufferMapState GetMapState() const;
  void SetLabel(std::string_view label) const;
};

class ShaderModule : public Handle<detail::ShaderModuleImpl> {
 public:
  using Handle::Handle;
  Future GetCompilationInfo(CallbackMode mode, CompilationInfoCallback callback) const;
  void SetLabel(std::string_view label) const;
};

class BindGroupLayout : public Handle<detail::BindGroupLayoutImpl> {
 public:
  using Handle::Handle;
  void SetLabel(std::string_view label) const;
};

class PipelineLayout : public Handle<detail::PipelineLayoutImpl> {
 public:
  using Handle::Handle;
  void SetLabel(std::string_view label) const;
};

class BindGroup : public Handle<detail::BindGroupImpl> {
 public:
  using Handle::Handle;
  void SetLabel(std::string_view label) const;
};

class ComputePipeline : public Handle<detail::ComputePipelineImpl> {
 public:
  using Handle::Handle;
  BindGroupLayout GetBindGroupLayout(uint32_t groupIndex) const;
  void SetLabel(std::string_view label) const;
};

class CommandBuffer : public Handle<detail::CommandBufferImpl> {
 public:
  using Handle::Handle;
  void SetLabel(std::string_view label) const;
  // Shim extension: pipeline barriers the shim recorded (tests check none are redundant).
  uint32_t GetBarrierCountForTesting() const;
};

class ComputePassEncoder : public Handle<detail::ComputePassEncoderImpl> {
 public:
  using Handle::Handle;
  void SetPipeline(const ComputePipeline& pipeline) const;
  void SetBindGroup(uint32_t groupIndex, const BindGroup& group, size_t dynamicOffsetCount = 0,
                    const uint32_t* dynamicOffsets = nullptr) const;
  void DispatchWorkgroups(uint32_t x, uint32_t y = 1, uint32_t z = 1) const;
  void DispatchWorkgroupsIndirect(const Buffer& indirectBuffer, uint64_t indirectOffset) const;
  void End() const;
  void SetLabel(std::string_view label) const;
};

class CommandEncoder : public Handle<detail::CommandEncoderImpl> {
 public:
  using Handle::Handle;
  ComputePassEncoder BeginComputePass(const ComputePassDescriptor* descriptor = nullptr) const;
  void CopyBufferToBuffer(const Buffer& source, uint64_t sourceOffset, const Buffer& destination,
                          uint64_t destinationOffset, uint64_t size) const;
  void ClearBuffer(const Buffer& buffer, uint64_t offset = 0, uint64_t size = kWholeSize) const;
  CommandBuffer Finish(const CommandBufferDescriptor* descriptor = nullptr) const;
  void SetLabel(std::string_view label) const;
};

class Queue : public Handle<detail::QueueImpl> {
 public:
  using Handle::Handle;
  void Submit(size_t commandCount, const CommandBuffer* commands) const;
  void Submit(std::span<const CommandBuffer> commands) const {
    Submit(commands.size(), commands.data());
  }
  void WriteBuffer(const Buffer& buffer, uint64_t bufferOffset, const void* data,
                   size_t size) const;
  Future OnSubmittedWorkDone(CallbackMode mode, QueueWorkDoneCallback callback) const;
  void SetLabel(std::string_view label) const;
};

class Device : public Handle<detail::DeviceImpl> {
 public:
  using Handle::Handle;
  Buffer CreateBuffer(const BufferDescriptor* descriptor) const;
  ShaderModule CreateShaderModule(const ShaderModuleDescriptor* descriptor) const;
  BindGroupLayout CreateBindGroupLayout(const BindGroupLayoutDescriptor* descriptor) const;
  PipelineLayout CreatePipelineLayout(const PipelineLayoutDescriptor* descriptor) const;
  BindGroup CreateBindGroup(const BindGroupDescriptor* descriptor) const;
  ComputePipeline CreateComputePipeline(const ComputePipelineDescriptor* descriptor) const;
  Future CreateComputePipelineAsync(const ComputePipelineDescriptor* descriptor,
                                    CallbackMode mode,
                                    CreateComputePipelineAsyncCallback callback) const;
  CommandEncoder CreateCommandEncoder(const CommandEncoderDescriptor* descriptor = nullptr) const;
  Queue GetQueue() const;
  void GetLimits(Limits* limits) const;
  bool HasFeature(FeatureName feature) const;
  std::vector<FeatureName> GetFeatures() const;
  AdapterInfo GetAdapterInfo() const;
  void PushErrorScope(ErrorFilter filter) const;
  Future PopErrorScope(CallbackMode mode, PopErrorScopeCallback callback) const;
  void Destroy() const;
  // Loses the device now, as a driver reset would (Dawn's test API of the same name): the lost
  // callback fires with `reason` and `message`, pending maps abort, later work is dropped.
  void ForceLoss(DeviceLostReason reason, std::string_view message) const;
  void SetLabel(std::string_view label) const;
};

class Adapter : public Handle<detail::AdapterImpl> {
 public:
  using Handle::Handle;
  void GetLimits(Limits* limits) const;
  void GetInfo(AdapterInfo* info) const;
  bool HasFeature(FeatureName feature) const;
  std::vector<FeatureName> GetFeatures() const;
  Future RequestDevice(const DeviceDescriptor* descriptor, CallbackMode mode,
                       RequestDeviceCallback callback) const;
};

class Instance : public Handle<detail::InstanceImpl> {
 public:
  using Handle::Handle;
  Future RequestAdapter(const RequestAdapterOptions* options, CallbackMode mode,
                        RequestAdapterCallback callback) const;
  // Every adapter the options allow, best first (discrete > integrated > CPU).
  std::vector<Adapter> EnumerateAdapters(const RequestAdapterOptions* options = nullptr) const;
  void ProcessEvents() const;
  // Waits until one of the futures completes (its callback runs here) or the timeout passes.
  WaitStatus WaitAny(size_t futureCount, FutureWaitInfo* futures, uint64_t timeoutNS) const;
  WaitStatus WaitAny(Future future, uint64_t timeoutNS) const;
  // Shim extension: Vulkan validation-layer messages seen so far (0 unless validation is on).
  uint64_t GetVulkanValidationMessageCount() const;
};

Instance CreateInstance(const InstanceDescriptor* descriptor = nullptr);

// Extension: the bytes of device memory that buffers (the application's and the shim's own
// staging) hold right now, over every device of the process. For tests that check memory stays
// flat.
uint64_t GetBufferMemoryInUseForTesting();
// Extension: the devices of the process not yet freed (tests check that dropping every handle,
// even mid-submit, frees the device once the GPU is done).
uint64_t GetLiveDeviceCountForTesting();

// ---- Descriptors that hold handles ----

struct PipelineLayoutDescriptor {
  std::string label;
  std::vector<BindGroupLayout> bindGroupLayouts;  // null entries mean an empty group
};

struct BindGroupEntry {
  uint32_t binding = 0;
  Buffer buffer;
  uint64_t offset = 0;
  uint64_t size = kWholeSize;
};

struct BindGroupDescriptor {
  std::string label;
  BindGroupLayout layout;
  std::vector<BindGroupEntry> entries;
};

struct ComputeState {
  ShaderModule module;
  std::string entryPoint;  // empty: the module's only compute entry point
  std::vector<ConstantEntry> constants;
};

struct ComputePipelineDescriptor {
  std::string label;
  PipelineLayout layout;  // null: `layout: "auto"`, derived from the shader
  ComputeState compute;
};

}  // namespace wgpu
