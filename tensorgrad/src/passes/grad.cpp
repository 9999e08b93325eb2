#include "tensorgrad/grad.h"

#include "../ops/op_registry.h"

namespace tg {

GradResult appendGrad(Graph& graph) {
  if (graph.outputs.size() != 1) {
    throw TraceError("autograd: expected a graph with exactly 1 output (the loss); got " +
                     std::to_string(graph.outputs.size()));
  }
  const int lossId = graph.outputs[0];
  const TensorInfo& loss = graph.tensor(lossId);
  if (!loss.shape.empty() || loss.dtype != Dtype::F32) {
    const CallSite* site = loss.site ? &*loss.site : nullptr;
    throw ShapeError("autograd: the loss must be a 0-d f32 scalar; got " +
                         std::string(dtypeName(loss.dtype)) + showShape(loss.shape) +
                         ". Reduce it with mean() or sum() first.",
                     site);
  }
  const size_t forwardOps = graph.ops.size();
  std::vector<std::optional<Tensor>> cotangents(graph.tensors.size());
  GradResult result{{}, lossId};
  traceInto(graph, [&] {
    const Loc lossLoc = loss.site ? loss.site->location : Loc::current();
    cotangents[static_cast<size_t>(lossId)] = constScalar(1.0, Dtype::F32, lossLoc);
    for (size_t i = forwardOps; i-- > 0;) {
      // Copy: appending backward ops may reallocate graph.ops.
      const Op op = graph.ops[i];
      const auto& dy = cotangents[static_cast<size_t>(op.out)];
      if (!dy) continue;
      const detail::OpDef& def = detail::opDef(op.kind);
      if (def.differentiable == detail::Differentiable::NoFlow) continue;
      if (def.differentiable == detail::Differentiable::Rejected) {
        const auto& site = graph.tensor(op.out).site;
        throw ShapeError("autograd: cannot differentiate through " + std::string(def.name) +
                             " (an optimizer update or backward-only op; higher-order gradients "
                             "are not supported)",
                         site ? &*site : nullptr);
      }
      detail::GradContext ctx(graph, op, *dy, cotangents);
      def.grad(ctx);
    }
    for (size_t i = 0; i < forwardOps; ++i) {
      const Op& op = graph.ops[i];
      if (op.kind != OpKind::ParamInput) continue;
      const auto& c = cotangents[static_cast<size_t>(op.out)];
      const TensorInfo& t = graph.tensor(op.out);
      const int id = c ? c->id() : broadcastTo(constScalar(0.0, t.dtype), t.shape).id();
      result.paramGrads.emplace_back(op.attrs.name, id);
    }
  });
  return result;
}

ParamGrads appendGradClip(Graph& graph, const ParamGrads& grads, double maxNorm) {
  if (grads.empty()) return grads;
  ParamGrads out;
  traceInto(graph, [&] {
    std::optional<Tensor> sumSq;
    for (const auto& [name, id] : grads) {
      const Tensor g(&graph, id);
      const Tensor s = sum(mul(g, g));
      sumSq = sumSq ? add(*sumSq, s) : s;
    }
    const Tensor limit = constScalar(maxNorm);
    const Tensor scale = min(div(limit, add(sqrt(*sumSq), 1e-6)), 1.0);
    for (const auto& [name, id] : grads) {
      const Tensor g(&graph, id);
      out.emplace_back(name, mul(g, broadcastTo(scale, g.shape())).id());
    }
  });
  return out;
}

ParamGrads appendGradNormalize(Graph& graph, const ParamGrads& grads,
                               const std::function<bool(const std::string&)>& filter) {
  ParamGrads out;
  size_t matched = 0;
  traceInto(graph, [&] {
    for (const auto& [name, id] : grads) {
      if (filter && !filter(name)) {
        out.emplace_back(name, id);
        continue;
      }
      ++matched;
      const Tensor g(&graph, id);
      const Tensor norm = add(sqrt(sum(mul(g, g))), 1e-8);
      out.emplace_back(name, div(g, broadcastTo(norm, g.shape())).id());
    }
  });
  if (filter && matched == 0 && !grads.empty()) {
    std::string names;
    for (const auto& [name, id] : grads) names += (names.empty() ? "" : ", ") + name;
    throw TraceError(
        "normalizeGrads: the filter matched no parameters. Param names are dotted paths like "
        "'l1.W' — available: " +
        names);
  }
  return out;
}

}  // namespace tg
