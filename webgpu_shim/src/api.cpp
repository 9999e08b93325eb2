// The public handle classes: thin forwarding to the implementation objects.
#include <webgpu/webgpu_cpp.h>

#include <stdexcept>

#include "binding.h"
#include "buffer.h"
#include "command_encoder.h"
#include "compute_pipeline.h"
#include "descriptor_arrays.h"
#include "device.h"
#include "instance.h"
#include "query_set.h"
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

namespace {
// WaitAny takes any number of futures; this is what GetInstanceLimits reports (Dawn's default).
constexpr size_t kTimedWaitAnyMaxCount = 64;
}  // namespace

bool HasInstanceFeature(InstanceFeatureName feature) {
  // Every instance has them: timed waits, SPIR-V sources, several devices per adapter.
  return feature == InstanceFeatureName::TimedWaitAny ||
         feature == InstanceFeatureName::ShaderSourceSPIRV ||
         feature == InstanceFeatureName::MultipleDevicesPerAdapter;
}

Status GetInstanceLimits(InstanceLimits* limits) {
  if (!limits) return Status::Error;
  limits->timedWaitAnyMaxCount = kTimedWaitAnyMaxCount;
  return Status::Success;
}

Instance CreateInstance(const InstanceDescriptor* descriptor) {
  const InstanceDescriptor desc = descriptor ? *descriptor : InstanceDescriptor{};
  // As Dawn: an instance asking for what does not exist is not created.
  std::string error;
  const auto features = DescriptorArray(desc.requiredFeatures, desc.requiredFeatureCount,
                                        "requiredFeatures", "requiredFeatureCount", &error);
  if (!features) return Instance();
  for (InstanceFeatureName f : *features)
    if (!HasInstanceFeature(f)) return Instance();
  if (desc.requiredLimits && desc.requiredLimits->timedWaitAnyMaxCount > kTimedWaitAnyMaxCount)
    return Instance();
  return Instance(std::make_shared<InstanceImpl>(desc));
}

std::vector<Adapter> Instance::EnumerateAdapters(const RequestAdapterOptions* options) const {
  std::string why;
  std::vector<Adapter> out;
  for (auto& a : Checked("Instance").Adapters(options ? *options : RequestAdapterOptions{}, &why))
    out.emplace_back(a);
  return out;
}

Future Instance::RequestAdapter(const RequestAdapterOptions* options, CallbackMode mode,
                                RequestAdapterCallback<> callback) const {
  auto& impl = Checked("Instance");
  const RequestAdapterOptions opts = options ? *options : RequestAdapterOptions{};
  std::string why;
  std::vector<std::shared_ptr<AdapterImpl>> adapters;
  if (opts.backendType == BackendType::Undefined || opts.backendType == BackendType::Vulkan)
    adapters = impl.Adapters(opts, &why);
  else
    why = "Only the Vulkan backend exists in this implementation.";
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
  auto& impl = Checked("Instance");
  if (count > 0 && futures == nullptr) return WaitStatus::Error;
  return impl.Events().WaitAny(std::span(futures, count), timeoutNS);
}

WaitStatus Instance::WaitAny(Future f, uint64_t timeout) const {
  FutureWaitInfo info{f};
  return WaitAny(1, &info, timeout);
}

uint64_t Instance::GetVulkanValidationMessageCount() const {
  return Checked("Instance").ValidationMessageCount();
}

namespace {
// Copies `value` out, keeping the caller's nextInChain (the shim fills no chained outputs).
template <typename T>
Status FillOut(T* out, const T& value) {
  if (!out) return Status::Error;
  ChainedStructOut* next = out->nextInChain;
  *out = value;
  out->nextInChain = next;
  return Status::Success;
}
}  // namespace

Status Adapter::GetLimits(Limits* limits) const {
  return FillOut(limits, Checked("Adapter").SupportedLimits());
}
Status Adapter::GetInfo(AdapterInfo* info) const {
  return FillOut(info, Checked("Adapter").Info());
}
bool Adapter::HasFeature(FeatureName feature) const {
  return Checked("Adapter").Features().features.Has(feature);
}
void Adapter::GetFeatures(SupportedFeatures* features) const {
  const auto list = Checked("Adapter").Features().features.List();
  if (features) *features = SupportedFeatures{list.size(), list.data()};  // static storage
}

Future Adapter::RequestDevice(const DeviceDescriptor* descriptor, CallbackMode mode,
                              RequestDeviceCallback<> callback) const {
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

void Device::SetWaitsPollNearTheEndForTesting(bool on) const {
  Checked("Device").SetWaitsPollNearTheEnd(on);
}

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
  std::string error;
  std::vector<std::shared_ptr<BindGroupLayoutImpl>> groups;
  if (auto layouts = DescriptorArray(d->bindGroupLayouts, d->bindGroupLayoutCount,
                                     "bindGroupLayouts", "bindGroupLayoutCount", &error))
    for (const auto& g : *layouts) groups.push_back(g.Get());
  if (error.empty() && d->immediateSize != 0)
    error = "immediateSize (" + std::to_string(d->immediateSize) +
            ") is not 0, but immediates are not supported (maxImmediateSize is 0).";
  return PipelineLayout(
      PipelineLayoutImpl::Create(impl_, d->label, std::move(groups), std::move(error)));
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
                                          CreateComputePipelineAsyncCallback<> callback) const {
  auto& impl = Checked("Device");
  // Validation runs now; its errors go to the callback, not to the error scopes, as WebGPU
  // specifies. The driver's compile runs on the device's background threads.
  impl.PushErrorScope(ErrorFilter::Validation);
  std::shared_ptr<ComputePipelineImpl> pipeline;
  std::shared_ptr<PipelineBuild> build = ComputePipelineImpl::Validate(impl_, *d, &pipeline);
  std::string message;
  impl.PopErrorScope(CallbackMode::AllowSpontaneous,
                     [&](PopErrorScopeStatus, ErrorType type, StringView m) {
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
      const std::string failure = build->Failure();
      callback(CreatePipelineAsyncStatus::InternalError, ComputePipeline(), failure);
    }
  });
  impl.RunPipelineBuild([job = build.get()] { job->Build(); },
                        [&events, id = future.id] { events.MakeReady(id); });
  return future;
}

CommandEncoder Device::CreateCommandEncoder(const CommandEncoderDescriptor* d) const {
  Checked("Device");
  return CommandEncoder(std::make_shared<CommandEncoderImpl>(
      impl_, d ? std::string(std::string_view(d->label)) : std::string(), d && d->reusable));
}

QuerySet Device::CreateQuerySet(const QuerySetDescriptor* d) const {
  Checked("Device");
  return QuerySet(QuerySetImpl::Create(impl_, *d));
}

Queue Device::GetQueue() const { return Queue(Checked("Device").QueueHandle()); }
Status Device::GetLimits(Limits* limits) const {
  return FillOut(limits, Checked("Device").GetLimits());
}
bool Device::HasFeature(FeatureName feature) const {
  return Checked("Device").Features().Has(feature);
}
void Device::GetFeatures(SupportedFeatures* features) const {
  const auto list = Checked("Device").Features().List();
  if (features) *features = SupportedFeatures{list.size(), list.data()};  // static storage
}
Status Device::GetAdapterInfo(AdapterInfo* adapterInfo) const {
  return FillOut(adapterInfo, Checked("Device").Adapter()->Info());
}
void Device::PushErrorScope(ErrorFilter filter) const { Checked("Device").PushErrorScope(filter); }
Future Device::PopErrorScope(CallbackMode mode, PopErrorScopeCallback<> callback) const {
  return Checked("Device").PopErrorScope(mode, std::move(callback));
}
void Device::Destroy() const { Checked("Device").Destroy(); }
void Device::ForceLoss(DeviceLostReason type, StringView message) const {
  Checked("Device").Lose(type, std::string(std::string_view(message)));
}
void Device::SetLabel(StringView label) const {
  Checked("Device").SetLabel(label);
}

// ---- Buffer ----

Future Buffer::MapAsync(MapMode mode, size_t offset, size_t size, CallbackMode callbackMode,
                        BufferMapCallback<> callback) const {
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
void Buffer::SetLabel(StringView label) const {
  Checked("Buffer").SetLabel(label);
}

// ---- QuerySet ----

void QuerySet::Destroy() const { Checked("QuerySet").Destroy(); }
uint32_t QuerySet::GetCount() const { return Checked("QuerySet").Count(); }
QueryType QuerySet::GetType() const { return Checked("QuerySet").Type(); }
void QuerySet::SetLabel(StringView label) const { Checked("QuerySet").SetLabel(label); }

// ---- Shaders, layouts, pipelines ----

Future ShaderModule::GetCompilationInfo(CallbackMode mode,
                                        CompilationInfoCallback<> callback) const {
  return Checked("ShaderModule").GetCompilationInfo(mode, std::move(callback));
}
void ShaderModule::SetLabel(StringView label) const {
  Checked("ShaderModule").SetLabel(label);
}
void BindGroupLayout::SetLabel(StringView label) const {
  Checked("BindGroupLayout").SetLabel(label);
}
void PipelineLayout::SetLabel(StringView label) const {
  Checked("PipelineLayout").SetLabel(label);
}
void BindGroup::SetLabel(StringView label) const {
  Checked("BindGroup").SetLabel(label);
}
BindGroupLayout ComputePipeline::GetBindGroupLayout(uint32_t index) const {
  return BindGroupLayout(Checked("ComputePipeline").GetBindGroupLayout(index));
}
void ComputePipeline::SetLabel(StringView label) const {
  Checked("ComputePipeline").SetLabel(label);
}

// ---- Encoding and submission ----

ComputePassEncoder CommandEncoder::BeginComputePass(const ComputePassDescriptor* d) const {
  auto& impl = Checked("CommandEncoder");
  const std::string label = d ? std::string(std::string_view(d->label)) : std::string();
  auto pass = std::make_shared<ComputePassEncoderImpl>(impl.DevicePtr(), label, impl_);
  if (!impl.BeginPass(*pass, d ? d->timestampWrites : nullptr)) pass->MarkInvalid();
  return ComputePassEncoder(pass);
}
void CommandEncoder::CopyBufferToBuffer(const Buffer& src, uint64_t srcOffset, const Buffer& dst,
                                        uint64_t dstOffset, uint64_t size) const {
  Checked("CommandEncoder").CopyBufferToBuffer(src.Get().get(), srcOffset, dst.Get().get(), dstOffset, size);
}
void CommandEncoder::ClearBuffer(const Buffer& buffer, uint64_t offset, uint64_t size) const {
  Checked("CommandEncoder").ClearBuffer(buffer.Get().get(), offset, size);
}
void CommandEncoder::ResolveQuerySet(const QuerySet& querySet, uint32_t firstQuery,
                                     uint32_t queryCount, const Buffer& destination,
                                     uint64_t destinationOffset) const {
  Checked("CommandEncoder")
      .ResolveQuerySet(querySet.Get().get(), firstQuery, queryCount, destination.Get().get(),
                       destinationOffset);
}
CommandBuffer CommandEncoder::Finish(const CommandBufferDescriptor* d) const {
  return CommandBuffer(Checked("CommandEncoder")
                           .Finish(d ? std::string(std::string_view(d->label)) : std::string()));
}
void CommandEncoder::SetLabel(StringView label) const {
  Checked("CommandEncoder").SetLabel(label);
}
void CommandBuffer::SetLabel(StringView label) const {
  Checked("CommandBuffer").SetLabel(label);
}
uint32_t CommandBuffer::GetBarrierCountForTesting() const { return Checked("CommandBuffer").barrierCount; }

void ComputePassEncoder::SetPipeline(const ComputePipeline& pipeline) const {
  Checked("ComputePassEncoder").SetPipeline(pipeline.Get());
}
void ComputePassEncoder::SetBindGroup(uint32_t index, const BindGroup& group, size_t count,
                                      const uint32_t* offsets) const {
  Checked("ComputePassEncoder").SetBindGroup(index, group.Get(), count, offsets);
}
void ComputePassEncoder::DispatchWorkgroups(uint32_t x, uint32_t y, uint32_t z) const {
  Checked("ComputePassEncoder").Dispatch(x, y, z);
}
void ComputePassEncoder::DispatchWorkgroupsIndirect(const Buffer& buffer, uint64_t offset) const {
  Checked("ComputePassEncoder").DispatchIndirect(buffer.Get(), offset);
}
void ComputePassEncoder::End() const { Checked("ComputePassEncoder").End(); }
void ComputePassEncoder::SetLabel(StringView label) const {
  Checked("ComputePassEncoder").SetLabel(label);
}

void Queue::Submit(size_t count, const CommandBuffer* commands) const {
  auto& impl = Checked("Queue");
  std::string error;
  if (!DescriptorArray(commands, count, "commands", "commandCount", &error))
    return impl.ReportValidationError(error, "Submit");
  impl.Submit(std::span(commands, count));
}
void Queue::WriteBuffer(const Buffer& buffer, uint64_t offset, const void* data, size_t size) const {
  auto& impl = Checked("Queue");
  if (!buffer) detail::ThrowNullHandle("Buffer");
  impl.WriteBuffer(*buffer.Get(), offset, data, size);
}
Future Queue::OnSubmittedWorkDone(CallbackMode mode, QueueWorkDoneCallback<> callback) const {
  return Checked("Queue").OnSubmittedWorkDone(mode, std::move(callback));
}
void Queue::SetLabel(StringView label) const {
  Checked("Queue").SetLabel(label);
}

}  // namespace wgpu
