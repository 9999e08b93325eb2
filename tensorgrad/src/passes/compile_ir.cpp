#include <random>

#include "tensorgrad/compile.h"
#include "tensorgrad/errors.h"
#include "tensorgrad/trace.h"

namespace tg {

const Tensor& Inputs::operator[](const std::string& name) const {
  for (const auto& [n, t] : tensors_) {
    if (n == name) return t;
  }
  std::string known;
  for (const auto& [n, t] : tensors_) known += (known.empty() ? "" : ", ") + n;
  throw TraceError("inputs: no input named '" + name + "' (declared: " + known + ")");
}

uint32_t randomSeed() {
  return std::random_device{}();
}

namespace detail {
namespace {

struct Traced {
  Graph graph;
  std::vector<std::shared_ptr<const ParamDecl>> params;
  std::vector<ParamInfo> paramInfo;
};

Traced traceModule(const Module& model, const ErasedForward& fn, const InputDecls& decls) {
  Traced t;
  t.params = model.parameters();
  t.graph = traceFn([&] {
    for (const auto& p : t.params) {
      const Tensor leaf = paramInput(p->path, p->shape, p->dtype);
      bindParam(p.get(), leaf.id());
    }
    Inputs inputs;
    for (const auto& [name, decl] : decls) {
      // Checked here, naming the spec's input: the leaf below would name this file as its site.
      for (int64_t d : decl.shape) {
        if (d <= 0) {
          throw TraceError("input '" + name + "' has shape " + showShape(decl.shape) +
                           ": dims must be positive (parametric dims belong to forward specs "
                           "attached to a training run)");
        }
      }
      if (std::string e = checkTensorShape(decl.shape); !e.empty())
        throw ShapeError("tensorInput '" + name + "' (the spec's input): " + e, nullptr);
      inputs.set(name, tensorInput(name, decl.shape, decl.dtype));
    }
    return std::vector<Tensor>{fn(inputs)};
  });
  return t;
}

std::vector<ParamInfo> paramInfo(const Graph& g,
                                 const std::vector<std::shared_ptr<const ParamDecl>>& params) {
  std::vector<ParamInfo> out;
  for (const auto& p : params) {
    for (const Op& op : g.ops) {
      if (op.kind == OpKind::ParamInput && op.attrs.name == p->path)
        out.push_back({p->path, op.out, p->decay});
    }
  }
  return out;
}

}  // namespace

CompiledIR traceTraining(const Module& model, const ErasedForward& loss, const InputDecls& inputs,
                         const OptimizerConfig& optimizer, std::optional<uint32_t> seed,
                         const EmitOptions& emit, bool poolBuffers) {
  validateOptimizer(optimizer);
  Traced t = traceModule(model, loss, inputs);
  CompiledIR ir;
  ir.params = t.params;
  ir.seed = seed.value_or(randomSeed());
  GradResult grads = appendGrad(t.graph);
  // Prune adjoints nobody consumes before the optimizer adds its own ops.
  std::vector<int> roots;
  for (const auto& [name, id] : grads.paramGrads) roots.push_back(id);
  const auto remap = eliminateDeadCode(t.graph, roots);
  for (auto& [name, id] : grads.paramGrads) id = remap.at(id);
  ir.optimizer =
      appendOptimizer(t.graph, grads.paramGrads, paramInfo(t.graph, t.params), optimizer);
  ir.optimizerConfig = optimizer;
  ir.output = t.graph.outputs.at(0);
  ir.paramGrads = grads.paramGrads;
  ir.graph = std::move(t.graph);
  planAndEmit(ir, poolBuffers, emit);
  return ir;
}

CompiledIR traceForward(const Module& model, const ErasedForward& forward, const InputDecls& inputs,
                        std::optional<uint32_t> seed, const EmitOptions& emit, bool poolBuffers) {
  Traced t = traceModule(model, forward, inputs);
  eliminateDeadCode(t.graph);
  CompiledIR ir;
  ir.params = t.params;
  ir.seed = seed.value_or(randomSeed());
  ir.output = t.graph.outputs.at(0);
  ir.graph = std::move(t.graph);
  planAndEmit(ir, poolBuffers, emit);
  return ir;
}

void planAndEmit(CompiledIR& ir, bool poolBuffers, const EmitOptions& emit) {
  if (emit.kernels == KernelSet::Fast) {
    if (ir.traced.ops.empty()) ir.traced = ir.graph;  // a second plan keeps the first's
    readReluGradsFromOutputs(ir.graph);
    std::vector<int> keep;  // what the plan reads besides the ops
    for (const auto& [name, grad] : ir.paramGrads) keep.push_back(grad);
    for (const WritebackDecl& w : ir.optimizer.writebacks) keep.push_back(w.source);
    readThroughCancellingPermutes(ir.graph, keep);
    splitWeightGradients(ir.graph, emit.workgroupStorageBytes, emit.weightGradientSplits,
                         emit.cpuDevice);
  }
  ir.plan = planFor(ir, poolBuffers, emit);
  ir.kernels = emitKernels(ir.graph, ir.plan, emit);
}

BufferPlan planFor(const CompiledIR& ir, bool poolBuffers, const EmitOptions& emit) {
  std::vector<std::pair<std::string, int64_t>> order;  // the ParamStore's arena layout
  for (const auto& p : ir.params) order.emplace_back(p->path, shapeSize(p->shape));
  return planBuffers(ir.graph, ir.paramGrads, ir.optimizer.writebacks, poolBuffers,
                     emit.kernels == KernelSet::Fast, order);
}

}  // namespace detail

std::vector<std::pair<std::string, std::vector<float>>> initialParams(const CompiledIR& ir,
                                                                      uint32_t seed) {
  Mulberry32 rng(seed);
  std::vector<std::pair<std::string, std::vector<float>>> out;
  for (const auto& p : ir.params)
    out.emplace_back(p->path, initialize(p->init, p->shape, rng, p->path));
  return out;
}

}  // namespace tg
