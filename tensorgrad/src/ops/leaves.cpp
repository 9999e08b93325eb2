// Graph sources: named inputs (params, tensor inputs, persistent state) and constants.
#include "op_registry.h"

namespace tg::detail {
namespace {

const HostTensor& lookup(const std::map<std::string, HostTensor>& m, const EvalArgs& a,
                         const char* what) {
  auto it = m.find(a.op.attrs.name);
  if (it == m.end())
    throw TraceError("evaluate: no value for " + std::string(what) + " '" + a.op.attrs.name + "'");
  if (it->second.shape != a.out.shape || it->second.dtype != a.out.dtype) {
    throw TraceError("evaluate: " + std::string(what) + " '" + a.op.attrs.name + "' expects " +
                     std::string(dtypeName(a.out.dtype)) + showShape(a.out.shape) + ", got " +
                     std::string(dtypeName(it->second.dtype)) + showShape(it->second.shape));
  }
  return it->second;
}

HostTensor filled(const TensorInfo& out, double value) {
  HostTensor t = HostTensor::zeros(out.shape, out.dtype);
  if (out.dtype == Dtype::F32)
    std::fill(t.f.begin(), t.f.end(), static_cast<float>(value));
  else
    std::fill(t.i.begin(), t.i.end(), static_cast<int32_t>(value));
  return t;
}

OutType fromAttrs(const InferArgs& a) {
  return {a.attrs.shape, a.attrs.dtype};
}

}  // namespace

void registerLeafOps(OpTable& t) {
  t.push_back({.kind = OpKind::ParamInput,
               .name = "param_input",
               .attrNames = {"name"},
               .infer = fromAttrs,
               .eval = [](const EvalArgs& a) { return lookup(a.env.params, a, "param"); }});
  t.push_back({.kind = OpKind::TensorInput,
               .name = "tensor_input",
               .attrNames = {"name"},
               .infer = fromAttrs,
               .eval = [](const EvalArgs& a) { return lookup(a.env.inputs, a, "input"); }});
  t.push_back({.kind = OpKind::StateInput,
               .name = "state_input",
               .attrNames = {"name", "initValue"},
               .infer = fromAttrs,
               .eval = [](const EvalArgs& a) {
                 if (!a.env.states.contains(a.op.attrs.name))
                   return filled(a.out, a.op.attrs.initValue);
                 return lookup(a.env.states, a, "state");
               }});
  t.push_back({.kind = OpKind::ConstScalar,
               .name = "const_scalar",
               .attrNames = {"value", "dtype"},
               .infer =
                   [](const InferArgs& a) {
                     return OutType{{}, a.attrs.dtype};
                   },
               .eval = [](const EvalArgs& a) { return filled(a.out, a.op.attrs.value); }});
  t.push_back({.kind = OpKind::ConstFill,
               .name = "const_fill",
               .attrNames = {"value", "dtype"},
               .infer =
                   [](const InferArgs& a) {
                     for (int64_t d : a.attrs.shape) {
                       if (d <= 0)
                         a.fail(a.name() + ": shape must be positive integers, got " +
                                showShape(a.attrs.shape));
                     }
                     return OutType{a.attrs.shape, a.attrs.dtype};
                   },
               .eval = [](const EvalArgs& a) { return filled(a.out, a.op.attrs.value); }});
  t.push_back({.kind = OpKind::Arange,
               .name = "arange",
               .attrNames = {"n", "dtype"},
               .infer =
                   [](const InferArgs& a) {
                     if (a.attrs.n <= 0)
                       a.fail(a.name() + ": n must be a positive integer, got " +
                              std::to_string(a.attrs.n));
                     if (a.attrs.dtype == Dtype::Bool)
                       a.fail(a.name() + ": dtype must be f32 or i32, got bool");
                     return OutType{{a.attrs.n}, a.attrs.dtype};
                   },
               .eval =
                   [](const EvalArgs& a) {
                     HostTensor r = HostTensor::zeros(a.out.shape, a.out.dtype);
                     for (int64_t k = 0; k < a.op.attrs.n; ++k) {
                       if (a.out.dtype == Dtype::F32)
                         r.f[static_cast<size_t>(k)] = static_cast<float>(k);
                       else
                         r.i[static_cast<size_t>(k)] = static_cast<int32_t>(k);
                     }
                     return r;
                   }});

  // One invocation in a workgroup of one, as upstream dispatches it.
  kernelOf(t, OpKind::ConstScalar) = [](const KernelArgs& a) {
    return KernelSource{a.bindings() + "@compute @workgroup_size(1)\nfn main() {\n  out[0] = " +
                            literal(a.op.attrs.value, a.op.attrs.dtype) + ";\n}\n",
                        1, 1};
  };
  // In a fused kernel a constant is a literal: a loss's seed gradient and the scalars built on it
  // cost no kernel of their own.
  for (OpKind kind : {OpKind::ConstScalar, OpKind::ConstFill})
    setExpr(t, kind, [](const Op& op, const std::vector<std::string>&) {
      return literal(op.attrs.value, op.attrs.dtype);
    });
  kernelOf(t, OpKind::ConstFill) = [](const KernelArgs& a) {
    return elementwise(a, shapeSize(a.out().shape),
                       "  out[i] = " + literal(a.op.attrs.value, a.op.attrs.dtype) + ";\n");
  };
  kernelOf(t, OpKind::Arange) = [](const KernelArgs& a) {
    return elementwise(a, a.op.attrs.n, "  out[i] = " + wgslType(a.out().dtype) + "(i);\n");
  };
}

}  // namespace tg::detail
