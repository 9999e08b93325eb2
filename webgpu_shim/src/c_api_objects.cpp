// The standard C API: buffers, shader modules, layouts, bind groups, pipelines, query sets,
// command encoders, compute passes and command buffers.
#include "c_api.h"
#include "command_encoder.h"

using namespace wgpu;
using namespace wgpu::capi;

// AddRef / Release / SetLabel of an object whose C++ handle has SetLabel.
#define WGPU_CAPI_COMMON(Type)                                               \
  void wgpu##Type##AddRef(WGPU##Type object) {                               \
    AddRef(object, "wgpu" #Type "AddRef");                                   \
  }                                                                          \
  void wgpu##Type##Release(WGPU##Type object) {                              \
    Release(object, "wgpu" #Type "Release");                                 \
  }                                                                          \
  void wgpu##Type##SetLabel(WGPU##Type object, WGPUStringView label) {       \
    if (!object) return NullArgument("wgpu" #Type "SetLabel", "the object"); \
    object->handle.SetLabel(ToCpp(label));                                   \
  }

WGPU_CAPI_COMMON(Buffer)
WGPU_CAPI_COMMON(ShaderModule)
WGPU_CAPI_COMMON(BindGroupLayout)
WGPU_CAPI_COMMON(PipelineLayout)
WGPU_CAPI_COMMON(BindGroup)
WGPU_CAPI_COMMON(ComputePipeline)
WGPU_CAPI_COMMON(CommandEncoder)
WGPU_CAPI_COMMON(ComputePassEncoder)
WGPU_CAPI_COMMON(CommandBuffer)
WGPU_CAPI_COMMON(QuerySet)
#undef WGPU_CAPI_COMMON

// ---- Buffer ----

WGPUFuture wgpuBufferMapAsync(WGPUBuffer buffer, WGPUMapMode mode, size_t offset, size_t size,
                              WGPUBufferMapCallbackInfo info) {
  if (!buffer) return NullArgument("wgpuBufferMapAsync", "buffer"), WGPUFuture{0};
  if (!ValidCallbackMode(info.mode, "wgpuBufferMapAsync")) return WGPUFuture{0};
  return ToC(buffer->handle.MapAsync(static_cast<MapMode>(mode), offset, size, ToCpp(info.mode),
                                     [info](MapAsyncStatus status, StringView message) {
                                       if (info.callback)
                                         info.callback(static_cast<WGPUMapAsyncStatus>(status),
                                                       ToC(message), info.userdata1,
                                                       info.userdata2);
                                     }));
}

void* wgpuBufferGetMappedRange(WGPUBuffer buffer, size_t offset, size_t size) {
  if (!buffer) return NullArgument("wgpuBufferGetMappedRange", "buffer"), nullptr;
  return buffer->handle.GetMappedRange(offset, size);
}

const void* wgpuBufferGetConstMappedRange(WGPUBuffer buffer, size_t offset, size_t size) {
  if (!buffer) return NullArgument("wgpuBufferGetConstMappedRange", "buffer"), nullptr;
  return buffer->handle.GetConstMappedRange(offset, size);
}

void wgpuBufferUnmap(WGPUBuffer buffer) {
  if (!buffer) return NullArgument("wgpuBufferUnmap", "buffer");
  buffer->handle.Unmap();
}

void wgpuBufferDestroy(WGPUBuffer buffer) {
  if (!buffer) return NullArgument("wgpuBufferDestroy", "buffer");
  buffer->handle.Destroy();
}

uint64_t wgpuBufferGetSize(WGPUBuffer buffer) {
  if (!buffer) return NullArgument("wgpuBufferGetSize", "buffer"), 0;
  return buffer->handle.GetSize();
}

WGPUBufferUsage wgpuBufferGetUsage(WGPUBuffer buffer) {
  if (!buffer) return NullArgument("wgpuBufferGetUsage", "buffer"), WGPUBufferUsage_None;
  return static_cast<WGPUBufferUsage>(buffer->handle.GetUsage());
}

WGPUBufferMapState wgpuBufferGetMapState(WGPUBuffer buffer) {
  if (!buffer) return NullArgument("wgpuBufferGetMapState", "buffer"), WGPUBufferMapState_Unmapped;
  return static_cast<WGPUBufferMapState>(buffer->handle.GetMapState());
}

// ---- Query set ----

void wgpuQuerySetDestroy(WGPUQuerySet querySet) {
  if (!querySet) return NullArgument("wgpuQuerySetDestroy", "querySet");
  querySet->handle.Destroy();
}

uint32_t wgpuQuerySetGetCount(WGPUQuerySet querySet) {
  if (!querySet) return NullArgument("wgpuQuerySetGetCount", "querySet"), 0;
  return querySet->handle.GetCount();
}

WGPUQueryType wgpuQuerySetGetType(WGPUQuerySet querySet) {
  if (!querySet) return NullArgument("wgpuQuerySetGetType", "querySet"), WGPUQueryType{};
  return static_cast<WGPUQueryType>(querySet->handle.GetType());
}

// ---- Shader module, pipeline ----

WGPUFuture wgpuShaderModuleGetCompilationInfo(WGPUShaderModule module,
                                              WGPUCompilationInfoCallbackInfo info) {
  if (!module)
    return NullArgument("wgpuShaderModuleGetCompilationInfo", "shaderModule"), WGPUFuture{0};
  if (!ValidCallbackMode(info.mode, "wgpuShaderModuleGetCompilationInfo")) return WGPUFuture{0};
  return ToC(module->handle.GetCompilationInfo(
      ToCpp(info.mode), [info](CompilationInfoRequestStatus status, const CompilationInfo* cpp) {
        if (!info.callback) return;
        // The C messages view the C++ ones' text, which lives until the callback returns.
        std::vector<WGPUCompilationMessage> messages;
        for (size_t i = 0; cpp && i < cpp->messageCount; ++i) {
          const CompilationMessage& m = cpp->messages[i];
          messages.push_back(WGPUCompilationMessage{nullptr, ToC(m.message),
                                                    static_cast<WGPUCompilationMessageType>(m.type),
                                                    m.lineNum, m.linePos, m.offset, m.length});
        }
        const WGPUCompilationInfo c{nullptr, messages.size(), messages.data()};
        info.callback(static_cast<WGPUCompilationInfoRequestStatus>(status), cpp ? &c : nullptr,
                      info.userdata1, info.userdata2);
      }));
}

WGPUBindGroupLayout wgpuComputePipelineGetBindGroupLayout(WGPUComputePipeline pipeline,
                                                          uint32_t groupIndex) {
  if (!pipeline)
    return NullArgument("wgpuComputePipelineGetBindGroupLayout", "computePipeline"), nullptr;
  return Wrap<WGPUBindGroupLayoutImpl>(pipeline->handle.GetBindGroupLayout(groupIndex));
}

// ---- Command encoder ----

namespace {

// An error of the C layer in an encoder command, recorded as the C++ layer records its own:
// reported at Finish.
void RecordError(const CommandEncoder& encoder, const std::string& message, const char* call) {
  encoder.Get()->RecordError(message + "\n - While encoding [CommandEncoder]." + call + ".");
}

}  // namespace

WGPUComputePassEncoder wgpuCommandEncoderBeginComputePass(WGPUCommandEncoder encoder,
                                                          const WGPUComputePassDescriptor* d) {
  if (!encoder)
    return NullArgument("wgpuCommandEncoderBeginComputePass", "commandEncoder"), nullptr;
  ComputePassDescriptor desc;
  PassTimestampWrites writes;
  std::string error;
  if (d) {
    error = CheckChain(d->nextInChain, "WGPUComputePassDescriptor");
    desc.label = ToCpp(d->label);
    if (d->timestampWrites) {
      if (error.empty()) error = CheckChain(d->timestampWrites->nextInChain, "WGPUPassTimestampWrites");
      writes.querySet = Unwrap(d->timestampWrites->querySet);
      writes.beginningOfPassWriteIndex = d->timestampWrites->beginningOfPassWriteIndex;
      writes.endOfPassWriteIndex = d->timestampWrites->endOfPassWriteIndex;
      desc.timestampWrites = &writes;
    }
  }
  // The pass opens either way (so that End and Finish behave); the error fails the encoder.
  ComputePassEncoder pass = encoder->handle.BeginComputePass(&desc);
  if (!error.empty()) RecordError(encoder->handle, error, "BeginComputePass");
  return Wrap<WGPUComputePassEncoderImpl>(std::move(pass));
}

void wgpuCommandEncoderCopyBufferToBuffer(WGPUCommandEncoder encoder, WGPUBuffer source,
                                          uint64_t sourceOffset, WGPUBuffer destination,
                                          uint64_t destinationOffset, uint64_t size) {
  if (!encoder) return NullArgument("wgpuCommandEncoderCopyBufferToBuffer", "commandEncoder");
  encoder->handle.CopyBufferToBuffer(Unwrap(source), sourceOffset, Unwrap(destination),
                                     destinationOffset, size);
}

void wgpuCommandEncoderClearBuffer(WGPUCommandEncoder encoder, WGPUBuffer buffer, uint64_t offset,
                                   uint64_t size) {
  if (!encoder) return NullArgument("wgpuCommandEncoderClearBuffer", "commandEncoder");
  encoder->handle.ClearBuffer(Unwrap(buffer), offset, size);
}

void wgpuCommandEncoderResolveQuerySet(WGPUCommandEncoder encoder, WGPUQuerySet querySet,
                                       uint32_t firstQuery, uint32_t queryCount,
                                       WGPUBuffer destination, uint64_t destinationOffset) {
  if (!encoder) return NullArgument("wgpuCommandEncoderResolveQuerySet", "commandEncoder");
  encoder->handle.ResolveQuerySet(Unwrap(querySet), firstQuery, queryCount, Unwrap(destination),
                                  destinationOffset);
}

WGPUCommandBuffer wgpuCommandEncoderFinish(WGPUCommandEncoder encoder,
                                           const WGPUCommandBufferDescriptor* d) {
  if (!encoder) return NullArgument("wgpuCommandEncoderFinish", "commandEncoder"), nullptr;
  CommandBufferDescriptor desc;
  if (d) {
    if (std::string e = CheckChain(d->nextInChain, "WGPUCommandBufferDescriptor"); !e.empty())
      RecordError(encoder->handle, e, "Finish");
    desc.label = ToCpp(d->label);
  }
  return Wrap<WGPUCommandBufferImpl>(encoder->handle.Finish(&desc));
}

// ---- Compute pass ----

void wgpuComputePassEncoderSetPipeline(WGPUComputePassEncoder pass, WGPUComputePipeline pipeline) {
  if (!pass) return NullArgument("wgpuComputePassEncoderSetPipeline", "computePassEncoder");
  pass->handle.SetPipeline(Unwrap(pipeline));
}

void wgpuComputePassEncoderSetBindGroup(WGPUComputePassEncoder pass, uint32_t groupIndex,
                                        WGPUBindGroup group, size_t dynamicOffsetCount,
                                        const uint32_t* dynamicOffsets) {
  if (!pass) return NullArgument("wgpuComputePassEncoderSetBindGroup", "computePassEncoder");
  pass->handle.SetBindGroup(groupIndex, Unwrap(group), dynamicOffsetCount, dynamicOffsets);
}

void wgpuComputePassEncoderDispatchWorkgroups(WGPUComputePassEncoder pass, uint32_t x, uint32_t y,
                                              uint32_t z) {
  if (!pass) return NullArgument("wgpuComputePassEncoderDispatchWorkgroups", "computePassEncoder");
  pass->handle.DispatchWorkgroups(x, y, z);
}

void wgpuComputePassEncoderDispatchWorkgroupsIndirect(WGPUComputePassEncoder pass,
                                                      WGPUBuffer indirectBuffer,
                                                      uint64_t indirectOffset) {
  if (!pass)
    return NullArgument("wgpuComputePassEncoderDispatchWorkgroupsIndirect", "computePassEncoder");
  pass->handle.DispatchWorkgroupsIndirect(Unwrap(indirectBuffer), indirectOffset);
}

void wgpuComputePassEncoderEnd(WGPUComputePassEncoder pass) {
  if (!pass) return NullArgument("wgpuComputePassEncoderEnd", "computePassEncoder");
  pass->handle.End();
}
