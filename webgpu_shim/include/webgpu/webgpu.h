// The standard WebGPU C API (webgpu-native's webgpu.h, the 2025 callback-mode version that
// Dawn's webgpu_cpp.h wraps), compute subset, implemented over the shim's C++ objects
// (<webgpu/webgpu_cpp.h>). A compute program written for Dawn's, wgpu-native's or
// Emscripten's webgpu.h builds and links against it unchanged, in C or C++, if it uses only what
// is listed here.
//
// Names, numeric values, struct layouts, the *_INIT macros and function signatures are the
// standard header's (webgpu-native/webgpu-headers as of July 2026, commit b3f67b8; every
// declaration here was compared with it). What is here:
//   - instance, adapter, device, queue, buffer (with mapping), shader module (WGSL and SPIR-V),
//     bind group layout, bind group, pipeline layout, compute pipeline (and its async creation),
//     command encoder, compute pass, command buffer: every function of those objects except
//     the debug markers/groups, SetImmediates, Read/WriteMappedRange, GetLostFuture and the
//     WGSL language features;
//   - AddRef/Release on every object, the FreeMembers functions, wgpuGetProcAddress.
// What is not: render, texture, sampler, query and surface entry points. Their handle types
// and the enum values that mean "not used" exist only where a compute struct has a member of
// that type (WGPUBindGroupLayoutEntry's texture layouts, WGPUBindGroupEntry's sampler, ...), so
// the structs keep the standard layout; using one is a validation error. Unknown or
// unsupported chained structs (nextInChain) are validation errors too, reported like every
// other error: to the device's error scopes or its uncaptured-error callback.
//
// Semantics follow webgpu.h's: objects start with one reference owned by the caller; objects
// passed to callbacks "with ownership" (the adapter, device and pipeline of the request
// callbacks) must be released by the application; releasing the last reference to a device
// destroys it, and its lost callback then sees a null device. Callbacks run inside
// wgpuInstanceProcessEvents / wgpuInstanceWaitAny, or at once for AllowSpontaneous when the
// result is already known. A null object where the API requires one is reported on stderr
// (with the function's name) when no device can receive it as a validation error; the call
// then does nothing and returns a null or zero result.
#ifndef WEBGPU_H_
#define WEBGPU_H_

#if defined(WGPU_SHARED_LIBRARY)
#if defined(_WIN32)
#if defined(WGPU_IMPLEMENTATION)
#define WGPU_EXPORT __declspec(dllexport)
#else
#define WGPU_EXPORT __declspec(dllimport)
#endif
#else
#if defined(WGPU_IMPLEMENTATION)
#define WGPU_EXPORT __attribute__((visibility("default")))
#else
#define WGPU_EXPORT
#endif
#endif
#else
#define WGPU_EXPORT
#endif

#if !defined(WGPU_OBJECT_ATTRIBUTE)
#define WGPU_OBJECT_ATTRIBUTE
#endif
#if !defined(WGPU_ENUM_ATTRIBUTE)
#define WGPU_ENUM_ATTRIBUTE
#endif
#if !defined(WGPU_STRUCTURE_ATTRIBUTE)
#define WGPU_STRUCTURE_ATTRIBUTE
#endif
#if !defined(WGPU_FUNCTION_ATTRIBUTE)
#define WGPU_FUNCTION_ATTRIBUTE
#endif
#if !defined(WGPU_NULLABLE)
#define WGPU_NULLABLE
#endif

#include <math.h>
#include <stddef.h>
#include <stdint.h>

// Helpers of the *_INIT macros, which work in C99 and later and in C++11 and later.
#define _wgpu_COMMA ,
#if defined(__cplusplus)
#define _wgpu_ENUM_ZERO_INIT(type) type(0)
// clang-format off
#define _wgpu_STRUCT_ZERO_INIT {}
// clang-format on
#if __cplusplus >= 201103L
#define _wgpu_MAKE_INIT_STRUCT(type, value) (type value)
#else
#define _wgpu_MAKE_INIT_STRUCT(type, value) value
#endif
#else
#define _wgpu_ENUM_ZERO_INIT(type) (type)0
// clang-format off
#define _wgpu_STRUCT_ZERO_INIT {0}
// clang-format on
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
#define _wgpu_MAKE_INIT_STRUCT(type, value) ((type)value)
#else
#define _wgpu_MAKE_INIT_STRUCT(type, value) value
#endif
#endif

// ---- Constants ----

#define WGPU_TRUE (UINT32_C(1))
#define WGPU_FALSE (UINT32_C(0))
#define WGPU_LIMIT_U32_UNDEFINED (UINT32_MAX)
#define WGPU_LIMIT_U64_UNDEFINED (UINT64_MAX)
#define WGPU_QUERY_SET_INDEX_UNDEFINED (UINT32_MAX)
#define WGPU_STRLEN (SIZE_MAX)
#define WGPU_WHOLE_MAP_SIZE (SIZE_MAX)
#define WGPU_WHOLE_SIZE (UINT64_MAX)

// ---- Strings: a pointer and a length; WGPU_STRLEN means "up to the NUL", and
// {NULL, WGPU_STRLEN} is the null (absent) string ----

typedef struct WGPUStringView {
  WGPU_NULLABLE char const* data;
  size_t length;
} WGPUStringView WGPU_STRUCTURE_ATTRIBUTE;
// clang-format off
#define WGPU_STRING_VIEW_INIT _wgpu_MAKE_INIT_STRUCT(WGPUStringView, { \
  /*.data=*/NULL _wgpu_COMMA \
  /*.length=*/WGPU_STRLEN _wgpu_COMMA \
})
// clang-format on

typedef uint64_t WGPUFlags;
typedef uint32_t WGPUBool;

// ---- Objects (Sampler, Surface and TextureView only as struct member types) ----

typedef struct WGPUAdapterImpl* WGPUAdapter WGPU_OBJECT_ATTRIBUTE;
typedef struct WGPUBindGroupImpl* WGPUBindGroup WGPU_OBJECT_ATTRIBUTE;
typedef struct WGPUBindGroupLayoutImpl* WGPUBindGroupLayout WGPU_OBJECT_ATTRIBUTE;
typedef struct WGPUBufferImpl* WGPUBuffer WGPU_OBJECT_ATTRIBUTE;
typedef struct WGPUCommandBufferImpl* WGPUCommandBuffer WGPU_OBJECT_ATTRIBUTE;
typedef struct WGPUCommandEncoderImpl* WGPUCommandEncoder WGPU_OBJECT_ATTRIBUTE;
typedef struct WGPUComputePassEncoderImpl* WGPUComputePassEncoder WGPU_OBJECT_ATTRIBUTE;
typedef struct WGPUComputePipelineImpl* WGPUComputePipeline WGPU_OBJECT_ATTRIBUTE;
typedef struct WGPUDeviceImpl* WGPUDevice WGPU_OBJECT_ATTRIBUTE;
typedef struct WGPUInstanceImpl* WGPUInstance WGPU_OBJECT_ATTRIBUTE;
typedef struct WGPUPipelineLayoutImpl* WGPUPipelineLayout WGPU_OBJECT_ATTRIBUTE;
typedef struct WGPUQuerySetImpl* WGPUQuerySet WGPU_OBJECT_ATTRIBUTE;
typedef struct WGPUQueueImpl* WGPUQueue WGPU_OBJECT_ATTRIBUTE;
typedef struct WGPUSamplerImpl* WGPUSampler WGPU_OBJECT_ATTRIBUTE;
typedef struct WGPUShaderModuleImpl* WGPUShaderModule WGPU_OBJECT_ATTRIBUTE;
typedef struct WGPUSurfaceImpl* WGPUSurface WGPU_OBJECT_ATTRIBUTE;
typedef struct WGPUTextureViewImpl* WGPUTextureView WGPU_OBJECT_ATTRIBUTE;

// ---- Enums (standard values; the texture and sampler ones hold only their "not used" values) ----

typedef enum WGPUAdapterType {
  WGPUAdapterType_DiscreteGPU = 0x00000001,
  WGPUAdapterType_IntegratedGPU = 0x00000002,
  WGPUAdapterType_CPU = 0x00000003,
  WGPUAdapterType_Unknown = 0x00000004,
  WGPUAdapterType_Force32 = 0x7FFFFFFF
} WGPUAdapterType WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUBackendType {
  WGPUBackendType_Undefined = 0x00000000,
  WGPUBackendType_Null = 0x00000001,
  WGPUBackendType_WebGPU = 0x00000002,
  WGPUBackendType_D3D11 = 0x00000003,
  WGPUBackendType_D3D12 = 0x00000004,
  WGPUBackendType_Metal = 0x00000005,
  WGPUBackendType_Vulkan = 0x00000006,
  WGPUBackendType_OpenGL = 0x00000007,
  WGPUBackendType_OpenGLES = 0x00000008,
  WGPUBackendType_Force32 = 0x7FFFFFFF
} WGPUBackendType WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUBufferBindingType {
  WGPUBufferBindingType_BindingNotUsed = 0x00000000,
  WGPUBufferBindingType_Undefined = 0x00000001,
  WGPUBufferBindingType_Uniform = 0x00000002,
  WGPUBufferBindingType_Storage = 0x00000003,
  WGPUBufferBindingType_ReadOnlyStorage = 0x00000004,
  WGPUBufferBindingType_Force32 = 0x7FFFFFFF
} WGPUBufferBindingType WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUBufferMapState {
  WGPUBufferMapState_Unmapped = 0x00000001,
  WGPUBufferMapState_Pending = 0x00000002,
  WGPUBufferMapState_Mapped = 0x00000003,
  WGPUBufferMapState_Force32 = 0x7FFFFFFF
} WGPUBufferMapState WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUCallbackMode {
  WGPUCallbackMode_WaitAnyOnly = 0x00000001,
  WGPUCallbackMode_AllowProcessEvents = 0x00000002,
  WGPUCallbackMode_AllowSpontaneous = 0x00000003,
  WGPUCallbackMode_Force32 = 0x7FFFFFFF
} WGPUCallbackMode WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUCompilationInfoRequestStatus {
  WGPUCompilationInfoRequestStatus_Success = 0x00000001,
  WGPUCompilationInfoRequestStatus_CallbackCancelled = 0x00000002,
  WGPUCompilationInfoRequestStatus_Force32 = 0x7FFFFFFF
} WGPUCompilationInfoRequestStatus WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUCompilationMessageType {
  WGPUCompilationMessageType_Error = 0x00000001,
  WGPUCompilationMessageType_Warning = 0x00000002,
  WGPUCompilationMessageType_Info = 0x00000003,
  WGPUCompilationMessageType_Force32 = 0x7FFFFFFF
} WGPUCompilationMessageType WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUCreatePipelineAsyncStatus {
  WGPUCreatePipelineAsyncStatus_Success = 0x00000001,
  WGPUCreatePipelineAsyncStatus_CallbackCancelled = 0x00000002,
  WGPUCreatePipelineAsyncStatus_ValidationError = 0x00000003,
  WGPUCreatePipelineAsyncStatus_InternalError = 0x00000004,
  WGPUCreatePipelineAsyncStatus_Force32 = 0x7FFFFFFF
} WGPUCreatePipelineAsyncStatus WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUDeviceLostReason {
  WGPUDeviceLostReason_Unknown = 0x00000001,
  WGPUDeviceLostReason_Destroyed = 0x00000002,
  WGPUDeviceLostReason_CallbackCancelled = 0x00000003,
  WGPUDeviceLostReason_FailedCreation = 0x00000004,
  WGPUDeviceLostReason_Force32 = 0x7FFFFFFF
} WGPUDeviceLostReason WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUErrorFilter {
  WGPUErrorFilter_Validation = 0x00000001,
  WGPUErrorFilter_OutOfMemory = 0x00000002,
  WGPUErrorFilter_Internal = 0x00000003,
  WGPUErrorFilter_Force32 = 0x7FFFFFFF
} WGPUErrorFilter WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUErrorType {
  WGPUErrorType_NoError = 0x00000001,
  WGPUErrorType_Validation = 0x00000002,
  WGPUErrorType_OutOfMemory = 0x00000003,
  WGPUErrorType_Internal = 0x00000004,
  WGPUErrorType_Unknown = 0x00000005,
  WGPUErrorType_Force32 = 0x7FFFFFFF
} WGPUErrorType WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUFeatureLevel {
  WGPUFeatureLevel_Undefined = 0x00000000,
  WGPUFeatureLevel_Compatibility = 0x00000001,
  WGPUFeatureLevel_Core = 0x00000002,
  WGPUFeatureLevel_Force32 = 0x7FFFFFFF
} WGPUFeatureLevel WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUFeatureName {
  WGPUFeatureName_CoreFeaturesAndLimits = 0x00000001,
  WGPUFeatureName_DepthClipControl = 0x00000002,
  WGPUFeatureName_Depth32FloatStencil8 = 0x00000003,
  WGPUFeatureName_TextureCompressionBC = 0x00000004,
  WGPUFeatureName_TextureCompressionBCSliced3D = 0x00000005,
  WGPUFeatureName_TextureCompressionETC2 = 0x00000006,
  WGPUFeatureName_TextureCompressionASTC = 0x00000007,
  WGPUFeatureName_TextureCompressionASTCSliced3D = 0x00000008,
  WGPUFeatureName_TimestampQuery = 0x00000009,
  WGPUFeatureName_IndirectFirstInstance = 0x0000000A,
  WGPUFeatureName_ShaderF16 = 0x0000000B,
  WGPUFeatureName_RG11B10UfloatRenderable = 0x0000000C,
  WGPUFeatureName_BGRA8UnormStorage = 0x0000000D,
  WGPUFeatureName_Float32Filterable = 0x0000000E,
  WGPUFeatureName_Float32Blendable = 0x0000000F,
  WGPUFeatureName_ClipDistances = 0x00000010,
  WGPUFeatureName_DualSourceBlending = 0x00000011,
  WGPUFeatureName_Subgroups = 0x00000012,
  WGPUFeatureName_TextureFormatsTier1 = 0x00000013,
  WGPUFeatureName_TextureFormatsTier2 = 0x00000014,
  WGPUFeatureName_PrimitiveIndex = 0x00000015,
  WGPUFeatureName_TextureComponentSwizzle = 0x00000016,
  WGPUFeatureName_SubgroupSizeControl = 0x00000017,
  WGPUFeatureName_Force32 = 0x7FFFFFFF
} WGPUFeatureName WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUInstanceFeatureName {
  WGPUInstanceFeatureName_TimedWaitAny = 0x00000001,
  WGPUInstanceFeatureName_ShaderSourceSPIRV = 0x00000002,
  WGPUInstanceFeatureName_MultipleDevicesPerAdapter = 0x00000003,
  WGPUInstanceFeatureName_Force32 = 0x7FFFFFFF
} WGPUInstanceFeatureName WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUMapAsyncStatus {
  WGPUMapAsyncStatus_Success = 0x00000001,
  WGPUMapAsyncStatus_CallbackCancelled = 0x00000002,
  WGPUMapAsyncStatus_Error = 0x00000003,
  WGPUMapAsyncStatus_Aborted = 0x00000004,
  WGPUMapAsyncStatus_Force32 = 0x7FFFFFFF
} WGPUMapAsyncStatus WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUPopErrorScopeStatus {
  WGPUPopErrorScopeStatus_Success = 0x00000001,
  WGPUPopErrorScopeStatus_CallbackCancelled = 0x00000002,
  WGPUPopErrorScopeStatus_Error = 0x00000003,
  WGPUPopErrorScopeStatus_Force32 = 0x7FFFFFFF
} WGPUPopErrorScopeStatus WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUPowerPreference {
  WGPUPowerPreference_Undefined = 0x00000000,
  WGPUPowerPreference_LowPower = 0x00000001,
  WGPUPowerPreference_HighPerformance = 0x00000002,
  WGPUPowerPreference_Force32 = 0x7FFFFFFF
} WGPUPowerPreference WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUQueryType {
  WGPUQueryType_Occlusion = 0x00000001,
  WGPUQueryType_Timestamp = 0x00000002,
  WGPUQueryType_Force32 = 0x7FFFFFFF
} WGPUQueryType WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUQueueWorkDoneStatus {
  WGPUQueueWorkDoneStatus_Success = 0x00000001,
  WGPUQueueWorkDoneStatus_CallbackCancelled = 0x00000002,
  WGPUQueueWorkDoneStatus_Error = 0x00000003,
  WGPUQueueWorkDoneStatus_Force32 = 0x7FFFFFFF
} WGPUQueueWorkDoneStatus WGPU_ENUM_ATTRIBUTE;
typedef enum WGPURequestAdapterStatus {
  WGPURequestAdapterStatus_Success = 0x00000001,
  WGPURequestAdapterStatus_CallbackCancelled = 0x00000002,
  WGPURequestAdapterStatus_Unavailable = 0x00000003,
  WGPURequestAdapterStatus_Error = 0x00000004,
  WGPURequestAdapterStatus_Force32 = 0x7FFFFFFF
} WGPURequestAdapterStatus WGPU_ENUM_ATTRIBUTE;
typedef enum WGPURequestDeviceStatus {
  WGPURequestDeviceStatus_Success = 0x00000001,
  WGPURequestDeviceStatus_CallbackCancelled = 0x00000002,
  WGPURequestDeviceStatus_Error = 0x00000003,
  WGPURequestDeviceStatus_Force32 = 0x7FFFFFFF
} WGPURequestDeviceStatus WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUSType {
  WGPUSType_ShaderSourceSPIRV = 0x00000001,
  WGPUSType_ShaderSourceWGSL = 0x00000002,
  WGPUSType_Force32 = 0x7FFFFFFF
} WGPUSType WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUSamplerBindingType {
  WGPUSamplerBindingType_BindingNotUsed = 0x00000000,
  WGPUSamplerBindingType_Undefined = 0x00000001,
  WGPUSamplerBindingType_Force32 = 0x7FFFFFFF
} WGPUSamplerBindingType WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUStatus {
  WGPUStatus_Success = 0x00000001,
  WGPUStatus_Error = 0x00000002,
  WGPUStatus_Force32 = 0x7FFFFFFF
} WGPUStatus WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUStorageTextureAccess {
  WGPUStorageTextureAccess_BindingNotUsed = 0x00000000,
  WGPUStorageTextureAccess_Undefined = 0x00000001,
  WGPUStorageTextureAccess_Force32 = 0x7FFFFFFF
} WGPUStorageTextureAccess WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUTextureFormat {
  WGPUTextureFormat_Undefined = 0x00000000,
  WGPUTextureFormat_Force32 = 0x7FFFFFFF
} WGPUTextureFormat WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUTextureSampleType {
  WGPUTextureSampleType_BindingNotUsed = 0x00000000,
  WGPUTextureSampleType_Undefined = 0x00000001,
  WGPUTextureSampleType_Force32 = 0x7FFFFFFF
} WGPUTextureSampleType WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUTextureViewDimension {
  WGPUTextureViewDimension_Undefined = 0x00000000,
  WGPUTextureViewDimension_Force32 = 0x7FFFFFFF
} WGPUTextureViewDimension WGPU_ENUM_ATTRIBUTE;
typedef enum WGPUWaitStatus {
  WGPUWaitStatus_Success = 0x00000001,
  WGPUWaitStatus_TimedOut = 0x00000002,
  WGPUWaitStatus_Error = 0x00000003,
  WGPUWaitStatus_Force32 = 0x7FFFFFFF
} WGPUWaitStatus WGPU_ENUM_ATTRIBUTE;

// ---- Bit flags ----

typedef WGPUFlags WGPUBufferUsage;
static const WGPUBufferUsage WGPUBufferUsage_None = 0x0000000000000000;
static const WGPUBufferUsage WGPUBufferUsage_MapRead = 0x0000000000000001;
static const WGPUBufferUsage WGPUBufferUsage_MapWrite = 0x0000000000000002;
static const WGPUBufferUsage WGPUBufferUsage_CopySrc = 0x0000000000000004;
static const WGPUBufferUsage WGPUBufferUsage_CopyDst = 0x0000000000000008;
static const WGPUBufferUsage WGPUBufferUsage_Index = 0x0000000000000010;
static const WGPUBufferUsage WGPUBufferUsage_Vertex = 0x0000000000000020;
static const WGPUBufferUsage WGPUBufferUsage_Uniform = 0x0000000000000040;
static const WGPUBufferUsage WGPUBufferUsage_Storage = 0x0000000000000080;
static const WGPUBufferUsage WGPUBufferUsage_Indirect = 0x0000000000000100;
static const WGPUBufferUsage WGPUBufferUsage_QueryResolve = 0x0000000000000200;
typedef WGPUFlags WGPUMapMode;
static const WGPUMapMode WGPUMapMode_None = 0x0000000000000000;
static const WGPUMapMode WGPUMapMode_Read = 0x0000000000000001;
static const WGPUMapMode WGPUMapMode_Write = 0x0000000000000002;
typedef WGPUFlags WGPUShaderStage;
static const WGPUShaderStage WGPUShaderStage_None = 0x0000000000000000;
static const WGPUShaderStage WGPUShaderStage_Vertex = 0x0000000000000001;
static const WGPUShaderStage WGPUShaderStage_Fragment = 0x0000000000000002;
static const WGPUShaderStage WGPUShaderStage_Compute = 0x0000000000000004;

// ---- Struct forward declarations ----

struct WGPUChainedStruct;
struct WGPUBufferMapCallbackInfo;
struct WGPUCompilationInfoCallbackInfo;
struct WGPUCreateComputePipelineAsyncCallbackInfo;
struct WGPUDeviceLostCallbackInfo;
struct WGPUPopErrorScopeCallbackInfo;
struct WGPUQueueWorkDoneCallbackInfo;
struct WGPURequestAdapterCallbackInfo;
struct WGPURequestDeviceCallbackInfo;
struct WGPUUncapturedErrorCallbackInfo;
struct WGPUAdapterInfo;
struct WGPUBufferBindingLayout;
struct WGPUBufferDescriptor;
struct WGPUCommandBufferDescriptor;
struct WGPUCommandEncoderDescriptor;
struct WGPUCompilationMessage;
struct WGPUConstantEntry;
struct WGPUFuture;
struct WGPUInstanceLimits;
struct WGPUPassTimestampWrites;
struct WGPUPipelineLayoutDescriptor;
struct WGPUQuerySetDescriptor;
struct WGPUQueueDescriptor;
struct WGPUSamplerBindingLayout;
struct WGPUShaderSourceSPIRV;
struct WGPUShaderSourceWGSL;
struct WGPUStorageTextureBindingLayout;
struct WGPUSupportedFeatures;
struct WGPUSupportedInstanceFeatures;
struct WGPUTextureBindingLayout;
struct WGPUBindGroupEntry;
struct WGPUBindGroupLayoutEntry;
struct WGPUCompilationInfo;
struct WGPUComputePassDescriptor;
struct WGPUComputeState;
struct WGPUFutureWaitInfo;
struct WGPUInstanceDescriptor;
struct WGPULimits;
struct WGPURequestAdapterOptions;
struct WGPUShaderModuleDescriptor;
struct WGPUBindGroupDescriptor;
struct WGPUBindGroupLayoutDescriptor;
struct WGPUComputePipelineDescriptor;
struct WGPUDeviceDescriptor;

// ---- Callbacks: every one takes two user pointers, userdata1 and userdata2 ----

typedef void (*WGPUProc)(void) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUBufferMapCallback)(WGPUMapAsyncStatus status, WGPUStringView message,
                                      WGPU_NULLABLE void* userdata1,
                                      WGPU_NULLABLE void* userdata2) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUCompilationInfoCallback)(WGPUCompilationInfoRequestStatus status,
                                            struct WGPUCompilationInfo const* compilationInfo,
                                            WGPU_NULLABLE void* userdata1,
                                            WGPU_NULLABLE void* userdata2) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUCreateComputePipelineAsyncCallback)(
    WGPUCreatePipelineAsyncStatus status, WGPUComputePipeline pipeline, WGPUStringView message,
    WGPU_NULLABLE void* userdata1, WGPU_NULLABLE void* userdata2) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUDeviceLostCallback)(WGPUDevice const* device, WGPUDeviceLostReason reason,
                                       WGPUStringView message, WGPU_NULLABLE void* userdata1,
                                       WGPU_NULLABLE void* userdata2) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUPopErrorScopeCallback)(WGPUPopErrorScopeStatus status, WGPUErrorType type,
                                          WGPUStringView message, WGPU_NULLABLE void* userdata1,
                                          WGPU_NULLABLE void* userdata2) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUQueueWorkDoneCallback)(WGPUQueueWorkDoneStatus status, WGPUStringView message,
                                          WGPU_NULLABLE void* userdata1,
                                          WGPU_NULLABLE void* userdata2) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPURequestAdapterCallback)(WGPURequestAdapterStatus status, WGPUAdapter adapter,
                                           WGPUStringView message, WGPU_NULLABLE void* userdata1,
                                           WGPU_NULLABLE void* userdata2) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPURequestDeviceCallback)(WGPURequestDeviceStatus status, WGPUDevice device,
                                          WGPUStringView message, WGPU_NULLABLE void* userdata1,
                                          WGPU_NULLABLE void* userdata2) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUUncapturedErrorCallback)(WGPUDevice const* device, WGPUErrorType type,
                                            WGPUStringView message, WGPU_NULLABLE void* userdata1,
                                            WGPU_NULLABLE void* userdata2) WGPU_FUNCTION_ATTRIBUTE;

// ---- Structs ----

// One member per line, as in the standard header, so that the two can be compared line by
// line; the *_INIT macros list the defaults in the members' order.
// clang-format off
typedef struct WGPUChainedStruct {
  struct WGPUChainedStruct* next;
  WGPUSType sType;
} WGPUChainedStruct WGPU_STRUCTURE_ATTRIBUTE;
typedef struct WGPUBufferMapCallbackInfo {
  WGPUChainedStruct* nextInChain;
  WGPUCallbackMode mode;
  WGPUBufferMapCallback callback;
  WGPU_NULLABLE void* userdata1;
  WGPU_NULLABLE void* userdata2;
} WGPUBufferMapCallbackInfo WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_BUFFER_MAP_CALLBACK_INFO_INIT _wgpu_MAKE_INIT_STRUCT(WGPUBufferMapCallbackInfo, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.mode=*/_wgpu_ENUM_ZERO_INIT(WGPUCallbackMode) _wgpu_COMMA \
  /*.callback=*/NULL _wgpu_COMMA \
  /*.userdata1=*/NULL _wgpu_COMMA \
  /*.userdata2=*/NULL _wgpu_COMMA \
})
typedef struct WGPUCompilationInfoCallbackInfo {
  WGPUChainedStruct* nextInChain;
  WGPUCallbackMode mode;
  WGPUCompilationInfoCallback callback;
  WGPU_NULLABLE void* userdata1;
  WGPU_NULLABLE void* userdata2;
} WGPUCompilationInfoCallbackInfo WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_COMPILATION_INFO_CALLBACK_INFO_INIT _wgpu_MAKE_INIT_STRUCT(WGPUCompilationInfoCallbackInfo, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.mode=*/_wgpu_ENUM_ZERO_INIT(WGPUCallbackMode) _wgpu_COMMA \
  /*.callback=*/NULL _wgpu_COMMA \
  /*.userdata1=*/NULL _wgpu_COMMA \
  /*.userdata2=*/NULL _wgpu_COMMA \
})
typedef struct WGPUCreateComputePipelineAsyncCallbackInfo {
  WGPUChainedStruct* nextInChain;
  WGPUCallbackMode mode;
  WGPUCreateComputePipelineAsyncCallback callback;
  WGPU_NULLABLE void* userdata1;
  WGPU_NULLABLE void* userdata2;
} WGPUCreateComputePipelineAsyncCallbackInfo WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_CREATE_COMPUTE_PIPELINE_ASYNC_CALLBACK_INFO_INIT _wgpu_MAKE_INIT_STRUCT(WGPUCreateComputePipelineAsyncCallbackInfo, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.mode=*/_wgpu_ENUM_ZERO_INIT(WGPUCallbackMode) _wgpu_COMMA \
  /*.callback=*/NULL _wgpu_COMMA \
  /*.userdata1=*/NULL _wgpu_COMMA \
  /*.userdata2=*/NULL _wgpu_COMMA \
})
typedef struct WGPUDeviceLostCallbackInfo {
  WGPUChainedStruct* nextInChain;
  WGPUCallbackMode mode;
  WGPUDeviceLostCallback callback;
  WGPU_NULLABLE void* userdata1;
  WGPU_NULLABLE void* userdata2;
} WGPUDeviceLostCallbackInfo WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_DEVICE_LOST_CALLBACK_INFO_INIT _wgpu_MAKE_INIT_STRUCT(WGPUDeviceLostCallbackInfo, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.mode=*/_wgpu_ENUM_ZERO_INIT(WGPUCallbackMode) _wgpu_COMMA \
  /*.callback=*/NULL _wgpu_COMMA \
  /*.userdata1=*/NULL _wgpu_COMMA \
  /*.userdata2=*/NULL _wgpu_COMMA \
})
typedef struct WGPUPopErrorScopeCallbackInfo {
  WGPUChainedStruct* nextInChain;
  WGPUCallbackMode mode;
  WGPUPopErrorScopeCallback callback;
  WGPU_NULLABLE void* userdata1;
  WGPU_NULLABLE void* userdata2;
} WGPUPopErrorScopeCallbackInfo WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_POP_ERROR_SCOPE_CALLBACK_INFO_INIT _wgpu_MAKE_INIT_STRUCT(WGPUPopErrorScopeCallbackInfo, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.mode=*/_wgpu_ENUM_ZERO_INIT(WGPUCallbackMode) _wgpu_COMMA \
  /*.callback=*/NULL _wgpu_COMMA \
  /*.userdata1=*/NULL _wgpu_COMMA \
  /*.userdata2=*/NULL _wgpu_COMMA \
})
typedef struct WGPUQueueWorkDoneCallbackInfo {
  WGPUChainedStruct* nextInChain;
  WGPUCallbackMode mode;
  WGPUQueueWorkDoneCallback callback;
  WGPU_NULLABLE void* userdata1;
  WGPU_NULLABLE void* userdata2;
} WGPUQueueWorkDoneCallbackInfo WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_QUEUE_WORK_DONE_CALLBACK_INFO_INIT _wgpu_MAKE_INIT_STRUCT(WGPUQueueWorkDoneCallbackInfo, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.mode=*/_wgpu_ENUM_ZERO_INIT(WGPUCallbackMode) _wgpu_COMMA \
  /*.callback=*/NULL _wgpu_COMMA \
  /*.userdata1=*/NULL _wgpu_COMMA \
  /*.userdata2=*/NULL _wgpu_COMMA \
})
typedef struct WGPURequestAdapterCallbackInfo {
  WGPUChainedStruct* nextInChain;
  WGPUCallbackMode mode;
  WGPURequestAdapterCallback callback;
  WGPU_NULLABLE void* userdata1;
  WGPU_NULLABLE void* userdata2;
} WGPURequestAdapterCallbackInfo WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_REQUEST_ADAPTER_CALLBACK_INFO_INIT _wgpu_MAKE_INIT_STRUCT(WGPURequestAdapterCallbackInfo, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.mode=*/_wgpu_ENUM_ZERO_INIT(WGPUCallbackMode) _wgpu_COMMA \
  /*.callback=*/NULL _wgpu_COMMA \
  /*.userdata1=*/NULL _wgpu_COMMA \
  /*.userdata2=*/NULL _wgpu_COMMA \
})
typedef struct WGPURequestDeviceCallbackInfo {
  WGPUChainedStruct* nextInChain;
  WGPUCallbackMode mode;
  WGPURequestDeviceCallback callback;
  WGPU_NULLABLE void* userdata1;
  WGPU_NULLABLE void* userdata2;
} WGPURequestDeviceCallbackInfo WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_REQUEST_DEVICE_CALLBACK_INFO_INIT _wgpu_MAKE_INIT_STRUCT(WGPURequestDeviceCallbackInfo, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.mode=*/_wgpu_ENUM_ZERO_INIT(WGPUCallbackMode) _wgpu_COMMA \
  /*.callback=*/NULL _wgpu_COMMA \
  /*.userdata1=*/NULL _wgpu_COMMA \
  /*.userdata2=*/NULL _wgpu_COMMA \
})
typedef struct WGPUUncapturedErrorCallbackInfo {
  WGPUChainedStruct* nextInChain;
  WGPUUncapturedErrorCallback callback;
  WGPU_NULLABLE void* userdata1;
  WGPU_NULLABLE void* userdata2;
} WGPUUncapturedErrorCallbackInfo WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_UNCAPTURED_ERROR_CALLBACK_INFO_INIT _wgpu_MAKE_INIT_STRUCT(WGPUUncapturedErrorCallbackInfo, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.callback=*/NULL _wgpu_COMMA \
  /*.userdata1=*/NULL _wgpu_COMMA \
  /*.userdata2=*/NULL _wgpu_COMMA \
})
typedef struct WGPUAdapterInfo {
  WGPUChainedStruct* nextInChain;
  WGPUStringView vendor;
  WGPUStringView architecture;
  WGPUStringView device;
  WGPUStringView description;
  WGPUBackendType backendType;
  WGPUAdapterType adapterType;
  uint32_t vendorID;
  uint32_t deviceID;
  uint32_t subgroupMinSize;
  uint32_t subgroupMaxSize;
} WGPUAdapterInfo WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_ADAPTER_INFO_INIT _wgpu_MAKE_INIT_STRUCT(WGPUAdapterInfo, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.vendor=*/WGPU_STRING_VIEW_INIT _wgpu_COMMA \
  /*.architecture=*/WGPU_STRING_VIEW_INIT _wgpu_COMMA \
  /*.device=*/WGPU_STRING_VIEW_INIT _wgpu_COMMA \
  /*.description=*/WGPU_STRING_VIEW_INIT _wgpu_COMMA \
  /*.backendType=*/WGPUBackendType_Undefined _wgpu_COMMA \
  /*.adapterType=*/_wgpu_ENUM_ZERO_INIT(WGPUAdapterType) _wgpu_COMMA \
  /*.vendorID=*/0 _wgpu_COMMA \
  /*.deviceID=*/0 _wgpu_COMMA \
  /*.subgroupMinSize=*/0 _wgpu_COMMA \
  /*.subgroupMaxSize=*/0 _wgpu_COMMA \
})
typedef struct WGPUBufferBindingLayout {
  WGPUChainedStruct* nextInChain;
  WGPUBufferBindingType type;
  WGPUBool hasDynamicOffset;
  uint64_t minBindingSize;
} WGPUBufferBindingLayout WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_BUFFER_BINDING_LAYOUT_INIT _wgpu_MAKE_INIT_STRUCT(WGPUBufferBindingLayout, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.type=*/WGPUBufferBindingType_Undefined _wgpu_COMMA \
  /*.hasDynamicOffset=*/WGPU_FALSE _wgpu_COMMA \
  /*.minBindingSize=*/0 _wgpu_COMMA \
})
typedef struct WGPUBufferDescriptor {
  WGPUChainedStruct* nextInChain;
  WGPUStringView label;
  WGPUBufferUsage usage;
  uint64_t size;
  WGPUBool mappedAtCreation;
} WGPUBufferDescriptor WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_BUFFER_DESCRIPTOR_INIT _wgpu_MAKE_INIT_STRUCT(WGPUBufferDescriptor, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.label=*/WGPU_STRING_VIEW_INIT _wgpu_COMMA \
  /*.usage=*/WGPUBufferUsage_None _wgpu_COMMA \
  /*.size=*/0 _wgpu_COMMA \
  /*.mappedAtCreation=*/WGPU_FALSE _wgpu_COMMA \
})
typedef struct WGPUCommandBufferDescriptor {
  WGPUChainedStruct* nextInChain;
  WGPUStringView label;
} WGPUCommandBufferDescriptor WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_COMMAND_BUFFER_DESCRIPTOR_INIT _wgpu_MAKE_INIT_STRUCT(WGPUCommandBufferDescriptor, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.label=*/WGPU_STRING_VIEW_INIT _wgpu_COMMA \
})
typedef struct WGPUCommandEncoderDescriptor {
  WGPUChainedStruct* nextInChain;
  WGPUStringView label;
} WGPUCommandEncoderDescriptor WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_COMMAND_ENCODER_DESCRIPTOR_INIT _wgpu_MAKE_INIT_STRUCT(WGPUCommandEncoderDescriptor, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.label=*/WGPU_STRING_VIEW_INIT _wgpu_COMMA \
})
typedef struct WGPUCompilationMessage {
  WGPUChainedStruct* nextInChain;
  WGPUStringView message;
  WGPUCompilationMessageType type;
  uint64_t lineNum;
  uint64_t linePos;
  uint64_t offset;
  uint64_t length;
} WGPUCompilationMessage WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_COMPILATION_MESSAGE_INIT _wgpu_MAKE_INIT_STRUCT(WGPUCompilationMessage, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.message=*/WGPU_STRING_VIEW_INIT _wgpu_COMMA \
  /*.type=*/_wgpu_ENUM_ZERO_INIT(WGPUCompilationMessageType) _wgpu_COMMA \
  /*.lineNum=*/0 _wgpu_COMMA \
  /*.linePos=*/0 _wgpu_COMMA \
  /*.offset=*/0 _wgpu_COMMA \
  /*.length=*/0 _wgpu_COMMA \
})
typedef struct WGPUConstantEntry {
  WGPUChainedStruct* nextInChain;
  WGPUStringView key;
  double value;
} WGPUConstantEntry WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_CONSTANT_ENTRY_INIT _wgpu_MAKE_INIT_STRUCT(WGPUConstantEntry, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.key=*/WGPU_STRING_VIEW_INIT _wgpu_COMMA \
  /*.value=*/0. _wgpu_COMMA \
})
typedef struct WGPUFuture {
  uint64_t id;
} WGPUFuture WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_FUTURE_INIT _wgpu_MAKE_INIT_STRUCT(WGPUFuture, { \
  /*.id=*/0 _wgpu_COMMA \
})
typedef struct WGPUInstanceLimits {
  WGPUChainedStruct* nextInChain;
  size_t timedWaitAnyMaxCount;
} WGPUInstanceLimits WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_INSTANCE_LIMITS_INIT _wgpu_MAKE_INIT_STRUCT(WGPUInstanceLimits, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.timedWaitAnyMaxCount=*/0 _wgpu_COMMA \
})
typedef struct WGPUPassTimestampWrites {
  WGPUChainedStruct* nextInChain;
  WGPUQuerySet querySet;
  uint32_t beginningOfPassWriteIndex;
  uint32_t endOfPassWriteIndex;
} WGPUPassTimestampWrites WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_PASS_TIMESTAMP_WRITES_INIT _wgpu_MAKE_INIT_STRUCT(WGPUPassTimestampWrites, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.querySet=*/NULL _wgpu_COMMA \
  /*.beginningOfPassWriteIndex=*/WGPU_QUERY_SET_INDEX_UNDEFINED _wgpu_COMMA \
  /*.endOfPassWriteIndex=*/WGPU_QUERY_SET_INDEX_UNDEFINED _wgpu_COMMA \
})
typedef struct WGPUQuerySetDescriptor {
  WGPUChainedStruct* nextInChain;
  WGPUStringView label;
  WGPUQueryType type;
  uint32_t count;
} WGPUQuerySetDescriptor WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_QUERY_SET_DESCRIPTOR_INIT _wgpu_MAKE_INIT_STRUCT(WGPUQuerySetDescriptor, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.label=*/WGPU_STRING_VIEW_INIT _wgpu_COMMA \
  /*.type=*/_wgpu_ENUM_ZERO_INIT(WGPUQueryType) _wgpu_COMMA \
  /*.count=*/0 _wgpu_COMMA \
})
typedef struct WGPUPipelineLayoutDescriptor {
  WGPUChainedStruct* nextInChain;
  WGPUStringView label;
  size_t bindGroupLayoutCount;
  WGPUBindGroupLayout const* bindGroupLayouts;
  uint32_t immediateSize;
} WGPUPipelineLayoutDescriptor WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_PIPELINE_LAYOUT_DESCRIPTOR_INIT _wgpu_MAKE_INIT_STRUCT(WGPUPipelineLayoutDescriptor, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.label=*/WGPU_STRING_VIEW_INIT _wgpu_COMMA \
  /*.bindGroupLayoutCount=*/0 _wgpu_COMMA \
  /*.bindGroupLayouts=*/NULL _wgpu_COMMA \
  /*.immediateSize=*/0 _wgpu_COMMA \
})
typedef struct WGPUQueueDescriptor {
  WGPUChainedStruct* nextInChain;
  WGPUStringView label;
} WGPUQueueDescriptor WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_QUEUE_DESCRIPTOR_INIT _wgpu_MAKE_INIT_STRUCT(WGPUQueueDescriptor, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.label=*/WGPU_STRING_VIEW_INIT _wgpu_COMMA \
})
typedef struct WGPUSamplerBindingLayout {
  WGPUChainedStruct* nextInChain;
  WGPUSamplerBindingType type;
} WGPUSamplerBindingLayout WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_SAMPLER_BINDING_LAYOUT_INIT _wgpu_MAKE_INIT_STRUCT(WGPUSamplerBindingLayout, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.type=*/WGPUSamplerBindingType_Undefined _wgpu_COMMA \
})
typedef struct WGPUShaderSourceSPIRV {
  WGPUChainedStruct chain;
  uint32_t codeSize;
  uint32_t const* code;
} WGPUShaderSourceSPIRV WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_SHADER_SOURCE_SPIRV_INIT _wgpu_MAKE_INIT_STRUCT(WGPUShaderSourceSPIRV, { \
  /*.chain=*/_wgpu_MAKE_INIT_STRUCT(WGPUChainedStruct, { \
      /*.next=*/NULL _wgpu_COMMA \
      /*.sType=*/WGPUSType_ShaderSourceSPIRV _wgpu_COMMA \
  }) _wgpu_COMMA \
  /*.codeSize=*/0 _wgpu_COMMA \
  /*.code=*/NULL _wgpu_COMMA \
})
typedef struct WGPUShaderSourceWGSL {
  WGPUChainedStruct chain;
  WGPUStringView code;
} WGPUShaderSourceWGSL WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_SHADER_SOURCE_WGSL_INIT _wgpu_MAKE_INIT_STRUCT(WGPUShaderSourceWGSL, { \
  /*.chain=*/_wgpu_MAKE_INIT_STRUCT(WGPUChainedStruct, { \
      /*.next=*/NULL _wgpu_COMMA \
      /*.sType=*/WGPUSType_ShaderSourceWGSL _wgpu_COMMA \
  }) _wgpu_COMMA \
  /*.code=*/WGPU_STRING_VIEW_INIT _wgpu_COMMA \
})
typedef struct WGPUStorageTextureBindingLayout {
  WGPUChainedStruct* nextInChain;
  WGPUStorageTextureAccess access;
  WGPUTextureFormat format;
  WGPUTextureViewDimension viewDimension;
} WGPUStorageTextureBindingLayout WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_STORAGE_TEXTURE_BINDING_LAYOUT_INIT _wgpu_MAKE_INIT_STRUCT(WGPUStorageTextureBindingLayout, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.access=*/WGPUStorageTextureAccess_Undefined _wgpu_COMMA \
  /*.format=*/WGPUTextureFormat_Undefined _wgpu_COMMA \
  /*.viewDimension=*/WGPUTextureViewDimension_Undefined _wgpu_COMMA \
})
typedef struct WGPUSupportedFeatures {
  size_t featureCount;
  WGPUFeatureName const* features;
} WGPUSupportedFeatures WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_SUPPORTED_FEATURES_INIT _wgpu_MAKE_INIT_STRUCT(WGPUSupportedFeatures, { \
  /*.featureCount=*/0 _wgpu_COMMA \
  /*.features=*/NULL _wgpu_COMMA \
})
typedef struct WGPUSupportedInstanceFeatures {
  size_t featureCount;
  WGPUInstanceFeatureName const* features;
} WGPUSupportedInstanceFeatures WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_SUPPORTED_INSTANCE_FEATURES_INIT _wgpu_MAKE_INIT_STRUCT(WGPUSupportedInstanceFeatures, { \
  /*.featureCount=*/0 _wgpu_COMMA \
  /*.features=*/NULL _wgpu_COMMA \
})
typedef struct WGPUTextureBindingLayout {
  WGPUChainedStruct* nextInChain;
  WGPUTextureSampleType sampleType;
  WGPUTextureViewDimension viewDimension;
  WGPUBool multisampled;
} WGPUTextureBindingLayout WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_TEXTURE_BINDING_LAYOUT_INIT _wgpu_MAKE_INIT_STRUCT(WGPUTextureBindingLayout, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.sampleType=*/WGPUTextureSampleType_Undefined _wgpu_COMMA \
  /*.viewDimension=*/WGPUTextureViewDimension_Undefined _wgpu_COMMA \
  /*.multisampled=*/WGPU_FALSE _wgpu_COMMA \
})
typedef struct WGPUBindGroupEntry {
  WGPUChainedStruct* nextInChain;
  uint32_t binding;
  WGPU_NULLABLE WGPUBuffer buffer;
  uint64_t offset;
  uint64_t size;
  WGPU_NULLABLE WGPUSampler sampler;
  WGPU_NULLABLE WGPUTextureView textureView;
} WGPUBindGroupEntry WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_BIND_GROUP_ENTRY_INIT _wgpu_MAKE_INIT_STRUCT(WGPUBindGroupEntry, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.binding=*/0 _wgpu_COMMA \
  /*.buffer=*/NULL _wgpu_COMMA \
  /*.offset=*/0 _wgpu_COMMA \
  /*.size=*/WGPU_WHOLE_SIZE _wgpu_COMMA \
  /*.sampler=*/NULL _wgpu_COMMA \
  /*.textureView=*/NULL _wgpu_COMMA \
})
typedef struct WGPUBindGroupLayoutEntry {
  WGPUChainedStruct* nextInChain;
  uint32_t binding;
  WGPUShaderStage visibility;
  uint32_t bindingArraySize;
  WGPUBufferBindingLayout buffer;
  WGPUSamplerBindingLayout sampler;
  WGPUTextureBindingLayout texture;
  WGPUStorageTextureBindingLayout storageTexture;
} WGPUBindGroupLayoutEntry WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT _wgpu_MAKE_INIT_STRUCT(WGPUBindGroupLayoutEntry, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.binding=*/0 _wgpu_COMMA \
  /*.visibility=*/WGPUShaderStage_None _wgpu_COMMA \
  /*.bindingArraySize=*/0 _wgpu_COMMA \
  /*.buffer=*/_wgpu_STRUCT_ZERO_INIT _wgpu_COMMA \
  /*.sampler=*/_wgpu_STRUCT_ZERO_INIT _wgpu_COMMA \
  /*.texture=*/_wgpu_STRUCT_ZERO_INIT _wgpu_COMMA \
  /*.storageTexture=*/_wgpu_STRUCT_ZERO_INIT _wgpu_COMMA \
})
typedef struct WGPUCompilationInfo {
  WGPUChainedStruct* nextInChain;
  size_t messageCount;
  WGPUCompilationMessage const* messages;
} WGPUCompilationInfo WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_COMPILATION_INFO_INIT _wgpu_MAKE_INIT_STRUCT(WGPUCompilationInfo, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.messageCount=*/0 _wgpu_COMMA \
  /*.messages=*/NULL _wgpu_COMMA \
})
typedef struct WGPUComputePassDescriptor {
  WGPUChainedStruct* nextInChain;
  WGPUStringView label;
  WGPU_NULLABLE WGPUPassTimestampWrites const* timestampWrites;
} WGPUComputePassDescriptor WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_COMPUTE_PASS_DESCRIPTOR_INIT _wgpu_MAKE_INIT_STRUCT(WGPUComputePassDescriptor, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.label=*/WGPU_STRING_VIEW_INIT _wgpu_COMMA \
  /*.timestampWrites=*/NULL _wgpu_COMMA \
})
typedef struct WGPUComputeState {
  WGPUChainedStruct* nextInChain;
  WGPUShaderModule module;
  WGPUStringView entryPoint;
  size_t constantCount;
  WGPUConstantEntry const* constants;
} WGPUComputeState WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_COMPUTE_STATE_INIT _wgpu_MAKE_INIT_STRUCT(WGPUComputeState, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.module=*/NULL _wgpu_COMMA \
  /*.entryPoint=*/WGPU_STRING_VIEW_INIT _wgpu_COMMA \
  /*.constantCount=*/0 _wgpu_COMMA \
  /*.constants=*/NULL _wgpu_COMMA \
})
typedef struct WGPUFutureWaitInfo {
  WGPUFuture future;
  WGPUBool completed;
} WGPUFutureWaitInfo WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_FUTURE_WAIT_INFO_INIT _wgpu_MAKE_INIT_STRUCT(WGPUFutureWaitInfo, { \
  /*.future=*/WGPU_FUTURE_INIT _wgpu_COMMA \
  /*.completed=*/WGPU_FALSE _wgpu_COMMA \
})
typedef struct WGPUInstanceDescriptor {
  WGPUChainedStruct* nextInChain;
  size_t requiredFeatureCount;
  WGPUInstanceFeatureName const* requiredFeatures;
  WGPU_NULLABLE WGPUInstanceLimits const* requiredLimits;
} WGPUInstanceDescriptor WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_INSTANCE_DESCRIPTOR_INIT _wgpu_MAKE_INIT_STRUCT(WGPUInstanceDescriptor, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.requiredFeatureCount=*/0 _wgpu_COMMA \
  /*.requiredFeatures=*/NULL _wgpu_COMMA \
  /*.requiredLimits=*/NULL _wgpu_COMMA \
})
typedef struct WGPULimits {
  WGPUChainedStruct* nextInChain;
  uint32_t maxTextureDimension1D;
  uint32_t maxTextureDimension2D;
  uint32_t maxTextureDimension3D;
  uint32_t maxTextureArrayLayers;
  uint32_t maxBindGroups;
  uint32_t maxBindGroupsPlusVertexBuffers;
  uint32_t maxBindingsPerBindGroup;
  uint32_t maxDynamicUniformBuffersPerPipelineLayout;
  uint32_t maxDynamicStorageBuffersPerPipelineLayout;
  uint32_t maxSampledTexturesPerShaderStage;
  uint32_t maxSamplersPerShaderStage;
  uint32_t maxStorageBuffersPerShaderStage;
  uint32_t maxStorageTexturesPerShaderStage;
  uint32_t maxUniformBuffersPerShaderStage;
  uint64_t maxUniformBufferBindingSize;
  uint64_t maxStorageBufferBindingSize;
  uint32_t minUniformBufferOffsetAlignment;
  uint32_t minStorageBufferOffsetAlignment;
  uint32_t maxVertexBuffers;
  uint64_t maxBufferSize;
  uint32_t maxVertexAttributes;
  uint32_t maxVertexBufferArrayStride;
  uint32_t maxInterStageShaderVariables;
  uint32_t maxColorAttachments;
  uint32_t maxColorAttachmentBytesPerSample;
  uint32_t maxComputeWorkgroupStorageSize;
  uint32_t maxComputeInvocationsPerWorkgroup;
  uint32_t maxComputeWorkgroupSizeX;
  uint32_t maxComputeWorkgroupSizeY;
  uint32_t maxComputeWorkgroupSizeZ;
  uint32_t maxComputeWorkgroupsPerDimension;
  uint32_t maxImmediateSize;
} WGPULimits WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_LIMITS_INIT _wgpu_MAKE_INIT_STRUCT(WGPULimits, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.maxTextureDimension1D=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxTextureDimension2D=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxTextureDimension3D=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxTextureArrayLayers=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxBindGroups=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxBindGroupsPlusVertexBuffers=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxBindingsPerBindGroup=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxDynamicUniformBuffersPerPipelineLayout=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxDynamicStorageBuffersPerPipelineLayout=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxSampledTexturesPerShaderStage=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxSamplersPerShaderStage=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxStorageBuffersPerShaderStage=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxStorageTexturesPerShaderStage=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxUniformBuffersPerShaderStage=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxUniformBufferBindingSize=*/WGPU_LIMIT_U64_UNDEFINED _wgpu_COMMA \
  /*.maxStorageBufferBindingSize=*/WGPU_LIMIT_U64_UNDEFINED _wgpu_COMMA \
  /*.minUniformBufferOffsetAlignment=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.minStorageBufferOffsetAlignment=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxVertexBuffers=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxBufferSize=*/WGPU_LIMIT_U64_UNDEFINED _wgpu_COMMA \
  /*.maxVertexAttributes=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxVertexBufferArrayStride=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxInterStageShaderVariables=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxColorAttachments=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxColorAttachmentBytesPerSample=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxComputeWorkgroupStorageSize=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxComputeInvocationsPerWorkgroup=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxComputeWorkgroupSizeX=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxComputeWorkgroupSizeY=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxComputeWorkgroupSizeZ=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxComputeWorkgroupsPerDimension=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
  /*.maxImmediateSize=*/WGPU_LIMIT_U32_UNDEFINED _wgpu_COMMA \
})
typedef struct WGPURequestAdapterOptions {
  WGPUChainedStruct* nextInChain;
  WGPUFeatureLevel featureLevel;
  WGPUPowerPreference powerPreference;
  WGPUBool forceFallbackAdapter;
  WGPUBackendType backendType;
  WGPU_NULLABLE WGPUSurface compatibleSurface;
} WGPURequestAdapterOptions WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_REQUEST_ADAPTER_OPTIONS_INIT _wgpu_MAKE_INIT_STRUCT(WGPURequestAdapterOptions, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.featureLevel=*/WGPUFeatureLevel_Undefined _wgpu_COMMA \
  /*.powerPreference=*/WGPUPowerPreference_Undefined _wgpu_COMMA \
  /*.forceFallbackAdapter=*/WGPU_FALSE _wgpu_COMMA \
  /*.backendType=*/WGPUBackendType_Undefined _wgpu_COMMA \
  /*.compatibleSurface=*/NULL _wgpu_COMMA \
})
typedef struct WGPUShaderModuleDescriptor {
  WGPUChainedStruct* nextInChain;
  WGPUStringView label;
} WGPUShaderModuleDescriptor WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_SHADER_MODULE_DESCRIPTOR_INIT _wgpu_MAKE_INIT_STRUCT(WGPUShaderModuleDescriptor, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.label=*/WGPU_STRING_VIEW_INIT _wgpu_COMMA \
})
typedef struct WGPUBindGroupDescriptor {
  WGPUChainedStruct* nextInChain;
  WGPUStringView label;
  WGPUBindGroupLayout layout;
  size_t entryCount;
  WGPUBindGroupEntry const* entries;
} WGPUBindGroupDescriptor WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_BIND_GROUP_DESCRIPTOR_INIT _wgpu_MAKE_INIT_STRUCT(WGPUBindGroupDescriptor, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.label=*/WGPU_STRING_VIEW_INIT _wgpu_COMMA \
  /*.layout=*/NULL _wgpu_COMMA \
  /*.entryCount=*/0 _wgpu_COMMA \
  /*.entries=*/NULL _wgpu_COMMA \
})
typedef struct WGPUBindGroupLayoutDescriptor {
  WGPUChainedStruct* nextInChain;
  WGPUStringView label;
  size_t entryCount;
  WGPUBindGroupLayoutEntry const* entries;
} WGPUBindGroupLayoutDescriptor WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_BIND_GROUP_LAYOUT_DESCRIPTOR_INIT _wgpu_MAKE_INIT_STRUCT(WGPUBindGroupLayoutDescriptor, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.label=*/WGPU_STRING_VIEW_INIT _wgpu_COMMA \
  /*.entryCount=*/0 _wgpu_COMMA \
  /*.entries=*/NULL _wgpu_COMMA \
})
typedef struct WGPUComputePipelineDescriptor {
  WGPUChainedStruct* nextInChain;
  WGPUStringView label;
  WGPU_NULLABLE WGPUPipelineLayout layout;
  WGPUComputeState compute;
} WGPUComputePipelineDescriptor WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT _wgpu_MAKE_INIT_STRUCT(WGPUComputePipelineDescriptor, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.label=*/WGPU_STRING_VIEW_INIT _wgpu_COMMA \
  /*.layout=*/NULL _wgpu_COMMA \
  /*.compute=*/WGPU_COMPUTE_STATE_INIT _wgpu_COMMA \
})
typedef struct WGPUDeviceDescriptor {
  WGPUChainedStruct* nextInChain;
  WGPUStringView label;
  size_t requiredFeatureCount;
  WGPUFeatureName const* requiredFeatures;
  WGPU_NULLABLE WGPULimits const* requiredLimits;
  WGPUQueueDescriptor defaultQueue;
  WGPUDeviceLostCallbackInfo deviceLostCallbackInfo;
  WGPUUncapturedErrorCallbackInfo uncapturedErrorCallbackInfo;
} WGPUDeviceDescriptor WGPU_STRUCTURE_ATTRIBUTE;
#define WGPU_DEVICE_DESCRIPTOR_INIT _wgpu_MAKE_INIT_STRUCT(WGPUDeviceDescriptor, { \
  /*.nextInChain=*/NULL _wgpu_COMMA \
  /*.label=*/WGPU_STRING_VIEW_INIT _wgpu_COMMA \
  /*.requiredFeatureCount=*/0 _wgpu_COMMA \
  /*.requiredFeatures=*/NULL _wgpu_COMMA \
  /*.requiredLimits=*/NULL _wgpu_COMMA \
  /*.defaultQueue=*/WGPU_QUEUE_DESCRIPTOR_INIT _wgpu_COMMA \
  /*.deviceLostCallbackInfo=*/WGPU_DEVICE_LOST_CALLBACK_INFO_INIT _wgpu_COMMA \
  /*.uncapturedErrorCallbackInfo=*/WGPU_UNCAPTURED_ERROR_CALLBACK_INFO_INIT _wgpu_COMMA \
})
// clang-format on

#ifdef __cplusplus
extern "C" {
#endif

#if !defined(WGPU_SKIP_PROCS)
typedef WGPUInstance (*WGPUProcCreateInstance)(
    WGPU_NULLABLE WGPUInstanceDescriptor const* descriptor) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcGetInstanceFeatures)(WGPUSupportedInstanceFeatures* features)
    WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUStatus (*WGPUProcGetInstanceLimits)(WGPUInstanceLimits* limits) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUBool (*WGPUProcHasInstanceFeature)(WGPUInstanceFeatureName feature)
    WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUProc (*WGPUProcGetProcAddress)(WGPUStringView procName) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcAdapterGetFeatures)(WGPUAdapter adapter,
                                           WGPUSupportedFeatures* features) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUStatus (*WGPUProcAdapterGetInfo)(WGPUAdapter adapter,
                                             WGPUAdapterInfo* info) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUStatus (*WGPUProcAdapterGetLimits)(WGPUAdapter adapter,
                                               WGPULimits* limits) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUBool (*WGPUProcAdapterHasFeature)(WGPUAdapter adapter,
                                              WGPUFeatureName feature) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUFuture (*WGPUProcAdapterRequestDevice)(
    WGPUAdapter adapter, WGPU_NULLABLE WGPUDeviceDescriptor const* descriptor,
    WGPURequestDeviceCallbackInfo callbackInfo) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcAdapterAddRef)(WGPUAdapter adapter) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcAdapterRelease)(WGPUAdapter adapter) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcAdapterInfoFreeMembers)(WGPUAdapterInfo adapterInfo) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcBindGroupSetLabel)(WGPUBindGroup bindGroup,
                                          WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcBindGroupAddRef)(WGPUBindGroup bindGroup) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcBindGroupRelease)(WGPUBindGroup bindGroup) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcBindGroupLayoutSetLabel)(WGPUBindGroupLayout bindGroupLayout,
                                                WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcBindGroupLayoutAddRef)(WGPUBindGroupLayout bindGroupLayout)
    WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcBindGroupLayoutRelease)(WGPUBindGroupLayout bindGroupLayout)
    WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcBufferDestroy)(WGPUBuffer buffer) WGPU_FUNCTION_ATTRIBUTE;
typedef void const* (*WGPUProcBufferGetConstMappedRange)(WGPUBuffer buffer, size_t offset,
                                                         size_t size)WGPU_FUNCTION_ATTRIBUTE;
typedef void* (*WGPUProcBufferGetMappedRange)(WGPUBuffer buffer, size_t offset,
                                              size_t size)WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUBufferMapState (*WGPUProcBufferGetMapState)(WGPUBuffer buffer) WGPU_FUNCTION_ATTRIBUTE;
typedef uint64_t (*WGPUProcBufferGetSize)(WGPUBuffer buffer) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUBufferUsage (*WGPUProcBufferGetUsage)(WGPUBuffer buffer) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUFuture (*WGPUProcBufferMapAsync)(WGPUBuffer buffer, WGPUMapMode mode, size_t offset,
                                             size_t size, WGPUBufferMapCallbackInfo callbackInfo)
    WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcBufferSetLabel)(WGPUBuffer buffer,
                                       WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcBufferUnmap)(WGPUBuffer buffer) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcBufferAddRef)(WGPUBuffer buffer) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcBufferRelease)(WGPUBuffer buffer) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcCommandBufferSetLabel)(WGPUCommandBuffer commandBuffer,
                                              WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcCommandBufferAddRef)(WGPUCommandBuffer commandBuffer)
    WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcCommandBufferRelease)(WGPUCommandBuffer commandBuffer)
    WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUComputePassEncoder (*WGPUProcCommandEncoderBeginComputePass)(
    WGPUCommandEncoder commandEncoder,
    WGPU_NULLABLE WGPUComputePassDescriptor const* descriptor) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcCommandEncoderClearBuffer)(WGPUCommandEncoder commandEncoder,
                                                  WGPUBuffer buffer, uint64_t offset,
                                                  uint64_t size) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcCommandEncoderCopyBufferToBuffer)(WGPUCommandEncoder commandEncoder,
                                                         WGPUBuffer source, uint64_t sourceOffset,
                                                         WGPUBuffer destination,
                                                         uint64_t destinationOffset,
                                                         uint64_t size) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUCommandBuffer (*WGPUProcCommandEncoderFinish)(
    WGPUCommandEncoder commandEncoder,
    WGPU_NULLABLE WGPUCommandBufferDescriptor const* descriptor) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcCommandEncoderResolveQuerySet)(
    WGPUCommandEncoder commandEncoder, WGPUQuerySet querySet, uint32_t firstQuery,
    uint32_t queryCount, WGPUBuffer destination, uint64_t destinationOffset) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcCommandEncoderSetLabel)(WGPUCommandEncoder commandEncoder,
                                               WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcCommandEncoderAddRef)(WGPUCommandEncoder commandEncoder)
    WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcCommandEncoderRelease)(WGPUCommandEncoder commandEncoder)
    WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcComputePassEncoderDispatchWorkgroups)(
    WGPUComputePassEncoder computePassEncoder, uint32_t workgroupCountX, uint32_t workgroupCountY,
    uint32_t workgroupCountZ) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcComputePassEncoderDispatchWorkgroupsIndirect)(
    WGPUComputePassEncoder computePassEncoder, WGPUBuffer indirectBuffer,
    uint64_t indirectOffset) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcComputePassEncoderEnd)(WGPUComputePassEncoder computePassEncoder)
    WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcComputePassEncoderSetBindGroup)(
    WGPUComputePassEncoder computePassEncoder, uint32_t groupIndex,
    WGPU_NULLABLE WGPUBindGroup group, size_t dynamicOffsetCount,
    uint32_t const* dynamicOffsets) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcComputePassEncoderSetLabel)(WGPUComputePassEncoder computePassEncoder,
                                                   WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcComputePassEncoderSetPipeline)(WGPUComputePassEncoder computePassEncoder,
                                                      WGPUComputePipeline pipeline)
    WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcComputePassEncoderAddRef)(WGPUComputePassEncoder computePassEncoder)
    WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcComputePassEncoderRelease)(WGPUComputePassEncoder computePassEncoder)
    WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUBindGroupLayout (*WGPUProcComputePipelineGetBindGroupLayout)(
    WGPUComputePipeline computePipeline, uint32_t groupIndex) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcComputePipelineSetLabel)(WGPUComputePipeline computePipeline,
                                                WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcComputePipelineAddRef)(WGPUComputePipeline computePipeline)
    WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcComputePipelineRelease)(WGPUComputePipeline computePipeline)
    WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUBindGroup (*WGPUProcDeviceCreateBindGroup)(
    WGPUDevice device, WGPUBindGroupDescriptor const* descriptor) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUBindGroupLayout (*WGPUProcDeviceCreateBindGroupLayout)(
    WGPUDevice device, WGPUBindGroupLayoutDescriptor const* descriptor) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPU_NULLABLE WGPUBuffer (*WGPUProcDeviceCreateBuffer)(
    WGPUDevice device, WGPUBufferDescriptor const* descriptor) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUCommandEncoder (*WGPUProcDeviceCreateCommandEncoder)(
    WGPUDevice device,
    WGPU_NULLABLE WGPUCommandEncoderDescriptor const* descriptor) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUComputePipeline (*WGPUProcDeviceCreateComputePipeline)(
    WGPUDevice device, WGPUComputePipelineDescriptor const* descriptor) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUFuture (*WGPUProcDeviceCreateComputePipelineAsync)(
    WGPUDevice device, WGPUComputePipelineDescriptor const* descriptor,
    WGPUCreateComputePipelineAsyncCallbackInfo callbackInfo) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUPipelineLayout (*WGPUProcDeviceCreatePipelineLayout)(
    WGPUDevice device, WGPUPipelineLayoutDescriptor const* descriptor) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUQuerySet (*WGPUProcDeviceCreateQuerySet)(
    WGPUDevice device, WGPUQuerySetDescriptor const* descriptor) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUShaderModule (*WGPUProcDeviceCreateShaderModule)(
    WGPUDevice device, WGPUShaderModuleDescriptor const* descriptor) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcDeviceDestroy)(WGPUDevice device) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUStatus (*WGPUProcDeviceGetAdapterInfo)(WGPUDevice device, WGPUAdapterInfo* adapterInfo)
    WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcDeviceGetFeatures)(WGPUDevice device,
                                          WGPUSupportedFeatures* features) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUStatus (*WGPUProcDeviceGetLimits)(WGPUDevice device,
                                              WGPULimits* limits) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUQueue (*WGPUProcDeviceGetQueue)(WGPUDevice device) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUBool (*WGPUProcDeviceHasFeature)(WGPUDevice device,
                                             WGPUFeatureName feature) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUFuture (*WGPUProcDevicePopErrorScope)(
    WGPUDevice device, WGPUPopErrorScopeCallbackInfo callbackInfo) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcDevicePushErrorScope)(WGPUDevice device,
                                             WGPUErrorFilter filter) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcDeviceSetLabel)(WGPUDevice device,
                                       WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcDeviceAddRef)(WGPUDevice device) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcDeviceRelease)(WGPUDevice device) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcInstanceProcessEvents)(WGPUInstance instance) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUFuture (*WGPUProcInstanceRequestAdapter)(
    WGPUInstance instance, WGPU_NULLABLE WGPURequestAdapterOptions const* options,
    WGPURequestAdapterCallbackInfo callbackInfo) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUWaitStatus (*WGPUProcInstanceWaitAny)(WGPUInstance instance, size_t futureCount,
                                                  WGPU_NULLABLE WGPUFutureWaitInfo* futures,
                                                  uint64_t timeoutNS) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcInstanceAddRef)(WGPUInstance instance) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcInstanceRelease)(WGPUInstance instance) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcPipelineLayoutSetLabel)(WGPUPipelineLayout pipelineLayout,
                                               WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcPipelineLayoutAddRef)(WGPUPipelineLayout pipelineLayout)
    WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcPipelineLayoutRelease)(WGPUPipelineLayout pipelineLayout)
    WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcQuerySetDestroy)(WGPUQuerySet querySet) WGPU_FUNCTION_ATTRIBUTE;
typedef uint32_t (*WGPUProcQuerySetGetCount)(WGPUQuerySet querySet) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUQueryType (*WGPUProcQuerySetGetType)(WGPUQuerySet querySet) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcQuerySetSetLabel)(WGPUQuerySet querySet,
                                         WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcQuerySetAddRef)(WGPUQuerySet querySet) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcQuerySetRelease)(WGPUQuerySet querySet) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUFuture (*WGPUProcQueueOnSubmittedWorkDone)(
    WGPUQueue queue, WGPUQueueWorkDoneCallbackInfo callbackInfo) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcQueueSetLabel)(WGPUQueue queue,
                                      WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcQueueSubmit)(WGPUQueue queue, size_t commandCount,
                                    WGPUCommandBuffer const* commands) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcQueueWriteBuffer)(WGPUQueue queue, WGPUBuffer buffer, uint64_t bufferOffset,
                                         void const* data, size_t size) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcQueueAddRef)(WGPUQueue queue) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcQueueRelease)(WGPUQueue queue) WGPU_FUNCTION_ATTRIBUTE;
typedef WGPUFuture (*WGPUProcShaderModuleGetCompilationInfo)(
    WGPUShaderModule shaderModule,
    WGPUCompilationInfoCallbackInfo callbackInfo) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcShaderModuleSetLabel)(WGPUShaderModule shaderModule,
                                             WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcShaderModuleAddRef)(WGPUShaderModule shaderModule) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcShaderModuleRelease)(WGPUShaderModule shaderModule) WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcSupportedFeaturesFreeMembers)(WGPUSupportedFeatures supportedFeatures)
    WGPU_FUNCTION_ATTRIBUTE;
typedef void (*WGPUProcSupportedInstanceFeaturesFreeMembers)(
    WGPUSupportedInstanceFeatures supportedInstanceFeatures) WGPU_FUNCTION_ATTRIBUTE;
#endif  // !defined(WGPU_SKIP_PROCS)

#if !defined(WGPU_SKIP_DECLARATIONS)
WGPU_EXPORT WGPUInstance wgpuCreateInstance(WGPU_NULLABLE WGPUInstanceDescriptor const* descriptor)
    WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuGetInstanceFeatures(WGPUSupportedInstanceFeatures* features)
    WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUStatus wgpuGetInstanceLimits(WGPUInstanceLimits* limits) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUBool wgpuHasInstanceFeature(WGPUInstanceFeatureName feature)
    WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUProc wgpuGetProcAddress(WGPUStringView procName) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuAdapterGetFeatures(WGPUAdapter adapter,
                                        WGPUSupportedFeatures* features) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUStatus wgpuAdapterGetInfo(WGPUAdapter adapter,
                                          WGPUAdapterInfo* info) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUStatus wgpuAdapterGetLimits(WGPUAdapter adapter,
                                            WGPULimits* limits) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUBool wgpuAdapterHasFeature(WGPUAdapter adapter,
                                           WGPUFeatureName feature) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUFuture
wgpuAdapterRequestDevice(WGPUAdapter adapter, WGPU_NULLABLE WGPUDeviceDescriptor const* descriptor,
                         WGPURequestDeviceCallbackInfo callbackInfo) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuAdapterAddRef(WGPUAdapter adapter) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuAdapterRelease(WGPUAdapter adapter) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuAdapterInfoFreeMembers(WGPUAdapterInfo adapterInfo) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuBindGroupSetLabel(WGPUBindGroup bindGroup,
                                       WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuBindGroupAddRef(WGPUBindGroup bindGroup) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuBindGroupRelease(WGPUBindGroup bindGroup) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuBindGroupLayoutSetLabel(WGPUBindGroupLayout bindGroupLayout,
                                             WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuBindGroupLayoutAddRef(WGPUBindGroupLayout bindGroupLayout)
    WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuBindGroupLayoutRelease(WGPUBindGroupLayout bindGroupLayout)
    WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuBufferDestroy(WGPUBuffer buffer) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void const* wgpuBufferGetConstMappedRange(WGPUBuffer buffer, size_t offset,
                                                      size_t size) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void* wgpuBufferGetMappedRange(WGPUBuffer buffer, size_t offset,
                                           size_t size) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUBufferMapState wgpuBufferGetMapState(WGPUBuffer buffer) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT uint64_t wgpuBufferGetSize(WGPUBuffer buffer) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUBufferUsage wgpuBufferGetUsage(WGPUBuffer buffer) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUFuture wgpuBufferMapAsync(WGPUBuffer buffer, WGPUMapMode mode, size_t offset,
                                          size_t size, WGPUBufferMapCallbackInfo callbackInfo)
    WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuBufferSetLabel(WGPUBuffer buffer,
                                    WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuBufferUnmap(WGPUBuffer buffer) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuBufferAddRef(WGPUBuffer buffer) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuBufferRelease(WGPUBuffer buffer) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuCommandBufferSetLabel(WGPUCommandBuffer commandBuffer,
                                           WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuCommandBufferAddRef(WGPUCommandBuffer commandBuffer) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuCommandBufferRelease(WGPUCommandBuffer commandBuffer) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUComputePassEncoder wgpuCommandEncoderBeginComputePass(
    WGPUCommandEncoder commandEncoder,
    WGPU_NULLABLE WGPUComputePassDescriptor const* descriptor) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuCommandEncoderClearBuffer(WGPUCommandEncoder commandEncoder, WGPUBuffer buffer,
                                               uint64_t offset,
                                               uint64_t size) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuCommandEncoderCopyBufferToBuffer(WGPUCommandEncoder commandEncoder,
                                                      WGPUBuffer source, uint64_t sourceOffset,
                                                      WGPUBuffer destination,
                                                      uint64_t destinationOffset,
                                                      uint64_t size) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUCommandBuffer wgpuCommandEncoderFinish(
    WGPUCommandEncoder commandEncoder,
    WGPU_NULLABLE WGPUCommandBufferDescriptor const* descriptor) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuCommandEncoderResolveQuerySet(
    WGPUCommandEncoder commandEncoder, WGPUQuerySet querySet, uint32_t firstQuery,
    uint32_t queryCount, WGPUBuffer destination, uint64_t destinationOffset) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuCommandEncoderSetLabel(WGPUCommandEncoder commandEncoder,
                                            WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuCommandEncoderAddRef(WGPUCommandEncoder commandEncoder)
    WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuCommandEncoderRelease(WGPUCommandEncoder commandEncoder)
    WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuComputePassEncoderDispatchWorkgroups(
    WGPUComputePassEncoder computePassEncoder, uint32_t workgroupCountX, uint32_t workgroupCountY,
    uint32_t workgroupCountZ) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuComputePassEncoderDispatchWorkgroupsIndirect(
    WGPUComputePassEncoder computePassEncoder, WGPUBuffer indirectBuffer,
    uint64_t indirectOffset) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuComputePassEncoderEnd(WGPUComputePassEncoder computePassEncoder)
    WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuComputePassEncoderSetBindGroup(
    WGPUComputePassEncoder computePassEncoder, uint32_t groupIndex,
    WGPU_NULLABLE WGPUBindGroup group, size_t dynamicOffsetCount,
    uint32_t const* dynamicOffsets) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuComputePassEncoderSetLabel(WGPUComputePassEncoder computePassEncoder,
                                                WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuComputePassEncoderSetPipeline(WGPUComputePassEncoder computePassEncoder,
                                                   WGPUComputePipeline pipeline)
    WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuComputePassEncoderAddRef(WGPUComputePassEncoder computePassEncoder)
    WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuComputePassEncoderRelease(WGPUComputePassEncoder computePassEncoder)
    WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUBindGroupLayout wgpuComputePipelineGetBindGroupLayout(
    WGPUComputePipeline computePipeline, uint32_t groupIndex) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuComputePipelineSetLabel(WGPUComputePipeline computePipeline,
                                             WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuComputePipelineAddRef(WGPUComputePipeline computePipeline)
    WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuComputePipelineRelease(WGPUComputePipeline computePipeline)
    WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUBindGroup wgpuDeviceCreateBindGroup(
    WGPUDevice device, WGPUBindGroupDescriptor const* descriptor) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUBindGroupLayout wgpuDeviceCreateBindGroupLayout(
    WGPUDevice device, WGPUBindGroupLayoutDescriptor const* descriptor) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPU_NULLABLE WGPUBuffer wgpuDeviceCreateBuffer(
    WGPUDevice device, WGPUBufferDescriptor const* descriptor) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUCommandEncoder wgpuDeviceCreateCommandEncoder(
    WGPUDevice device,
    WGPU_NULLABLE WGPUCommandEncoderDescriptor const* descriptor) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUComputePipeline wgpuDeviceCreateComputePipeline(
    WGPUDevice device, WGPUComputePipelineDescriptor const* descriptor) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUFuture wgpuDeviceCreateComputePipelineAsync(
    WGPUDevice device, WGPUComputePipelineDescriptor const* descriptor,
    WGPUCreateComputePipelineAsyncCallbackInfo callbackInfo) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUPipelineLayout wgpuDeviceCreatePipelineLayout(
    WGPUDevice device, WGPUPipelineLayoutDescriptor const* descriptor) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUQuerySet wgpuDeviceCreateQuerySet(
    WGPUDevice device, WGPUQuerySetDescriptor const* descriptor) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUShaderModule wgpuDeviceCreateShaderModule(
    WGPUDevice device, WGPUShaderModuleDescriptor const* descriptor) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuDeviceDestroy(WGPUDevice device) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUStatus wgpuDeviceGetAdapterInfo(WGPUDevice device, WGPUAdapterInfo* adapterInfo)
    WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuDeviceGetFeatures(WGPUDevice device,
                                       WGPUSupportedFeatures* features) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUStatus wgpuDeviceGetLimits(WGPUDevice device,
                                           WGPULimits* limits) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUQueue wgpuDeviceGetQueue(WGPUDevice device) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUBool wgpuDeviceHasFeature(WGPUDevice device,
                                          WGPUFeatureName feature) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUFuture wgpuDevicePopErrorScope(
    WGPUDevice device, WGPUPopErrorScopeCallbackInfo callbackInfo) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuDevicePushErrorScope(WGPUDevice device,
                                          WGPUErrorFilter filter) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuDeviceSetLabel(WGPUDevice device,
                                    WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuDeviceAddRef(WGPUDevice device) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuDeviceRelease(WGPUDevice device) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuInstanceProcessEvents(WGPUInstance instance) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUFuture wgpuInstanceRequestAdapter(
    WGPUInstance instance, WGPU_NULLABLE WGPURequestAdapterOptions const* options,
    WGPURequestAdapterCallbackInfo callbackInfo) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUWaitStatus wgpuInstanceWaitAny(WGPUInstance instance, size_t futureCount,
                                               WGPU_NULLABLE WGPUFutureWaitInfo* futures,
                                               uint64_t timeoutNS) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuInstanceAddRef(WGPUInstance instance) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuInstanceRelease(WGPUInstance instance) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuPipelineLayoutSetLabel(WGPUPipelineLayout pipelineLayout,
                                            WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuPipelineLayoutAddRef(WGPUPipelineLayout pipelineLayout)
    WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuPipelineLayoutRelease(WGPUPipelineLayout pipelineLayout)
    WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuQuerySetDestroy(WGPUQuerySet querySet) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT uint32_t wgpuQuerySetGetCount(WGPUQuerySet querySet) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUQueryType wgpuQuerySetGetType(WGPUQuerySet querySet) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuQuerySetSetLabel(WGPUQuerySet querySet,
                                      WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuQuerySetAddRef(WGPUQuerySet querySet) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuQuerySetRelease(WGPUQuerySet querySet) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUFuture wgpuQueueOnSubmittedWorkDone(
    WGPUQueue queue, WGPUQueueWorkDoneCallbackInfo callbackInfo) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuQueueSetLabel(WGPUQueue queue, WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuQueueSubmit(WGPUQueue queue, size_t commandCount,
                                 WGPUCommandBuffer const* commands) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuQueueWriteBuffer(WGPUQueue queue, WGPUBuffer buffer, uint64_t bufferOffset,
                                      void const* data, size_t size) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuQueueAddRef(WGPUQueue queue) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuQueueRelease(WGPUQueue queue) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT WGPUFuture wgpuShaderModuleGetCompilationInfo(
    WGPUShaderModule shaderModule,
    WGPUCompilationInfoCallbackInfo callbackInfo) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuShaderModuleSetLabel(WGPUShaderModule shaderModule,
                                          WGPUStringView label) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuShaderModuleAddRef(WGPUShaderModule shaderModule) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuShaderModuleRelease(WGPUShaderModule shaderModule) WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuSupportedFeaturesFreeMembers(WGPUSupportedFeatures supportedFeatures)
    WGPU_FUNCTION_ATTRIBUTE;
WGPU_EXPORT void wgpuSupportedInstanceFeaturesFreeMembers(
    WGPUSupportedInstanceFeatures supportedInstanceFeatures) WGPU_FUNCTION_ATTRIBUTE;
#endif  // !defined(WGPU_SKIP_DECLARATIONS)

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // WEBGPU_H_
