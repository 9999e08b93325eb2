// The public handle classes: thin forwarding to the implementation objects.
#include <webgpu/webgpu_cpp.h>

#include <stdexcept>

#include "binding.h"
#include "buffer.h"
#include "command_encoder.h"
#include "compute_pipeline.h"
#include "device.h"
#include "instance.h"
#include "queue.h"
#include "shader_module.h"

namespace wgpu {

namespace detail {
void ThrowNullHandle(const char* type) {
  throw std::logic_error(std::string("wgpu::") + type + ": method called on a null handle");
}
}  // namespace detail

using namespace detail;

std::string ToString(BufferUsage usage) {
  static const std::pair<BufferUsage, const char*> names[] = {
      {BufferUsage::MapRead, "MapRead"},   {BufferUsage::MapWrite, "MapWrite"},
      {BufferUsage::CopySrc, "CopySrc"},   {BufferUsage::CopyDst, "CopyDst"},
      {BufferUsage::Index, "Index"},       {BufferUsage::Vertex, "Vertex"},
      {BufferUsage::Uniform, "Uniform"},   {BufferUsage::Storage, "Storage"},
      {BufferUsage::Indirect, "Indirect"}, {BufferUsage::QueryResolve, "QueryResolve"}};
  std::string s;
  for (auto [flag, name] : names) {
    if (!HasFlag(usage, flag)) continue;
    if (!s.empty()) s += "|";
    s += name;
  }
  return s.empty() ? "None" : s;
}

std::string_view ToString(ErrorType type) {
  switch (type) {
    case ErrorType::NoError: return "NoError";
    case ErrorType::Validation: return "Validation";
    case ErrorType::OutOfMemory: return "OutOfMemory";
    case ErrorType::Internal: return "Internal";
    case ErrorType::Unknown: return "Unknown";
  }
  return "?";
}

std::string_view ToString(BufferMapState state) {
  switch (state) {
    case BufferMapState::Unmapped: return "Unmapped";
    case BufferMapState::Pending: return "Pending";
    case BufferMapState::Mapped: return "Mapped";
  }
  return "?";
}

// ---- Instance / Adapter ----

Instance CreateInstance(const InstanceDescriptor* descriptor) {
  return Instance(std::make_shared<InstanceImpl>(descriptor ? *descriptor : InstanceDescriptor{}));
}

std::vector<Adapter> Instance::EnumerateAdapters(const RequestAdapterOptions* options) const {
  std::string why;
  std::vector<Adapter> out;
  for (auto& a : Checked("Instance").Adapters(options ? *options : RequestAdapterOptions{}, &why))
    out.emplace_back(a);
  return out;
}

Future Instance::RequestAdapter(const RequestAdapterOptions* options, CallbackMode mode,
                                RequestAdapterCallback callback) const {
  auto& impl = Checked("Instance");
  std::string why;
  auto adapters = impl.Adapters(options ? *options : RequestAdapterOptions{}, &why);
  std::function<void()> complete;
  if (adapters.empty()) {
    // No Vulkan instance (no loader or driver) is an error; Unavailable means none matches.
    const auto status = impl.Handle() ? RequestAdapterStatus::Unavailable : RequestAdapterStatus::Error;
    complete = [callback, why, status] { callback(status, Adapter(), why); };
  } else {
    Adapter adapter(adapters.front());
    complete = [callback, adapter] { callback(RequestAdapterStatus::Success, adapter, ""); };
  }
  return impl.Events().Track(mode, nullptr, 0, std::move(complete));
}

void Instance::ProcessEvents() const { Checked("Instance").Events().ProcessEvents(); }

WaitStatus Instance::WaitAny(size_t count, FutureWaitInfo* futures, uint64_t timeoutNS) const {
  return Checked("Instance").Events().WaitAny(std::span(futures, count), timeoutNS);
}

WaitStatus Instance::WaitAny(Future future, uint64_t timeoutNS) const {
  FutureWaitInfo info{future};
  return WaitAny(1, &info, timeoutNS);
}

uint64_t Instance::GetVulkanValidationMessageCount() const {
  return Checked("Instance").ValidationMessageCount();
}

void Adapter::GetLimits(Limits* limits) const { *limits = Checked("Adapter").SupportedLimits(); }
void Adapter::GetInfo(AdapterInfo* info) const { *info = Checked("Adapter").Info(); }
bool Adapter::HasFeature(FeatureName) const {
  Checked("Adapter");
  return false;
}
std::vector<FeatureName> Adapter::GetFeatures() const {
  Checked("Adapter");
  return {};
}

Future Adapter::RequestDevice(const DeviceDescriptor* descriptor, CallbackMode mode,
                              RequestDeviceCallback callback) const {
  auto& impl = Checked("Adapter");
  const DeviceDescriptor desc = descriptor ? *descriptor : DeviceDescriptor{};
  std::string error;
  auto device = DeviceImpl::Create(impl_, desc, &error);
  std::function<void()> complete;
  if (!device) {
    complete = [callback, error] { callback(RequestDeviceStatus::Error, Device(), error); };
  } else {
    Device handle(device);
    complete = [callback, handle] { callback(RequestDeviceStatus::Success, handle, ""); };
  }
  return impl.Instance()->Events().Track(mode, nullptr, 0, std::move(complete));
}

// ---- Device ----

Buffer Device::CreateBuffer(const BufferDescriptor* d) const {
  Checked("Device");
  return Buffer(BufferImpl::Create(impl_, *d));
}

ShaderModule Device::CreateShaderModule(const ShaderModuleDescriptor* d) const {
  Checked("Device");
  return ShaderModule(std::make_shared<ShaderModuleImpl>(impl_, *d));
}

BindGroupLayout Device::CreateBindGroupLayout(const BindGroupLayoutDescriptor* d) const {
  Checked("Device");
  return BindGroupLayout(BindGroupLayoutImpl::Create(impl_, *d, false));
}

PipelineLayout Device::CreatePipelineLayout(const PipelineLayoutDescriptor* d) const {
  Checked("Device");
  std::vector<std::shared_ptr<BindGroupLayoutImpl>> groups;
  for (const auto& g : d->bindGroupLayouts) groups.push_back(g.Get());
  return PipelineLayout(PipelineLayoutImpl::Create(impl_, d->label, std::move(groups)));
}

BindGroup Device::CreateBindGroup(const BindGroupDescriptor* d) const {
  Checked("Device");
  return BindGroup(BindGroupImpl::Create(impl_, *d));
}

ComputePipeline Device::CreateComputePipeline(const ComputePipelineDescriptor* d) const {
  Checked("Device");
  return ComputePipeline(ComputePipelineImpl::Create(impl_, *d));
}

Future Device::CreateComputePipelineAsync(const ComputePipelineDescriptor* d, CallbackMode mode,
                                          CreateComputePipelineAsyncCallback callback) const {
  auto& impl = Checked("Device");
  // Validation runs now; its errors go to the callback, not to the error scopes, as WebGPU
  // specifies. The driver's compile runs on the device's background threads.
  impl.PushErrorScope(ErrorFilter::Validation);
  std::shared_ptr<ComputePipelineImpl> pipeline;
  std::shared_ptr<PipelineBuild> build = ComputePipelineImpl::Validate(impl_, *d, &pipeline);
  std::string message;
  impl.PopErrorScope(CallbackMode::AllowSpontaneous,
                     [&](PopErrorScopeStatus, ErrorType type, std::string_view m) {
                       if (type != ErrorType::NoError) message = m;
                     });
  auto& events = impl.Instance().Events();
  if (!build) {
    return events.Track(mode, impl_, 0, [callback, message] {
      callback(CreatePipelineAsyncStatus::ValidationError, ComputePipeline(), message);
    });
  }
  // The event owns the build until its callback runs, and the callback cannot run before the
  // build is done; the background job only borrows it, so it never drops the last reference to
  // a pipeline (and with it, perhaps, the device whose threads it runs on).
  const Future future = events.TrackPending(mode, impl_, [callback, build] {
    if (build->result == VK_SUCCESS) {
      callback(CreatePipelineAsyncStatus::Success, ComputePipeline(build->pipeline), "");
    } else {
      callback(CreatePipelineAsyncStatus::InternalError, ComputePipeline(), build->Failure());
    }
  });
  impl.RunPipelineBuild([job = build.get()] { job->Build(); },
                        [&events, id = future.id] { events.MakeReady(id); });
  return future;
}

CommandEncoder Device::CreateCommandEncoder(const CommandEncoderDescriptor* d) const {
  Checked("Device");
  return CommandEncoder(
      std::make_shared<CommandEncoderImpl>(impl_, d ? d->label : "", d && d->reusable));
}

Queue Device::GetQueue() const { return Queue(Checked("Device").QueueHandle()); }
void Device::GetLimits(Limits* limits) const { *limits = Checked("Device").GetLimits(); }
bool Device::HasFeature(FeatureName) const {
  Checked("Device");
  return false;
}
std::vector<FeatureName> Device::GetFeatures() const {
  Checked("Device");
  return {};
}
AdapterInfo Device::GetAdapterInfo() const { return Checked("Device").Adapter()->Info(); }
void Device::PushErrorScope(ErrorFilter filter) const { Checked("Device").PushErrorScope(filter); }
Future Device::PopErrorScope(CallbackMode mode, PopErrorScopeCallback callback) const {
  return Checked("Device").PopErrorScope(mode, std::move(callback));
}
void Device::Destroy() const { Checked("Device").Destroy(); }
void Device::ForceLoss(DeviceLostReason reason, std::string_view message) const {
  Checked("Device").Lose(reason, std::string(message));
}
void Device::SetLabel(std::string_view label) const { Checked("Device").SetLabel(label); }

// ---- Buffer ----

Future Buffer::MapAsync(MapMode mode, size_t offset, size_t size, CallbackMode callbackMode,
                        BufferMapCallback callback) const {
  return Checked("Buffer").MapAsync(mode, offset, size, callbackMode, std::move(callback));
}
void* Buffer::GetMappedRange(size_t offset, size_t size) const {
  return Checked("Buffer").GetMappedRange(offset, size, true);
}
const void* Buffer::GetConstMappedRange(size_t offset, size_t size) const {
  return Checked("Buffer").GetMappedRange(offset, size, false);
}
void Buffer::Unmap() const { Checked("Buffer").Unmap(); }
void Buffer::Destroy() const { Checked("Buffer").Destroy(); }
uint64_t Buffer::GetSize() const { return Checked("Buffer").Size(); }
BufferUsage Buffer::GetUsage() const { return Checked("Buffer").Usage(); }
BufferMapState Buffer::GetMapState() const { return Checked("Buffer").MapState(); }
void Buffer::SetLabel(std::string_view label) const { Checked("Buffer").SetLabel(label); }

// ---- Shaders, layouts, pipelines ----

Future ShaderModule::GetCompilationInfo(CallbackMode mode, CompilationInfoCallback callback) const {
  return Checked("ShaderModule").GetCompilationInfo(mode, std::move(callback));
}
void ShaderModule::SetLabel(std::string_view label) const { Checked("ShaderModule").SetLabel(label); }
void BindGroupLayout::SetLabel(std::string_view label) const { Checked("BindGroupLayout").SetLabel(label); }
void PipelineLayout::SetLabel(std::string_view label) const { Checked("PipelineLayout").SetLabel(label); }
void BindGroup::SetLabel(std::string_view label) const { Checked("BindGroup").SetLabel(label); }
BindGroupLayout ComputePipeline::GetBindGroupLayout(uint32_t index) const {
  return BindGroupLayout(Checked("ComputePipeline").GetBindGroupLayout(index));
}
void ComputePipeline::SetLabel(std::string_view label) const { Checked("ComputePipeline").SetLabel(label); }

// ---- Encoding and submission ----

ComputePassEncoder CommandEncoder::BeginComputePass(const ComputePassDescriptor* d) const {
  auto& impl = Checked("CommandEncoder");
  const std::string label = d ? d->label : "";
  auto pass = std::make_shared<ComputePassEncoderImpl>(impl.DevicePtr(), label, impl_);
  if (!impl.BeginPass(label)) pass->MarkInvalid();
  return ComputePassEncoder(pass);
}
void CommandEncoder::CopyBufferToBuffer(const Buffer& src, uint64_t srcOffset, const Buffer& dst,
                                        uint64_t dstOffset, uint64_t size) const {
  Checked("CommandEncoder").CopyBufferToBuffer(src.Get().get(), srcOffset, dst.Get().get(), dstOffset, size);
}
void CommandEncoder::ClearBuffer(const Buffer& buffer, uint64_t offset, uint64_t size) const {
  Checked("CommandEncoder").ClearBuffer(buffer.Get().get(), offset, size);
}
CommandBuffer CommandEncoder::Finish(const CommandBufferDescriptor* d) const {
  return CommandBuffer(Checked("CommandEncoder").Finish(d ? d->label : ""));
}
void CommandEncoder::SetLabel(std::string_view label) const { Checked("CommandEncoder").SetLabel(label); }
void CommandBuffer::SetLabel(std::string_view label) const { Checked("CommandBuffer").SetLabel(label); }
uint32_t CommandBuffer::GetBarrierCountForTesting() const { return Checked("CommandBuffer").barrierCount; }

void ComputePassEncoder::SetPipeline(const ComputePipeline& pipeline) const {
  Checked("ComputePassEncoder").SetPipeline(pipeline.Get());
}
void ComputePassEncoder::SetBindGroup(uint32_t index, const BindGroup& group, size_t count,
                                      const uint32_t*) const {
  Checked("ComputePassEncoder").SetBindGroup(index, group.Get(), count);
}
void ComputePassEncoder::DispatchWorkgroups(uint32_t x, uint32_t y, uint32_t z) const {
  Checked("ComputePassEncoder").Dispatch(x, y, z);
}
void ComputePassEncoder::DispatchWorkgroupsIndirect(const Buffer& buffer, uint64_t offset) const {
  Checked("ComputePassEncoder").DispatchIndirect(buffer.Get(), offset);
}
void ComputePassEncoder::End() const { Checked("ComputePassEncoder").End(); }
void ComputePassEncoder::SetLabel(std::string_view label) const {
  Checked("ComputePassEncoder").SetLabel(label);
}

void Queue::Submit(size_t count, const CommandBuffer* commands) const {
  Checked("Queue").Submit(std::span(commands, count));
}
void Queue::WriteBuffer(const Buffer& buffer, uint64_t offset, const void* data, size_t size) const {
  auto& impl = Checked("Queue");
  if (!buffer) detail::ThrowNullHandle("Buffer");
  impl.WriteBuffer(*buffer.Get(), offset, data, size);
}
Future Queue::OnSubmittedWorkDone(CallbackMode mode, QueueWorkDoneCallback callback) const {
  return Checked("Queue").OnSubmittedWorkDone(mode, std::move(callback));
}
void Queue::SetLabel(std::string_view label) const { Checked("Queue").SetLabel(label); }

}  // namespace wgpu
