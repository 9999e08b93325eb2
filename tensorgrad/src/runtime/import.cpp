// importGraph / compileImported: a bundle's graphs become compiled IR and a runnable training,
// through the same planning, codegen and runtime as a traced model.
#include "session.h"
#include "tensorgrad/bundle.h"

namespace tg {

namespace {

// Parameter declarations for `names` (order kept) whose init is the bundle's values, so reset()
// restores them and no random draw is made.
std::vector<std::shared_ptr<const ParamDecl>> paramDecls(const Bundle& b, const Graph& g,
                                                         const std::vector<std::string>& names) {
  std::map<std::string, Shape> shapes;
  for (const Op& op : g.ops) {
    if (op.kind == OpKind::ParamInput) shapes[op.attrs.name] = g.tensor(op.out).shape;
  }
  std::vector<std::shared_ptr<const ParamDecl>> out;
  for (const std::string& name : names) {
    auto shape = shapes.find(name);
    if (shape == shapes.end()) continue;  // a forward reads a subset of the params
    out.push_back(std::make_shared<const ParamDecl>(
        ParamDecl{name, shape->second, Dtype::F32, init::literal(b.params.at(name)), true}));
  }
  return out;
}

std::vector<std::string> forwardParamNames(const Bundle& b, const Graph& g) {
  std::vector<std::string> names;
  for (const std::string& name : b.paramNames) {
    for (const Op& op : g.ops) {
      if (op.kind == OpKind::ParamInput && op.attrs.name == name) names.push_back(name);
    }
  }
  return names;
}

}  // namespace

CompiledIR importGraph(const Bundle& b, bool poolBuffers, const EmitOptions& emit) {
  CompiledIR ir;
  ir.graph = b.graph;
  ir.paramGrads = b.paramGrads;
  ir.output = b.graph.outputs.at(0);
  ir.params = paramDecls(b, b.graph, b.paramNames);
  ir.optimizerConfig = b.optimizer;
  ir.optimizer.writebacks = b.writebacks;
  const bool sgd = std::holds_alternative<SGD>(b.optimizer);
  ir.optimizer.lrInputName = sgd ? kSgdLrInput : kAdamLrInput;
  for (const Op& op : b.graph.ops) {
    if (op.kind == OpKind::TensorInput && op.attrs.name == kAdamDecayShrinkInput)
      ir.optimizer.decayShrinkInputName = op.attrs.name;
  }
  ir.seed = b.seed;
  detail::planAndEmit(ir, poolBuffers, emit);
  return ir;
}

CompiledIR importForward(const Bundle& b, const BundleForward& f, bool poolBuffers,
                         const EmitOptions& emit) {
  CompiledIR ir;
  ir.graph = f.graph;
  ir.output = f.graph.outputs.at(0);
  ir.params = paramDecls(b, f.graph, forwardParamNames(b, f.graph));
  ir.seed = b.seed;
  detail::planAndEmit(ir, poolBuffers, emit);
  return ir;
}

const CompiledForward<Module>& Imported::forward(const std::string& name) const {
  std::string known;
  for (const auto& [n, f] : forwards) {
    if (n == name) return f;
    known += (known.empty() ? "" : ", ") + n;
  }
  throw std::invalid_argument("no imported forward named '" + name + "' (have: " +
                              (known.empty() ? "none" : known) + ")");
}

Imported compileImported(const Bundle& b, const RuntimeOptions& options) {
  auto t = detail::compileTrainingIR(
      [&](bool pool, const EmitOptions& emit) { return importGraph(b, pool, emit); }, b.inputs, b.optimizer, options);
  Imported out{CompiledTraining<Module>(t), {}};
  for (const BundleForward& f : b.forwards) {
    out.forwards.emplace_back(
        f.name, CompiledForward<Module>(detail::attachIR(
                    t, [&](bool pool, const EmitOptions& emit) { return importForward(b, f, pool, emit); },
                    f.inputs, f.output)));
  }
  return out;
}

}  // namespace tg
