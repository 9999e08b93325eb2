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
    if (b.kind == BufferSpec::Kind::Param) continue;  // the ParamStore checked these
    checkBindable(gpu, b.name.empty() ? "t" + std::to_string(b.id) : b.name, b.shape, b.byteSize);
  }
  // Buffers: parameters come from the store; states start at their initial value.
  buffers_.resize(plan.buffers.size());
  for (const BufferSpec& b : plan.buffers) {
    if (b.kind == BufferSpec::Kind::Param) {
      const wgpu::Buffer* shared = params.find(b.name);
      if (!shared) throw CompileError("tensorgrad: the graph reads param '" + b.name + "', which this compile does not own");
      buffers_[static_cast<size_t>(b.id)] = *shared;
      continue;
    }
    const std::string label = b.name.empty() ? std::string(bufferKindName(b.kind)) + " " + std::to_string(b.id) : b.name;
    wgpu::BufferDescriptor bd;
    bd.label = label;  // a view: the string must outlive CreateBuffer
    bd.size = static_cast<uint64_t>(std::max<int64_t>(b.byteSize, 4));
    bd.usage = wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc | wgpu::BufferUsage::CopyDst;
    buffers_[static_cast<size_t>(b.id)] = gpu.device.CreateBuffer(&bd);
  }
  resetState(gpu);

  // One readback buffer: the output, then every capture, then (tracing) every kernel's output.
  const Graph& graph = ir_->graph;
  const TensorInfo& out = graph.tensors[static_cast<size_t>(ir_->output)];
  const int outBuffer = plan.tensorToBuffer[static_cast<size_t>(ir_->output)];
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
      if (k.wgsl.empty() || k.threads == 0) continue;
      const TensorInfo& t = graph.tensors[static_cast<size_t>(graph.ops[static_cast<size_t>(k.opIndex)].out)];
      traced_.push_back({k.opIndex, k.kind, sliceOf("", t.shape, t.dtype)});
    }
  }
  wgpu::BufferDescriptor rd;
  rd.label = "readback";
  rd.size = std::max<uint64_t>(total, 4);
  rd.usage = wgpu::BufferUsage::MapRead | wgpu::BufferUsage::CopyDst;
  readback_ = gpu.device.CreateBuffer(&rd);
  auto shapes = std::make_shared<CaptureShapes>();
  for (const Slice& slice : slices_) {
    if (!slice.name.empty()) shapes->emplace(slice.name, slice.shape);
  }
  captureShapes_ = std::move(shapes);
  for (const auto& [name, id] : plan.inputsByName) usesPrng_ = usesPrng_ || name == kPrngSeedInput;

  // Record the step once.
  wgpu::CommandEncoderDescriptor ed;
  ed.label = "tensorgrad step";
  ed.reusable = true;
  wgpu::CommandEncoder encoder = gpu.device.CreateCommandEncoder(&ed);
  gpu.pipelines->prepare(ir_->kernels);
  const auto dispatch = [&](wgpu::ComputePassEncoder& pass, const KernelSpec& k) {
    wgpu::ComputePipeline pipeline = gpu.pipelines->get(k);
    std::vector<wgpu::BindGroupEntry> entries;
    for (size_t i = 0; i < k.bindings.size(); ++i) {
      entries.push_back({.binding = static_cast<uint32_t>(i),
                         .buffer = buffers_[static_cast<size_t>(k.bindings[i])]});
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
      const Slice& s = traced_[next++].slice;
      if (s.bytes > 0) {
        encoder.CopyBufferToBuffer(buffers_[static_cast<size_t>(k.bindings.back())], 0, readback_,
                                   s.offset, s.bytes);
      }
    }
  } else {
    // Level by level: the shim's hazard tracking then needs one barrier per level.
    wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
    for (size_t index : scheduleDispatches(ir_->kernels).order) dispatch(pass, ir_->kernels[index]);
    pass.End();
  }
  for (const Writeback& w : plan.writebacks) {
    encoder.CopyBufferToBuffer(buffers_[static_cast<size_t>(w.source)], 0,
                               buffers_[static_cast<size_t>(w.dest)], 0, static_cast<uint64_t>(w.bytes));
  }
  encoder.CopyBufferToBuffer(buffers_[static_cast<size_t>(outBuffer)], 0, readback_, 0, slices_[0].bytes);
  for (size_t i = 1; i < slices_.size(); ++i) {
    const int id = plan.capturesByName[i - 1].second;
    encoder.CopyBufferToBuffer(buffers_[static_cast<size_t>(id)], 0, readback_, slices_[i].offset,
                               slices_[i].bytes);
  }
  step_ = encoder.Finish();
  if (const std::string errors = gpu.takeErrors(); !errors.empty())
    throw CompileError("tensorgrad: recording the step failed: " + errors);
}

void GraphExecutor::resetState(GpuContext& gpu) {
  for (const BufferSpec& b : ir_->plan.buffers) {
    if (b.kind != BufferSpec::Kind::State) continue;
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
  Outcome outcome;
  for (const auto& [name, id] : ir_->plan.inputsByName) {
    const BufferSpec& b = ir_->plan.buffers[static_cast<size_t>(id)];
    auto it = inputs.find(name);
    if (it == inputs.end()) {
      outcome.error = "missing input '" + name + "'";
      return outcome;
    }
    gpu.queue.WriteBuffer(buffers_[static_cast<size_t>(id)], 0, it->second,
                          static_cast<size_t>(b.byteSize));
  }
  gpu.queue.Submit(1, &step_);
  bool mapped = false;
  std::string mapMessage;
  gpu.wait(readback_.MapAsync(wgpu::MapMode::Read, 0, readback_.GetSize(),
                              wgpu::CallbackMode::WaitAnyOnly,
                              [&](wgpu::MapAsyncStatus s, std::string_view m) {
                                mapped = s == wgpu::MapAsyncStatus::Success;
                                mapMessage = m;
                              }));
  outcome.error = gpu.takeErrors();
  if (!mapped && outcome.error.empty()) outcome.error = "the readback failed: " + mapMessage;
  if (!mapped) return outcome;
  if (outcome.error.empty()) {
    const auto* bytes = static_cast<const char*>(readback_.GetConstMappedRange(0, readback_.GetSize()));
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
  readback_.Unmap();
  return outcome;
}

}  // namespace tg::detail
