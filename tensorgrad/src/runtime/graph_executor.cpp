#include "graph_executor.h"

#include <cstring>

#include "tensorgrad/schedule.h"

namespace tg::detail {

namespace {

Array readArray(const char* bytes, uint64_t size, Dtype dtype) {
  if (dtype == Dtype::F32) {
    std::vector<float> v(size / 4);
    std::memcpy(v.data(), bytes, size);
    return Array(std::move(v));
  }
  std::vector<int32_t> v(size / 4);  // i32 and bool are both stored as 32-bit integers
  std::memcpy(v.data(), bytes, size);
  return Array(std::move(v));
}

}  // namespace

GraphExecutor::GraphExecutor(GpuContext& gpu, std::shared_ptr<const CompiledIR> ir,
                             const ParamStore& params, bool traceKernels)
    : ir_(std::move(ir)) {
  const BufferPlan& plan = ir_->plan;
  for (const BufferSpec& b : plan.buffers) {
    if (b.kind == BufferSpec::Kind::Param || b.parent >= 0) continue;  // the ParamStore checked these
    checkBindable(gpu, b.name.empty() ? "t" + std::to_string(b.id) : b.name, b.shape, b.byteSize);
  }
  // Buffers: parameters come from the store (param arenas too, found through their views); views
  // are ranges of their parent; states start at their initial value.
  buffers_.resize(plan.buffers.size());
  offsets_.assign(plan.buffers.size(), 0);
  for (const BufferSpec& b : plan.buffers) {
    if (b.kind == BufferSpec::Kind::Param) {
      const ParamStore::Place* shared = params.find(b.name);
      if (!shared) throw CompileError("tensorgrad: the graph reads param '" + b.name + "', which this compile does not own");
      buffers_[static_cast<size_t>(b.id)] = shared->buffer;
      offsets_[static_cast<size_t>(b.id)] = shared->offset;
      if (b.parent >= 0) {
        if (shared->offset != static_cast<uint64_t>(b.offset))
          throw CompileError("tensorgrad: param '" + b.name + "' is not where the plan's arena has it");
        buffers_[static_cast<size_t>(b.parent)] = shared->buffer;
      }
      continue;
    }
    if (b.kind == BufferSpec::Kind::ParamArena || b.parent >= 0) continue;
    const std::string label = b.name.empty() ? std::string(bufferKindName(b.kind)) + " " + std::to_string(b.id) : b.name;
    wgpu::BufferDescriptor bd;
    bd.label = label;  // a view: the string must outlive CreateBuffer
    bd.size = static_cast<uint64_t>(std::max<int64_t>(b.byteSize, 4));
    bd.usage = wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc | wgpu::BufferUsage::CopyDst;
    bd.directWrites = b.kind == BufferSpec::Kind::TensorInput;  // written every step
    buffers_[static_cast<size_t>(b.id)] = gpu.device.CreateBuffer(&bd);
  }
  for (const BufferSpec& b : plan.buffers) {
    if (b.parent < 0 || b.kind == BufferSpec::Kind::Param) continue;
    buffers_[static_cast<size_t>(b.id)] = buffers_[static_cast<size_t>(b.parent)];
    offsets_[static_cast<size_t>(b.id)] = static_cast<uint64_t>(b.offset);
  }
  for (const BufferSpec& b : plan.buffers) {
    if (!buffers_[static_cast<size_t>(b.id)])
      throw CompileError("tensorgrad: " + b.name + " has no parameters of this compile in it");
  }
  resetState(gpu);

  // A readback buffer per slot: the output, then every capture, then (tracing) every kernel's
  // output.
  const Graph& graph = ir_->graph;
  const TensorInfo& out = graph.tensors[static_cast<size_t>(ir_->output)];
  uint64_t total = 0;
  auto sliceOf = [&](std::string name, Shape shape, Dtype dtype) {
    const uint64_t bytes = static_cast<uint64_t>(shapeSize(shape) * 4);
    Slice s{std::move(name), std::move(shape), dtype, total, bytes};
    total += bytes;
    return s;
  };
  slices_.push_back(sliceOf("", out.shape, out.dtype));
  for (const auto& [name, id] : plan.capturesByName) {
    const BufferSpec& b = plan.buffers[static_cast<size_t>(id)];
    slices_.push_back(sliceOf(name, b.shape, b.dtype));
  }
  if (traceKernels) {
    for (const KernelSpec& k : ir_->kernels) {
      if (!writesItsOp(k)) continue;
      const TensorInfo& t = graph.tensors[static_cast<size_t>(graph.ops[static_cast<size_t>(k.opIndex)].out)];
      traced_.push_back({k.opIndex, k.kind, sliceOf("", t.shape, t.dtype)});
    }
  }
  // Each slot has inputs of its own: a step's inputs are written while the other slot's step may
  // still run, and a buffer no submitted work uses is written at once (directWrites), without a
  // copy on the queue.
  slots_.resize(traceKernels ? 1 : 2);
  for (Slot& slot : slots_) {
    slot.buffers = buffers_;
    if (&slot != &slots_.front()) {
      for (const auto& [name, id] : plan.inputsByName) {
        const wgpu::Buffer& first = buffers_[static_cast<size_t>(id)];
        wgpu::BufferDescriptor bd;
        bd.label = name;
        bd.size = first.GetSize();
        bd.usage = first.GetUsage();
        bd.directWrites = true;
        slot.buffers[static_cast<size_t>(id)] = gpu.device.CreateBuffer(&bd);
      }
    }
    wgpu::BufferDescriptor rd;
    rd.label = "readback";
    rd.size = std::max<uint64_t>(total, 4);
    rd.usage = wgpu::BufferUsage::MapRead | wgpu::BufferUsage::CopyDst;
    slot.readback = gpu.device.CreateBuffer(&rd);
  }
  auto shapes = std::make_shared<CaptureShapes>();
  for (const Slice& slice : slices_) {
    if (!slice.name.empty()) shapes->emplace(slice.name, slice.shape);
  }
  captureShapes_ = std::move(shapes);
  for (const auto& [name, id] : plan.inputsByName) usesPrng_ = usesPrng_ || name == kPrngSeedInput;

  // Record the step once per slot.
  gpu.pipelines->prepare(ir_->kernels);
  for (Slot& slot : slots_) slot.step = record(gpu, slot, traceKernels);
  if (const std::string errors = gpu.takeErrors(); !errors.empty())
    throw CompileError("tensorgrad: recording the step failed: " + errors);
}

wgpu::CommandBuffer GraphExecutor::record(GpuContext& gpu, const Slot& slot, bool traceKernels) {
  const std::vector<wgpu::Buffer>& buffers = slot.buffers;
  const int outBuffer = ir_->plan.tensorToBuffer[static_cast<size_t>(ir_->output)];
  wgpu::CommandEncoderDescriptor ed;
  ed.label = "tensorgrad step";
  ed.reusable = true;
  wgpu::CommandEncoder encoder = gpu.device.CreateCommandEncoder(&ed);
  const auto dispatch = [&](wgpu::ComputePassEncoder& pass, const KernelSpec& k) {
    wgpu::ComputePipeline pipeline = gpu.pipelines->get(k);
    std::vector<wgpu::BindGroupEntry> entries;
    for (size_t i = 0; i < k.bindings.size(); ++i) {
      const auto id = static_cast<size_t>(k.bindings[i]);
      entries.push_back({.binding = static_cast<uint32_t>(i),
                         .buffer = buffers[id],
                         .offset = offsets_[id],
                         .size = static_cast<uint64_t>(std::max<int64_t>(4, ir_->plan.buffers[id].byteSize))});
    }
    const wgpu::BindGroupDescriptor bg{.layout = pipeline.GetBindGroupLayout(0),
                                       .entryCount = entries.size(),
                                       .entries = entries.data()};
    pass.SetPipeline(pipeline);
    pass.SetBindGroup(0, gpu.device.CreateBindGroup(&bg));
    const auto d = k.dispatch();
    pass.DispatchWorkgroups(d[0], d[1]);
  };
  if (traceKernels) {
    // Op order, one pass per kernel, its output copied out before any later kernel runs.
    size_t next = 0;
    for (const KernelSpec& k : ir_->kernels) {
      if (k.wgsl.empty() || k.threads == 0) continue;
      wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
      dispatch(pass, k);
      pass.End();
      if (!writesItsOp(k)) continue;
      const Slice& s = traced_[next++].slice;
      if (s.bytes > 0) copy(encoder, slot, k.bindings.back(), s.offset, s.bytes);
    }
  } else {
    // Level by level: the shim's hazard tracking then needs one barrier per level.
    wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
    for (size_t index : scheduleDispatches(ir_->kernels).order) dispatch(pass, ir_->kernels[index]);
    pass.End();
  }
  for (const Writeback& w : ir_->plan.writebacks) {
    encoder.CopyBufferToBuffer(buffers[static_cast<size_t>(w.source)], offsets_[static_cast<size_t>(w.source)],
                               buffers[static_cast<size_t>(w.dest)], offsets_[static_cast<size_t>(w.dest)],
                               static_cast<uint64_t>(w.bytes));
  }
  copy(encoder, slot, outBuffer, 0, slices_[0].bytes);
  for (size_t i = 1; i < slices_.size(); ++i)
    copy(encoder, slot, ir_->plan.capturesByName[i - 1].second, slices_[i].offset, slices_[i].bytes);
  return encoder.Finish();
}

void GraphExecutor::copy(wgpu::CommandEncoder& encoder, const Slot& slot, int buffer, uint64_t at,
                         uint64_t bytes) const {
  encoder.CopyBufferToBuffer(slot.buffers[static_cast<size_t>(buffer)], offsets_[static_cast<size_t>(buffer)],
                             slot.readback, at, bytes);
}

bool GraphExecutor::writesItsOp(const KernelSpec& k) const {
  if (k.wgsl.empty() || k.threads == 0) return false;
  const int out = ir_->graph.ops[static_cast<size_t>(k.opIndex)].out;
  return k.bindings.back() == ir_->plan.tensorToBuffer[static_cast<size_t>(out)];
}

void GraphExecutor::resetState(GpuContext& gpu) {
  for (const BufferSpec& b : ir_->plan.buffers) {
    if (b.kind != BufferSpec::Kind::State || b.parent >= 0) continue;  // an arena fills its views
    const size_t n = static_cast<size_t>(b.byteSize / 4);
    std::vector<uint32_t> words(n);
    const float f = static_cast<float>(b.initValue);
    const int32_t i = static_cast<int32_t>(b.initValue);
    std::fill(words.begin(), words.end(),
              b.dtype == Dtype::F32 ? std::bit_cast<uint32_t>(f) : std::bit_cast<uint32_t>(i));
    gpu.queue.WriteBuffer(buffers_[static_cast<size_t>(b.id)], 0, words.data(), n * 4);
  }
}

GraphExecutor::Outcome GraphExecutor::execute(GpuContext& gpu,
                                              const std::map<std::string, const void*>& inputs) {
  return collect(gpu, submit(gpu, inputs));
}

GraphExecutor::Ticket GraphExecutor::submit(GpuContext& gpu,
                                            const std::map<std::string, const void*>& inputs) {
  Ticket ticket;
  ticket.slot = static_cast<size_t>(submissions_ % slots_.size());
  Slot& slot = slots_[ticket.slot];
  if (slot.busy) gpu.finishUnfinished();  // collects the submission using this slot
  for (const auto& [name, id] : ir_->plan.inputsByName) {
    const BufferSpec& b = ir_->plan.buffers[static_cast<size_t>(id)];
    auto it = inputs.find(name);
    if (it == inputs.end()) {
      ticket.error = "missing input '" + name + "'";
      return ticket;
    }
    gpu.queue.WriteBuffer(slot.buffers[static_cast<size_t>(id)], 0, it->second,
                          static_cast<size_t>(b.byteSize));
  }
  gpu.queue.Submit(1, &slot.step);
  ++submissions_;
  slot.busy = true;
  ticket.map = std::make_shared<Ticket::Map>();
  ticket.future = slot.readback.MapAsync(
      wgpu::MapMode::Read, 0, slot.readback.GetSize(), wgpu::CallbackMode::WaitAnyOnly,
      [map = ticket.map](wgpu::MapAsyncStatus s, std::string_view m) {
        map->done = true;
        map->mapped = s == wgpu::MapAsyncStatus::Success;
        map->message = m;
      });
  return ticket;
}

GraphExecutor::Outcome GraphExecutor::collect(GpuContext& gpu, const Ticket& ticket) {
  Outcome outcome;
  if (!ticket.error.empty() || !ticket.map) {
    outcome.error = ticket.error;
    return outcome;
  }
  Slot& slot = slots_[ticket.slot];
  if (!ticket.map->done) gpu.wait(ticket.future);
  slot.busy = false;
  const bool mapped = ticket.map->mapped;
  // Device errors are the device's, not a submission's: with two steps in flight an error raised
  // by the later one's submission is reported here, one step early.
  outcome.error = gpu.takeErrors();
  if (!mapped && outcome.error.empty()) outcome.error = "the readback failed: " + ticket.map->message;
  if (!mapped) return outcome;
  const wgpu::Buffer& readback = slot.readback;
  if (outcome.error.empty()) {
    const auto* bytes = static_cast<const char*>(readback.GetConstMappedRange(0, readback.GetSize()));
    outcome.output = readArray(bytes, slices_[0].bytes, slices_[0].dtype);
    for (size_t i = 1; i < slices_.size(); ++i) {
      outcome.captures.emplace(slices_[i].name,
                               readArray(bytes + slices_[i].offset, slices_[i].bytes, slices_[i].dtype));
    }
    for (const TracedKernel& k : traced_) {
      outcome.kernelOutputs.push_back(
          {k.opIndex, k.kind, readArray(bytes + k.slice.offset, k.slice.bytes, k.slice.dtype)});
    }
  }
  readback.Unmap();
  return outcome;
}

}  // namespace tg::detail
