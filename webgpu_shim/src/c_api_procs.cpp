// The standard C API: wgpuGetProcAddress, over a table of every function <webgpu/webgpu.h>
// declares.
#include <algorithm>
#include <iterator>
#include <string_view>

#include "c_api.h"

namespace {

struct Proc {
  std::string_view name;
  WGPUProc proc;
};

// Sorted by name.
const Proc kProcs[] = {
    {"wgpuAdapterAddRef", reinterpret_cast<WGPUProc>(&wgpuAdapterAddRef)},
    {"wgpuAdapterGetFeatures", reinterpret_cast<WGPUProc>(&wgpuAdapterGetFeatures)},
    {"wgpuAdapterGetInfo", reinterpret_cast<WGPUProc>(&wgpuAdapterGetInfo)},
    {"wgpuAdapterGetLimits", reinterpret_cast<WGPUProc>(&wgpuAdapterGetLimits)},
    {"wgpuAdapterHasFeature", reinterpret_cast<WGPUProc>(&wgpuAdapterHasFeature)},
    {"wgpuAdapterInfoFreeMembers", reinterpret_cast<WGPUProc>(&wgpuAdapterInfoFreeMembers)},
    {"wgpuAdapterRelease", reinterpret_cast<WGPUProc>(&wgpuAdapterRelease)},
    {"wgpuAdapterRequestDevice", reinterpret_cast<WGPUProc>(&wgpuAdapterRequestDevice)},
    {"wgpuBindGroupAddRef", reinterpret_cast<WGPUProc>(&wgpuBindGroupAddRef)},
    {"wgpuBindGroupLayoutAddRef", reinterpret_cast<WGPUProc>(&wgpuBindGroupLayoutAddRef)},
    {"wgpuBindGroupLayoutRelease", reinterpret_cast<WGPUProc>(&wgpuBindGroupLayoutRelease)},
    {"wgpuBindGroupLayoutSetLabel", reinterpret_cast<WGPUProc>(&wgpuBindGroupLayoutSetLabel)},
    {"wgpuBindGroupRelease", reinterpret_cast<WGPUProc>(&wgpuBindGroupRelease)},
    {"wgpuBindGroupSetLabel", reinterpret_cast<WGPUProc>(&wgpuBindGroupSetLabel)},
    {"wgpuBufferAddRef", reinterpret_cast<WGPUProc>(&wgpuBufferAddRef)},
    {"wgpuBufferDestroy", reinterpret_cast<WGPUProc>(&wgpuBufferDestroy)},
    {"wgpuBufferGetConstMappedRange", reinterpret_cast<WGPUProc>(&wgpuBufferGetConstMappedRange)},
    {"wgpuBufferGetMapState", reinterpret_cast<WGPUProc>(&wgpuBufferGetMapState)},
    {"wgpuBufferGetMappedRange", reinterpret_cast<WGPUProc>(&wgpuBufferGetMappedRange)},
    {"wgpuBufferGetSize", reinterpret_cast<WGPUProc>(&wgpuBufferGetSize)},
    {"wgpuBufferGetUsage", reinterpret_cast<WGPUProc>(&wgpuBufferGetUsage)},
    {"wgpuBufferMapAsync", reinterpret_cast<WGPUProc>(&wgpuBufferMapAsync)},
    {"wgpuBufferRelease", reinterpret_cast<WGPUProc>(&wgpuBufferRelease)},
    {"wgpuBufferSetLabel", reinterpret_cast<WGPUProc>(&wgpuBufferSetLabel)},
    {"wgpuBufferUnmap", reinterpret_cast<WGPUProc>(&wgpuBufferUnmap)},
    {"wgpuCommandBufferAddRef", reinterpret_cast<WGPUProc>(&wgpuCommandBufferAddRef)},
    {"wgpuCommandBufferRelease", reinterpret_cast<WGPUProc>(&wgpuCommandBufferRelease)},
    {"wgpuCommandBufferSetLabel", reinterpret_cast<WGPUProc>(&wgpuCommandBufferSetLabel)},
    {"wgpuCommandEncoderAddRef", reinterpret_cast<WGPUProc>(&wgpuCommandEncoderAddRef)},
    {"wgpuCommandEncoderBeginComputePass",
     reinterpret_cast<WGPUProc>(&wgpuCommandEncoderBeginComputePass)},
    {"wgpuCommandEncoderClearBuffer", reinterpret_cast<WGPUProc>(&wgpuCommandEncoderClearBuffer)},
    {"wgpuCommandEncoderCopyBufferToBuffer",
     reinterpret_cast<WGPUProc>(&wgpuCommandEncoderCopyBufferToBuffer)},
    {"wgpuCommandEncoderFinish", reinterpret_cast<WGPUProc>(&wgpuCommandEncoderFinish)},
    {"wgpuCommandEncoderRelease", reinterpret_cast<WGPUProc>(&wgpuCommandEncoderRelease)},
    {"wgpuCommandEncoderSetLabel", reinterpret_cast<WGPUProc>(&wgpuCommandEncoderSetLabel)},
    {"wgpuComputePassEncoderAddRef", reinterpret_cast<WGPUProc>(&wgpuComputePassEncoderAddRef)},
    {"wgpuComputePassEncoderDispatchWorkgroups",
     reinterpret_cast<WGPUProc>(&wgpuComputePassEncoderDispatchWorkgroups)},
    {"wgpuComputePassEncoderDispatchWorkgroupsIndirect",
     reinterpret_cast<WGPUProc>(&wgpuComputePassEncoderDispatchWorkgroupsIndirect)},
    {"wgpuComputePassEncoderEnd", reinterpret_cast<WGPUProc>(&wgpuComputePassEncoderEnd)},
    {"wgpuComputePassEncoderRelease", reinterpret_cast<WGPUProc>(&wgpuComputePassEncoderRelease)},
    {"wgpuComputePassEncoderSetBindGroup",
     reinterpret_cast<WGPUProc>(&wgpuComputePassEncoderSetBindGroup)},
    {"wgpuComputePassEncoderSetLabel", reinterpret_cast<WGPUProc>(&wgpuComputePassEncoderSetLabel)},
    {"wgpuComputePassEncoderSetPipeline",
     reinterpret_cast<WGPUProc>(&wgpuComputePassEncoderSetPipeline)},
    {"wgpuComputePipelineAddRef", reinterpret_cast<WGPUProc>(&wgpuComputePipelineAddRef)},
    {"wgpuComputePipelineGetBindGroupLayout",
     reinterpret_cast<WGPUProc>(&wgpuComputePipelineGetBindGroupLayout)},
    {"wgpuComputePipelineRelease", reinterpret_cast<WGPUProc>(&wgpuComputePipelineRelease)},
    {"wgpuComputePipelineSetLabel", reinterpret_cast<WGPUProc>(&wgpuComputePipelineSetLabel)},
    {"wgpuCreateInstance", reinterpret_cast<WGPUProc>(&wgpuCreateInstance)},
    {"wgpuDeviceAddRef", reinterpret_cast<WGPUProc>(&wgpuDeviceAddRef)},
    {"wgpuDeviceCreateBindGroup", reinterpret_cast<WGPUProc>(&wgpuDeviceCreateBindGroup)},
    {"wgpuDeviceCreateBindGroupLayout",
     reinterpret_cast<WGPUProc>(&wgpuDeviceCreateBindGroupLayout)},
    {"wgpuDeviceCreateBuffer", reinterpret_cast<WGPUProc>(&wgpuDeviceCreateBuffer)},
    {"wgpuDeviceCreateCommandEncoder", reinterpret_cast<WGPUProc>(&wgpuDeviceCreateCommandEncoder)},
    {"wgpuDeviceCreateComputePipeline",
     reinterpret_cast<WGPUProc>(&wgpuDeviceCreateComputePipeline)},
    {"wgpuDeviceCreateComputePipelineAsync",
     reinterpret_cast<WGPUProc>(&wgpuDeviceCreateComputePipelineAsync)},
    {"wgpuDeviceCreatePipelineLayout", reinterpret_cast<WGPUProc>(&wgpuDeviceCreatePipelineLayout)},
    {"wgpuDeviceCreateShaderModule", reinterpret_cast<WGPUProc>(&wgpuDeviceCreateShaderModule)},
    {"wgpuDeviceDestroy", reinterpret_cast<WGPUProc>(&wgpuDeviceDestroy)},
    {"wgpuDeviceGetAdapterInfo", reinterpret_cast<WGPUProc>(&wgpuDeviceGetAdapterInfo)},
    {"wgpuDeviceGetFeatures", reinterpret_cast<WGPUProc>(&wgpuDeviceGetFeatures)},
    {"wgpuDeviceGetLimits", reinterpret_cast<WGPUProc>(&wgpuDeviceGetLimits)},
    {"wgpuDeviceGetQueue", reinterpret_cast<WGPUProc>(&wgpuDeviceGetQueue)},
    {"wgpuDeviceHasFeature", reinterpret_cast<WGPUProc>(&wgpuDeviceHasFeature)},
    {"wgpuDevicePopErrorScope", reinterpret_cast<WGPUProc>(&wgpuDevicePopErrorScope)},
    {"wgpuDevicePushErrorScope", reinterpret_cast<WGPUProc>(&wgpuDevicePushErrorScope)},
    {"wgpuDeviceRelease", reinterpret_cast<WGPUProc>(&wgpuDeviceRelease)},
    {"wgpuDeviceSetLabel", reinterpret_cast<WGPUProc>(&wgpuDeviceSetLabel)},
    {"wgpuGetInstanceFeatures", reinterpret_cast<WGPUProc>(&wgpuGetInstanceFeatures)},
    {"wgpuGetInstanceLimits", reinterpret_cast<WGPUProc>(&wgpuGetInstanceLimits)},
    {"wgpuGetProcAddress", reinterpret_cast<WGPUProc>(&wgpuGetProcAddress)},
    {"wgpuHasInstanceFeature", reinterpret_cast<WGPUProc>(&wgpuHasInstanceFeature)},
    {"wgpuInstanceAddRef", reinterpret_cast<WGPUProc>(&wgpuInstanceAddRef)},
    {"wgpuInstanceProcessEvents", reinterpret_cast<WGPUProc>(&wgpuInstanceProcessEvents)},
    {"wgpuInstanceRelease", reinterpret_cast<WGPUProc>(&wgpuInstanceRelease)},
    {"wgpuInstanceRequestAdapter", reinterpret_cast<WGPUProc>(&wgpuInstanceRequestAdapter)},
    {"wgpuInstanceWaitAny", reinterpret_cast<WGPUProc>(&wgpuInstanceWaitAny)},
    {"wgpuPipelineLayoutAddRef", reinterpret_cast<WGPUProc>(&wgpuPipelineLayoutAddRef)},
    {"wgpuPipelineLayoutRelease", reinterpret_cast<WGPUProc>(&wgpuPipelineLayoutRelease)},
    {"wgpuPipelineLayoutSetLabel", reinterpret_cast<WGPUProc>(&wgpuPipelineLayoutSetLabel)},
    {"wgpuQueueAddRef", reinterpret_cast<WGPUProc>(&wgpuQueueAddRef)},
    {"wgpuQueueOnSubmittedWorkDone", reinterpret_cast<WGPUProc>(&wgpuQueueOnSubmittedWorkDone)},
    {"wgpuQueueRelease", reinterpret_cast<WGPUProc>(&wgpuQueueRelease)},
    {"wgpuQueueSetLabel", reinterpret_cast<WGPUProc>(&wgpuQueueSetLabel)},
    {"wgpuQueueSubmit", reinterpret_cast<WGPUProc>(&wgpuQueueSubmit)},
    {"wgpuQueueWriteBuffer", reinterpret_cast<WGPUProc>(&wgpuQueueWriteBuffer)},
    {"wgpuShaderModuleAddRef", reinterpret_cast<WGPUProc>(&wgpuShaderModuleAddRef)},
    {"wgpuShaderModuleGetCompilationInfo",
     reinterpret_cast<WGPUProc>(&wgpuShaderModuleGetCompilationInfo)},
    {"wgpuShaderModuleRelease", reinterpret_cast<WGPUProc>(&wgpuShaderModuleRelease)},
    {"wgpuShaderModuleSetLabel", reinterpret_cast<WGPUProc>(&wgpuShaderModuleSetLabel)},
    {"wgpuSupportedFeaturesFreeMembers",
     reinterpret_cast<WGPUProc>(&wgpuSupportedFeaturesFreeMembers)},
    {"wgpuSupportedInstanceFeaturesFreeMembers",
     reinterpret_cast<WGPUProc>(&wgpuSupportedInstanceFeaturesFreeMembers)},
};

}  // namespace

WGPUProc wgpuGetProcAddress(WGPUStringView procName) {
  const std::string_view name = wgpu::capi::ToCpp(procName);
  const auto* it = std::lower_bound(std::begin(kProcs), std::end(kProcs), name,
                                    [](const Proc& p, std::string_view n) { return p.name < n; });
  return it != std::end(kProcs) && it->name == name ? it->proc : nullptr;
}
