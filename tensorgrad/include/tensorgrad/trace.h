// The trace context: while a forward function runs, every op appends a node to the current
// graph. One trace at a time per thread; the graph is plain data afterwards.
#pragma once

#include <functional>
#include <map>

#include "tensorgrad/tensor.h"

namespace tg {

using Loc = std::source_location;

// Runs `fn` with a fresh graph as the current trace; its result tensors become the outputs.
Graph traceFn(const std::function<std::vector<Tensor>()>& fn);
// Re-enters an existing graph (autograd and optimizers append to it this way).
void traceInto(Graph& graph, const std::function<void()>& fn);
bool isTracing();
// The graph being traced (throws TraceError outside a trace).
Graph& currentGraph();

// Named leaves. Names must be unique per trace among params and tensor inputs (and among states).
Tensor paramInput(const std::string& name, const Shape& shape, Dtype dtype = Dtype::F32,
                  Loc loc = Loc::current());
Tensor tensorInput(const std::string& name, const Shape& shape, Dtype dtype = Dtype::F32,
                   Loc loc = Loc::current());
Tensor stateInput(const std::string& name, const Shape& shape, Dtype dtype = Dtype::F32,
                  double initValue = 0, Loc loc = Loc::current());

// Binds a module parameter's declaration to its param_input in the current trace.
void bindParam(const ParamDecl* decl, int tensorId);

// Registers `t` for readback under `name` (no-op outside a capturing trace). Returns `t`.
Tensor capture(const std::string& name, const Tensor& t, Loc loc = Loc::current());

// Appends one op after checking it against its registry shape rule; the low-level builder the
// public ops and the passes share.
Tensor emit(OpKind kind, const std::vector<Tensor>& inputs, OpAttrs attrs, const CallSite& site);

}  // namespace tg
