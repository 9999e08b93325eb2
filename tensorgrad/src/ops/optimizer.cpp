// Fused per-element optimizer updates (one kernel per parameter each). Constants are f32
// literals in the kernel, so the CPU evaluation rounds them the same way.
#include <cmath>

#include "op_registry.h"

namespace tg::detail {
namespace {

void requireSameF32(const InferArgs& a, size_t i, size_t j) {
  if (a.in[i]->dtype != Dtype::F32 || a.in[j]->dtype != Dtype::F32)
    a.fail(a.name() + ": requires f32");
  if (a.in[i]->shape != a.in[j]->shape) {
    a.fail(a.name() + ": shape mismatch " + showShape(a.in[i]->shape) + " vs " +
           showShape(a.in[j]->shape));
  }
}

void requireScalarF32(const InferArgs& a, size_t i, const char* what) {
  if (a.in[i]->dtype != Dtype::F32 || !a.in[i]->shape.empty())
    a.fail(a.name() + ": " + what + " must be a 0-d f32 scalar");
}

HostTensor moment(const EvalArgs& e, bool squared) {
  HostTensor r = HostTensor::zeros(e.out.shape, Dtype::F32);
  const auto beta = static_cast<float>(e.op.attrs.beta);
  const auto rest = static_cast<float>(1 - e.op.attrs.beta);
  for (size_t k = 0; k < r.f.size(); ++k) {
    const float g = e.in[1]->f[k];
    r.f[k] = beta * e.in[0]->f[k] + (squared ? rest * g * g : rest * g);
  }
  return r;
}

}  // namespace

void registerOptimizerOps(OpTable& t) {
  const auto sameAsFirst = [](const InferArgs& a) {
    requireSameF32(a, 0, 1);
    return OutType{a.in[0]->shape, Dtype::F32};
  };
  t.push_back({.kind = OpKind::AdamUpdateM,
               .name = "adam_update_m",
               .inputNames = {"m", "g"},
               .attrNames = {"beta1"},
               .infer = sameAsFirst,
               .eval = [](const EvalArgs& e) { return moment(e, false); },
               .differentiable = Differentiable::Rejected});
  t.push_back({.kind = OpKind::AdamUpdateV,
               .name = "adam_update_v",
               .inputNames = {"v", "g"},
               .attrNames = {"beta2"},
               .infer = sameAsFirst,
               .eval = [](const EvalArgs& e) { return moment(e, true); },
               .differentiable = Differentiable::Rejected});
  // p ← decayShrink·p − lrt·m/(√v + eps); decayShrink is a literal or, under an LR schedule, a
  // per-step scalar input (the optional fifth input).
  t.push_back({.kind = OpKind::AdamUpdateP,
               .name = "adam_update_p",
               .inputNames = {"p", "mNew", "vNew", "lrt", "decayShrinkTensor"},
               .attrNames = {"eps", "decayShrink"},
               .infer =
                   [](const InferArgs& a) {
                     requireSameF32(a, 0, 1);
                     requireSameF32(a, 0, 2);
                     requireScalarF32(a, 3, "lrt");
                     if (a.in.size() == 5) requireScalarF32(a, 4, "decayShrink tensor");
                     return OutType{a.in[0]->shape, Dtype::F32};
                   },
               .eval =
                   [](const EvalArgs& e) {
                     HostTensor r = HostTensor::zeros(e.out.shape, Dtype::F32);
                     const float lrt = e.in[3]->f[0];
                     const float shrink = e.in.size() == 5
                                              ? e.in[4]->f[0]
                                              : static_cast<float>(e.op.attrs.decayShrink);
                     const auto eps = static_cast<float>(e.op.attrs.eps);
                     for (size_t k = 0; k < r.f.size(); ++k) {
                       r.f[k] = shrink * e.in[0]->f[k] -
                                lrt * e.in[1]->f[k] / (std::sqrt(e.in[2]->f[k]) + eps);
                     }
                     return r;
                   },
               .differentiable = Differentiable::Rejected});

  // The same arithmetic as expressions, for the fast set's fused optimizer (fold_optimizer.h).
  setExpr(t, OpKind::AdamUpdateM, [](const Op& op, const std::vector<std::string>& in) {
    return literal(op.attrs.beta, Dtype::F32) + " * " + in[0] + " + " +
           literal(1 - op.attrs.beta, Dtype::F32) + " * " + in[1];
  });
  setExpr(t, OpKind::AdamUpdateV, [](const Op& op, const std::vector<std::string>& in) {
    return literal(op.attrs.beta, Dtype::F32) + " * " + in[0] + " + " +
           literal(1 - op.attrs.beta, Dtype::F32) + " * " + in[1] + " * " + in[1];
  });
  setExpr(t, OpKind::AdamUpdateP, [](const Op& op, const std::vector<std::string>& in) {
    const std::string shrink = in.size() == 5 ? in[4] : literal(op.attrs.decayShrink, Dtype::F32);
    return shrink + " * " + in[0] + " - " + in[3] + " * " + in[1] + " / (sqrt(" + in[2] + ") + " +
           literal(op.attrs.eps, Dtype::F32) + ")";
  });

  kernelOf(t, OpKind::AdamUpdateM) = [](const KernelArgs& a) {
    const double b = a.op.attrs.beta;
    return elementwise(a, shapeSize(a.out().shape),
                       "  out[i] = " + literal(b, Dtype::F32) + " * m[i] + " +
                           literal(1 - b, Dtype::F32) + " * g[i];\n");
  };
  kernelOf(t, OpKind::AdamUpdateV) = [](const KernelArgs& a) {
    const double b = a.op.attrs.beta;
    return elementwise(a, shapeSize(a.out().shape),
                       "  let gv = g[i];\n  out[i] = " + literal(b, Dtype::F32) + " * v[i] + " +
                           literal(1 - b, Dtype::F32) + " * gv * gv;\n");
  };
  kernelOf(t, OpKind::AdamUpdateP) = [](const KernelArgs& a) {
    const std::string shrink =
        a.op.inputs.size() == 5 ? "decayShrink[0]" : literal(a.op.attrs.decayShrink, Dtype::F32);
    return elementwise(a, shapeSize(a.out().shape),
                       "  out[i] = " + shrink + " * p[i] - lrt[0] * mNew[i] / (sqrt(vNew[i]) + " +
                           literal(a.op.attrs.eps, Dtype::F32) + ");\n");
  };
}

}  // namespace tg::detail
