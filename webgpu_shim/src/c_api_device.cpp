// The standard C API: the device (object creation, limits, error scopes, loss) and its queue.
#include "binding.h"
#include "buffer.h"
#include "c_api.h"
#include "command_encoder.h"
#include "compute_pipeline.h"
#include "device.h"
#include "instance.h"
#include "query_set.h"
#include "queue.h"
#include "shader_module.h"

namespace wgpu::capi {

namespace {

// Makes an object with `create`; when the C layer found an `error` in the descriptor, it is
// reported first (named after the call, as the C++ layer names its errors) and the object is an
// error object.
template <typename C, typename F>
C* Create(const Device& device, const std::string& error, const char* call, F create) {
  using Handle = decltype(create());
  if (error.empty()) return Wrap<C>(create());
  ValidationError(device, error + "\n - While calling [Device]." + call + ".");
  return Wrap<C>(ErrorObject<Handle>(device, create));
}

const char* NullDescriptor(const void* descriptor) {
  return descriptor ? "" : "The descriptor is null.";
}

}  // namespace

ComputePipelineDescriptor ToCpp(const WGPUComputePipelineDescriptor& d,
                                std::vector<ConstantEntry>* constants, std::string* error) {
  ComputePipelineDescriptor desc;
  *error = CheckChain(d.nextInChain, "WGPUComputePipelineDescriptor");
  if (error->empty()) *error = CheckChain(d.compute.nextInChain, "WGPUComputeState");
  desc.label = ToCpp(d.label);
  desc.layout = Unwrap(d.layout);
  desc.compute.module = Unwrap(d.compute.module);
  desc.compute.entryPoint = ToCpp(d.compute.entryPoint);
  if (d.compute.constants) {
    for (size_t i = 0; i < d.compute.constantCount; ++i) {
      const WGPUConstantEntry& c = d.compute.constants[i];
      if (error->empty()) *error = CheckChain(c.nextInChain, "WGPUConstantEntry");
      constants->push_back(ConstantEntry{nullptr, ToCpp(c.key), c.value});
    }
  }
  desc.compute.constantCount = d.compute.constantCount;
  desc.compute.constants = d.compute.constants ? constants->data() : nullptr;
  return desc;
}

}  // namespace wgpu::capi

using namespace wgpu;
using namespace wgpu::capi;

// ---- Object creation ----

WGPUBuffer wgpuDeviceCreateBuffer(WGPUDevice device, const WGPUBufferDescriptor* d) {
  if (!device) return NullArgument("wgpuDeviceCreateBuffer", "device"), nullptr;
  BufferDescriptor desc;
  std::string error = NullDescriptor(d);
  if (d) {
    error = CheckChain(d->nextInChain, "WGPUBufferDescriptor");
    desc = BufferDescriptor{nullptr, ToCpp(d->label), static_cast<BufferUsage>(d->usage), d->size,
                            d->mappedAtCreation != 0};
  }
  const Device& dev = device->handle;
  return Create<WGPUBufferImpl>(dev, error, "CreateBuffer",
                                [&] { return dev.CreateBuffer(&desc); });
}

WGPUShaderModule wgpuDeviceCreateShaderModule(WGPUDevice device,
                                              const WGPUShaderModuleDescriptor* d) {
  if (!device) return NullArgument("wgpuDeviceCreateShaderModule", "device"), nullptr;
  ShaderModuleDescriptor desc;
  ShaderSourceWGSL wgsl;
  ShaderSourceSPIRV spirv;
  const ChainedStruct* chain = nullptr;
  std::string error = NullDescriptor(d);
  if (d) {
    error = CheckChain(d->nextInChain, "WGPUShaderModuleDescriptor",
                       {WGPUSType_ShaderSourceWGSL, WGPUSType_ShaderSourceSPIRV});
    desc.label = ToCpp(d->label);
    for (const WGPUChainedStruct* c = d->nextInChain; c && error.empty(); c = c->next) {
      if (chain) {
        error = "WGPUShaderModuleDescriptor.nextInChain holds more than one shader source.";
      } else if (c->sType == WGPUSType_ShaderSourceWGSL) {
        wgsl.code = ToCpp(reinterpret_cast<const WGPUShaderSourceWGSL*>(c)->code);
        chain = &wgsl;
      } else {
        const auto* s = reinterpret_cast<const WGPUShaderSourceSPIRV*>(c);
        spirv.codeSize = s->codeSize;
        spirv.code = s->code;
        chain = &spirv;
      }
    }
  }
  const Device& dev = device->handle;
  if (!error.empty()) {
    // Created without a source: a SPIR-V-less, WGSL-less module fails at once, swallowed.
    return Create<WGPUShaderModuleImpl>(dev, error, "CreateShaderModule",
                                        [&] { return dev.CreateShaderModule(&desc); });
  }
  desc.nextInChain = chain;
  return Wrap<WGPUShaderModuleImpl>(dev.CreateShaderModule(&desc));
}

WGPUBindGroupLayout wgpuDeviceCreateBindGroupLayout(WGPUDevice device,
                                                    const WGPUBindGroupLayoutDescriptor* d) {
  if (!device) return NullArgument("wgpuDeviceCreateBindGroupLayout", "device"), nullptr;
  BindGroupLayoutDescriptor desc;
  std::vector<BindGroupLayoutEntry> entries;
  std::string error = NullDescriptor(d);
  if (d) {
    error = CheckChain(d->nextInChain, "WGPUBindGroupLayoutDescriptor");
    desc.label = ToCpp(d->label);
    for (size_t i = 0; d->entries && i < d->entryCount; ++i) {
      const WGPUBindGroupLayoutEntry& e = d->entries[i];
      const std::string which = "entry (binding " + std::to_string(e.binding) + ")";
      if (error.empty()) error = CheckChain(e.nextInChain, "WGPUBindGroupLayoutEntry");
      if (error.empty()) error = CheckChain(e.buffer.nextInChain, "WGPUBufferBindingLayout");
      if (error.empty() && e.buffer.type > WGPUBufferBindingType_ReadOnlyStorage)
        error = which + " has buffer.type " + std::to_string(e.buffer.type) +
                ", which is not a WGPUBufferBindingType value.";
      if (error.empty() && (e.visibility & ~(WGPUShaderStage_Vertex | WGPUShaderStage_Fragment |
                                             WGPUShaderStage_Compute)) != 0)
        error = which + " has visibility bits outside WGPUShaderStage.";
      if (error.empty() && e.sampler.type != WGPUSamplerBindingType_BindingNotUsed)
        error = which + " is a sampler binding; only buffer bindings are supported.";
      if (error.empty() && e.texture.sampleType != WGPUTextureSampleType_BindingNotUsed)
        error = which + " is a texture binding; only buffer bindings are supported.";
      if (error.empty() && e.storageTexture.access != WGPUStorageTextureAccess_BindingNotUsed)
        error = which + " is a storage texture binding; only buffer bindings are supported.";
      BindGroupLayoutEntry entry;
      entry.binding = e.binding;
      entry.visibility = static_cast<ShaderStage>(e.visibility);
      entry.bindingArraySize = e.bindingArraySize;
      entry.buffer = BufferBindingLayout{nullptr, static_cast<BufferBindingType>(e.buffer.type),
                                         e.buffer.hasDynamicOffset != 0, e.buffer.minBindingSize};
      entries.push_back(entry);
    }
    desc.entryCount = d->entryCount;
    desc.entries = d->entries ? entries.data() : nullptr;
  }
  const Device& dev = device->handle;
  return Create<WGPUBindGroupLayoutImpl>(dev, error, "CreateBindGroupLayout",
                                         [&] { return dev.CreateBindGroupLayout(&desc); });
}

WGPUPipelineLayout wgpuDeviceCreatePipelineLayout(WGPUDevice device,
                                                  const WGPUPipelineLayoutDescriptor* d) {
  if (!device) return NullArgument("wgpuDeviceCreatePipelineLayout", "device"), nullptr;
  PipelineLayoutDescriptor desc;
  std::vector<BindGroupLayout> layouts;
  std::string error = NullDescriptor(d);
  if (d) {
    error = CheckChain(d->nextInChain, "WGPUPipelineLayoutDescriptor");
    desc.label = ToCpp(d->label);
    for (size_t i = 0; d->bindGroupLayouts && i < d->bindGroupLayoutCount; ++i)
      layouts.push_back(Unwrap(d->bindGroupLayouts[i]));
    desc.bindGroupLayoutCount = d->bindGroupLayoutCount;
    desc.bindGroupLayouts = d->bindGroupLayouts ? layouts.data() : nullptr;
    desc.immediateSize = d->immediateSize;
  }
  const Device& dev = device->handle;
  return Create<WGPUPipelineLayoutImpl>(dev, error, "CreatePipelineLayout",
                                        [&] { return dev.CreatePipelineLayout(&desc); });
}

WGPUBindGroup wgpuDeviceCreateBindGroup(WGPUDevice device, const WGPUBindGroupDescriptor* d) {
  if (!device) return NullArgument("wgpuDeviceCreateBindGroup", "device"), nullptr;
  BindGroupDescriptor desc;
  std::vector<BindGroupEntry> entries;
  std::string error = NullDescriptor(d);
  if (d) {
    error = CheckChain(d->nextInChain, "WGPUBindGroupDescriptor");
    desc.label = ToCpp(d->label);
    desc.layout = Unwrap(d->layout);
    for (size_t i = 0; d->entries && i < d->entryCount; ++i) {
      const WGPUBindGroupEntry& e = d->entries[i];
      const std::string which = "entry (binding " + std::to_string(e.binding) + ")";
      if (error.empty()) error = CheckChain(e.nextInChain, "WGPUBindGroupEntry");
      if (error.empty() && (e.sampler || e.textureView))
        error = which + " binds a sampler or texture view; only buffers can be bound.";
      entries.push_back(BindGroupEntry{nullptr, e.binding, Unwrap(e.buffer), e.offset, e.size});
    }
    desc.entryCount = d->entryCount;
    desc.entries = d->entries ? entries.data() : nullptr;
  }
  const Device& dev = device->handle;
  return Create<WGPUBindGroupImpl>(dev, error, "CreateBindGroup",
                                   [&] { return dev.CreateBindGroup(&desc); });
}

WGPUComputePipeline wgpuDeviceCreateComputePipeline(WGPUDevice device,
                                                    const WGPUComputePipelineDescriptor* d) {
  if (!device) return NullArgument("wgpuDeviceCreateComputePipeline", "device"), nullptr;
  std::vector<ConstantEntry> constants;
  std::string error = NullDescriptor(d);
  ComputePipelineDescriptor desc;
  if (d) desc = ToCpp(*d, &constants, &error);
  const Device& dev = device->handle;
  return Create<WGPUComputePipelineImpl>(dev, error, "CreateComputePipeline",
                                         [&] { return dev.CreateComputePipeline(&desc); });
}

WGPUFuture wgpuDeviceCreateComputePipelineAsync(WGPUDevice device,
                                                const WGPUComputePipelineDescriptor* d,
                                                WGPUCreateComputePipelineAsyncCallbackInfo info) {
  if (!device) return NullArgument("wgpuDeviceCreateComputePipelineAsync", "device"), WGPUFuture{0};
  if (!ValidCallbackMode(info.mode, "wgpuDeviceCreateComputePipelineAsync")) return WGPUFuture{0};
  std::vector<ConstantEntry> constants;
  std::string error = NullDescriptor(d);
  ComputePipelineDescriptor desc;
  if (d) desc = ToCpp(*d, &constants, &error);
  auto complete = [info](CreatePipelineAsyncStatus status, ComputePipeline pipeline,
                         StringView message) {
    if (!info.callback) return;
    info.callback(static_cast<WGPUCreatePipelineAsyncStatus>(status),
                  Wrap<WGPUComputePipelineImpl>(std::move(pipeline)), ToC(message), info.userdata1,
                  info.userdata2);
  };
  const Device& dev = device->handle;
  if (!error.empty()) {
    // As the C++ layer does for its own validation: the error goes to the callback.
    error += "\n - While calling [Device].CreateComputePipelineAsync.";
    return ToC(
        dev.Get()->Instance().Events().Track(ToCpp(info.mode), dev.Get(), 0, [complete, error] {
          complete(CreatePipelineAsyncStatus::ValidationError, ComputePipeline(),
                   StringView(error));
        }));
  }
  return ToC(dev.CreateComputePipelineAsync(&desc, ToCpp(info.mode), complete));
}

WGPUCommandEncoder wgpuDeviceCreateCommandEncoder(WGPUDevice device,
                                                  const WGPUCommandEncoderDescriptor* d) {
  if (!device) return NullArgument("wgpuDeviceCreateCommandEncoder", "device"), nullptr;
  CommandEncoderDescriptor desc;
  std::string error;
  if (d) {
    error = CheckChain(d->nextInChain, "WGPUCommandEncoderDescriptor");
    desc.label = ToCpp(d->label);
  }
  const Device& dev = device->handle;
  return Create<WGPUCommandEncoderImpl>(dev, error, "CreateCommandEncoder",
                                        [&] { return dev.CreateCommandEncoder(&desc); });
}

WGPUQuerySet wgpuDeviceCreateQuerySet(WGPUDevice device, const WGPUQuerySetDescriptor* d) {
  if (!device) return NullArgument("wgpuDeviceCreateQuerySet", "device"), nullptr;
  QuerySetDescriptor desc;
  std::string error = NullDescriptor(d);
  if (d) {
    error = CheckChain(d->nextInChain, "WGPUQuerySetDescriptor");
    desc = QuerySetDescriptor{nullptr, ToCpp(d->label), static_cast<QueryType>(d->type), d->count};
  }
  const Device& dev = device->handle;
  return Create<WGPUQuerySetImpl>(dev, error, "CreateQuerySet",
                                  [&] { return dev.CreateQuerySet(&desc); });
}

// ---- Device ----

WGPUQueue wgpuDeviceGetQueue(WGPUDevice device) {
  if (!device) return NullArgument("wgpuDeviceGetQueue", "device"), nullptr;
  // One C queue per device, as the device has one queue: every call returns it, with a new
  // reference for the caller.
  if (!device->queue) device->queue = Wrap<WGPUQueueImpl>(device->handle.GetQueue());
  device->queue->refs.fetch_add(1, std::memory_order_relaxed);
  return device->queue;
}

WGPUStatus wgpuDeviceGetLimits(WGPUDevice device, WGPULimits* limits) {
  if (!device) return NullArgument("wgpuDeviceGetLimits", "device"), WGPUStatus_Error;
  return GetDeviceLimits(device->handle, limits);
}

WGPUStatus wgpuDeviceGetAdapterInfo(WGPUDevice device, WGPUAdapterInfo* info) {
  if (!device) return NullArgument("wgpuDeviceGetAdapterInfo", "device"), WGPUStatus_Error;
  return GetDeviceAdapterInfo(device->handle, info);
}

WGPUBool wgpuDeviceHasFeature(WGPUDevice device, WGPUFeatureName feature) {
  if (!device) return NullArgument("wgpuDeviceHasFeature", "device"), WGPU_FALSE;
  return device->handle.HasFeature(static_cast<FeatureName>(feature)) ? WGPU_TRUE : WGPU_FALSE;
}

void wgpuDeviceGetFeatures(WGPUDevice device, WGPUSupportedFeatures* features) {
  if (!device) return NullArgument("wgpuDeviceGetFeatures", "device");
  if (!features) return NullArgument("wgpuDeviceGetFeatures", "features");
  SupportedFeatures list;
  device->handle.GetFeatures(&list);
  FillSupportedFeatures(list, features);
}

void wgpuDevicePushErrorScope(WGPUDevice device, WGPUErrorFilter filter) {
  if (!device) return NullArgument("wgpuDevicePushErrorScope", "device");
  if (filter < WGPUErrorFilter_Validation || filter > WGPUErrorFilter_Internal) {
    // As Dawn: an invalid filter is a validation error and no scope is pushed.
    return ValidationError(device->handle, "Error filter (" + std::to_string(filter) +
                                               ") is not a WGPUErrorFilter value.\n"
                                               " - While calling [Device].PushErrorScope.");
  }
  device->handle.PushErrorScope(static_cast<ErrorFilter>(filter));
}

WGPUFuture wgpuDevicePopErrorScope(WGPUDevice device, WGPUPopErrorScopeCallbackInfo info) {
  if (!device) return NullArgument("wgpuDevicePopErrorScope", "device"), WGPUFuture{0};
  if (!ValidCallbackMode(info.mode, "wgpuDevicePopErrorScope")) return WGPUFuture{0};
  return ToC(device->handle.PopErrorScope(
      ToCpp(info.mode), [info](PopErrorScopeStatus status, ErrorType type, StringView message) {
        if (info.callback)
          info.callback(static_cast<WGPUPopErrorScopeStatus>(status),
                        static_cast<WGPUErrorType>(type), ToC(message), info.userdata1,
                        info.userdata2);
      }));
}

void wgpuDeviceDestroy(WGPUDevice device) {
  if (!device) return NullArgument("wgpuDeviceDestroy", "device");
  device->handle.Destroy();
}

void wgpuDeviceSetLabel(WGPUDevice device, WGPUStringView label) {
  if (!device) return NullArgument("wgpuDeviceSetLabel", "device");
  device->handle.SetLabel(ToCpp(label));
}

void wgpuDeviceAddRef(WGPUDevice device) {
  AddRef(device, "wgpuDeviceAddRef");
}

void wgpuDeviceRelease(WGPUDevice device) {
  if (!device) return NullArgument("wgpuDeviceRelease", "device");
  if (device->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  // The last reference destroys the device (webgpu.h's DeviceRelease): its lost callback, if it
  // runs, sees a null device.
  device->callbacks->self = nullptr;
  device->handle.Destroy();
  if (device->queue) Release(device->queue, "wgpuDeviceRelease");
  delete device;
}

// ---- Queue ----

void wgpuQueueSubmit(WGPUQueue queue, size_t commandCount, const WGPUCommandBuffer* commands) {
  if (!queue) return NullArgument("wgpuQueueSubmit", "queue");
  std::vector<CommandBuffer> list;
  for (size_t i = 0; commands && i < commandCount; ++i) list.push_back(Unwrap(commands[i]));
  queue->handle.Submit(commandCount, commands ? list.data() : nullptr);
}

void wgpuQueueWriteBuffer(WGPUQueue queue, WGPUBuffer buffer, uint64_t bufferOffset,
                          const void* data, size_t size) {
  if (!queue) return NullArgument("wgpuQueueWriteBuffer", "queue");
  if (!buffer)
    return queue->handle.Get()->ReportValidationError("The buffer is null.", "WriteBuffer");
  if (!data && size > 0) {
    return queue->handle.Get()->ReportValidationError(
        "data is null but size is " + std::to_string(size) + ".", "WriteBuffer");
  }
  queue->handle.WriteBuffer(buffer->handle, bufferOffset, data, size);
}

WGPUFuture wgpuQueueOnSubmittedWorkDone(WGPUQueue queue, WGPUQueueWorkDoneCallbackInfo info) {
  if (!queue) return NullArgument("wgpuQueueOnSubmittedWorkDone", "queue"), WGPUFuture{0};
  if (!ValidCallbackMode(info.mode, "wgpuQueueOnSubmittedWorkDone")) return WGPUFuture{0};
  return ToC(queue->handle.OnSubmittedWorkDone(
      ToCpp(info.mode), [info](QueueWorkDoneStatus status, StringView message) {
        if (info.callback)
          info.callback(static_cast<WGPUQueueWorkDoneStatus>(status), ToC(message), info.userdata1,
                        info.userdata2);
      }));
}

void wgpuQueueSetLabel(WGPUQueue queue, WGPUStringView label) {
  if (!queue) return NullArgument("wgpuQueueSetLabel", "queue");
  queue->handle.SetLabel(ToCpp(label));
}

void wgpuQueueAddRef(WGPUQueue queue) {
  AddRef(queue, "wgpuQueueAddRef");
}
void wgpuQueueRelease(WGPUQueue queue) {
  Release(queue, "wgpuQueueRelease");
}
