// One compiled graph on the device: its buffers, pipelines and bind groups, created once, and
// the whole step — every dispatch, the writebacks and the copy of the output and captures into
// one readback buffer — recorded once into a reusable command buffer. Executing it writes the
// inputs, submits that command buffer and maps the readback.
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

  std::shared_ptr<const CompiledIR> ir_;
  std::vector<wgpu::Buffer> buffers_;  // by buffer id; params alias the ParamStore's
  wgpu::Buffer readback_;
  std::vector<Slice> slices_;  // the output first, then each capture
  struct TracedKernel {
    int opIndex;
    OpKind kind;
    Slice slice;
  };
  std::vector<TracedKernel> traced_;  // with traceKernels: each kernel's output, in op order
  wgpu::CommandBuffer step_;
  bool usesPrng_ = false;
  std::shared_ptr<const CaptureShapes> captureShapes_;
};

}  // namespace tg::detail
