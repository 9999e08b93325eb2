// trace(spec) / traceForward(spec): the whole compiler front half with no GPU — trace, autograd,
// optimizer, DCE, buffer plan. The runtime consumes the same CompiledIR.
#pragma once

#include <functional>
#include <map>

#include "tensorgrad/codegen.h"
#include "tensorgrad/module.h"
#include "tensorgrad/passes.h"

namespace tg {

struct InputDecl {
  Shape shape{};
  Dtype dtype = Dtype::F32;
};
// Ordered like upstream's object literal: inputs become tensor_inputs in this order.
using InputDecls = std::vector<std::pair<std::string, InputDecl>>;

// The forward function's view of its declared inputs.
class Inputs {
 public:
  const Tensor& operator[](const std::string& name) const;
  void set(const std::string& name, Tensor t) { tensors_.emplace_back(name, std::move(t)); }

 private:
  std::vector<std::pair<std::string, Tensor>> tensors_;
};

template <class M>
struct TrainingSpec {
  const M& model;
  std::function<Tensor(const M&, const Inputs&)> loss{};
  InputDecls inputs{};
  OptimizerConfig optimizer{};
  std::optional<uint32_t> seed{};
};

template <class M>
struct ForwardSpec {
  const M& model;
  std::function<Tensor(const M&, const Inputs&)> forward{};
  InputDecls inputs{};  // compileForward: tg::null (-1) dims are parametric
  std::optional<uint32_t> seed{};
  Dtype output = Dtype::F32;   // I32 for forwards ending in argmax/argmin/categorical
  size_t maxCachedShapes = 8;  // compileForward: compiled shapes kept (least recently used out)
};

struct CompiledIR {
  Graph graph{};
  // The graph as traced, where the fast kernel set's graph passes rewrote `graph` (passes.h:
  // readReluGradsFromOutputs, readThroughCancellingPermutes, splitWeightGradients): what a
  // bundle holds, upstream's graph. Its tensor ids are `graph`'s (the passes add tensors after
  // them and renumber none). Empty under the upstream set, whose compile runs none.
  Graph traced{};
  ParamGrads paramGrads{};  // empty for forward graphs
  int output = -1;        // the loss (training) or the forward's result
  BufferPlan plan{};
  std::vector<KernelSpec> kernels{};  // one per op, as emitKernels gives them
  std::vector<std::shared_ptr<const ParamDecl>> params{};  // declaration (= init) order
  std::optional<OptimizerConfig> optimizerConfig{};
  OptimizerResult optimizer{};
  uint32_t seed = 0;
};

namespace detail {
using ErasedForward = std::function<Tensor(const Inputs&)>;
CompiledIR traceTraining(const Module& model, const ErasedForward& loss, const InputDecls& inputs,
                         const OptimizerConfig& optimizer, std::optional<uint32_t> seed,
                         const EmitOptions& emit = {}, bool poolBuffers = true);
CompiledIR traceForward(const Module& model, const ErasedForward& forward, const InputDecls& inputs,
                        std::optional<uint32_t> seed, const EmitOptions& emit = {},
                        bool poolBuffers = true);
// The last two passes, buffer planning and codegen, (re)run on a traced IR's graph: how a
// training or forward trace ends, and how the runtime switches an IR to another buffer plan.
void planAndEmit(CompiledIR& ir, bool poolBuffers, const EmitOptions& emit);
// The buffer plan alone, for a graph planAndEmit has already prepared (what another plan would
// take, before deciding to emit its kernels).
BufferPlan planFor(const CompiledIR& ir, bool poolBuffers, const EmitOptions& emit);
}  // namespace detail

template <class M>
CompiledIR trace(const TrainingSpec<M>& spec) {
  return detail::traceTraining(
      spec.model, [&](const Inputs& in) { return spec.loss(spec.model, in); }, spec.inputs,
      spec.optimizer, spec.seed);
}

template <class M>
CompiledIR traceForward(const ForwardSpec<M>& spec) {
  return detail::traceForward(
      spec.model, [&](const Inputs& in) { return spec.forward(spec.model, in); }, spec.inputs,
      spec.seed);
}

// The initial parameters for `seed`: one Mulberry32 stream drawn in parameter order.
std::vector<std::pair<std::string, std::vector<float>>> initialParams(const CompiledIR& ir,
                                                                      uint32_t seed);

// A fresh random 32-bit seed (used when a spec gives none; exposed as CompiledIR::seed).
uint32_t randomSeed();

}  // namespace tg
