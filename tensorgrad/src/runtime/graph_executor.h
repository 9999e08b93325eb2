// One compiled graph on the device: its buffers, pipelines and bind groups, created once, and
// the whole step — every dispatch, the writebacks and the copy of the output and captures into
// one readback buffer — recorded once into a reusable command buffer. Executing it writes the
// inputs, submits that command buffer and maps the readback. Two such recordings, each with its
// own readback buffer and inputs, let step n + 1 be submitted before step n is read back.
#pragma once

#include "gpu_worker.h"
#include "param_store.h"

namespace tg::detail {

class GraphExecutor {
 public:
  // Throws CompileError naming a tensor over the binding limit or a kernel the device rejects.
  // `traceKernels`: run the kernels in op order, one pass each, and read back each one's output.
  GraphExecutor(GpuContext& gpu, std::shared_ptr<const CompiledIR> ir, const ParamStore& params,
                bool traceKernels = false);

  struct Outcome {
    std::string error;  // empty on success
    Array output;       // the output tensor (the loss for training graphs)
    std::map<std::string, Array> captures;
    std::vector<KernelOutput> kernelOutputs;  // with traceKernels
  };
  // `inputs` holds the bytes of every tensor_input of the plan, by name (sizes already checked).
  Outcome execute(GpuContext& gpu, const std::map<std::string, const void*>& inputs);

  // execute() in two halves: submit writes the inputs, submits a recording and starts mapping
  // its readback; collect waits for that map and reads it. Up to two submissions may be
  // outstanding; a third first finishes the GPU thread's unfinished work (GpuContext).
  struct Ticket {
    size_t slot = 0;
    std::string error;  // a missing input: nothing was submitted
    struct Map {
      bool done = false, mapped = false;
      std::string message;
    };
    std::shared_ptr<Map> map;
    wgpu::Future future{};
  };
  Ticket submit(GpuContext& gpu, const std::map<std::string, const void*>& inputs);
  Outcome collect(GpuContext& gpu, const Ticket& ticket);
  // Refills state buffers (optimizer moments) with their initial values.
  void resetState(GpuContext& gpu);

  const CompiledIR& ir() const { return *ir_; }
  const std::shared_ptr<const CompiledIR>& sharedIR() const { return ir_; }
  // Whether the graph takes the per-step seed of in-kernel randomness.
  bool usesPrng() const { return usesPrng_; }
  const std::shared_ptr<const CaptureShapes>& captureShapes() const { return captureShapes_; }

 private:
  struct Slice {
    std::string name;  // empty for the output
    Shape shape;
    Dtype dtype;
    uint64_t offset, bytes;
  };

  struct Slot {
    std::vector<wgpu::Buffer> buffers;  // buffers_, with this slot's own inputs
    wgpu::Buffer readback;
    wgpu::CommandBuffer step;
    bool busy = false;  // submitted, not yet collected
  };

  // The whole step on `slot`'s buffers, its readback copied into the slot's.
  wgpu::CommandBuffer record(GpuContext& gpu, const Slot& slot, bool traceKernels);

  std::shared_ptr<const CompiledIR> ir_;
  // A copy of `buffer`'s bytes (the slot's) into the slot's readback at `at`.
  void copy(wgpu::CommandEncoder& encoder, const Slot& slot, int buffer, uint64_t at,
            uint64_t bytes) const;
  // Whether `k` writes its op's output (the fused optimizer's kernels write arenas instead).
  bool writesItsOp(const KernelSpec& k) const;

  std::vector<wgpu::Buffer> buffers_;  // by buffer id; params alias the ParamStore's, views their parent's
  std::vector<uint64_t> offsets_;      // by buffer id: where in buffers_[id] it starts
  std::vector<Slot> slots_;  // two; one with traceKernels, whose readback holds every kernel
  uint64_t submissions_ = 0;
  std::vector<Slice> slices_;  // the output first, then each capture
  struct TracedKernel {
    int opIndex;
    OpKind kind;
    Slice slice;
  };
  std::vector<TracedKernel> traced_;  // with traceKernels: each kernel's output, in op order
  bool usesPrng_ = false;
  std::shared_ptr<const CaptureShapes> captureShapes_;
};

}  // namespace tg::detail
