// Comparisons (bool results) and three-way selection.
#include "op_registry.h"

namespace tg::detail {
namespace {

OutType inferCompare(const InferArgs& a) {
  if (a.in[0]->dtype != a.in[1]->dtype) {
    a.fail(a.name() + ": dtype mismatch (" + std::string(dtypeName(a.in[0]->dtype)) + " vs " +
           std::string(dtypeName(a.in[1]->dtype)) + ")");
  }
  auto s = broadcastTrailing(a.in[0]->shape, a.in[1]->shape);
  if (!s) {
    a.fail(a.name() + ": incompatible shapes " + showShape(a.in[0]->shape) + " and " +
           showShape(a.in[1]->shape) + ". Trailing-suffix broadcasting only.");
  }
  return {*s, Dtype::Bool};
}

HostTensor evalCompare(const EvalArgs& e, bool isLess) {
  HostTensor r = HostTensor::zeros(e.out.shape, Dtype::Bool);
  for (int64_t k = 0; k < r.size(); ++k) {
    const double x = e.in[0]->at(broadcastIndex(k, e.out.shape, e.in[0]->shape));
    const double y = e.in[1]->at(broadcastIndex(k, e.out.shape, e.in[1]->shape));
    r.i[static_cast<size_t>(k)] = isLess ? x < y : x > y;
  }
  return r;
}

KernelSource compareKernel(const KernelArgs& a, const char* op) {
  const Shape& out = a.out().shape;
  return elementwise(a, shapeSize(out),
                     broadcastIndex("ai", out, a.in(0).shape) +
                         broadcastIndex("bi", out, a.in(1).shape) +
                         "  out[i] = select(0u, 1u, a[ai] " + op + " b[bi]);\n");
}

}  // namespace

void registerSelectOps(OpTable& t) {
  t.push_back({.kind = OpKind::Less,
               .name = "less",
               .inputNames = {"a", "b"},
               .infer = inferCompare,
               .eval = [](const EvalArgs& e) { return evalCompare(e, true); }});
  t.push_back({.kind = OpKind::Greater,
               .name = "greater",
               .inputNames = {"a", "b"},
               .infer = inferCompare,
               .eval = [](const EvalArgs& e) { return evalCompare(e, false); }});
  t.push_back(
      {.kind = OpKind::Where,
       .name = "where",
       .inputNames = {"cond", "a", "b"},
       .infer =
           [](const InferArgs& a) {
             const TensorInfo &cond = *a.in[0], &x = *a.in[1], &y = *a.in[2];
             if (cond.dtype != Dtype::Bool)
               a.fail(a.name() + ": cond must be bool, got " + std::string(dtypeName(cond.dtype)));
             if (x.dtype != y.dtype) {
               a.fail(a.name() + ": a/b dtype mismatch (" + std::string(dtypeName(x.dtype)) +
                      " vs " + std::string(dtypeName(y.dtype)) + ")");
             }
             auto ab = broadcastTrailing(x.shape, y.shape);
             if (!ab)
               a.fail(a.name() + ": a/b incompatible: " + showShape(x.shape) + " vs " +
                      showShape(y.shape));
             auto out = broadcastTrailing(cond.shape, *ab);
             if (!out) {
               a.fail(a.name() + ": cond " + showShape(cond.shape) +
                      " incompatible with broadcast(a, b) " + showShape(*ab));
             }
             return OutType{*out, x.dtype};
           },
       .eval =
           [](const EvalArgs& e) {
             HostTensor r = HostTensor::zeros(e.out.shape, e.out.dtype);
             const HostTensor &cond = *e.in[0], &x = *e.in[1], &y = *e.in[2];
             for (int64_t k = 0; k < r.size(); ++k) {
               const bool c =
                   cond.i[static_cast<size_t>(broadcastIndex(k, r.shape, cond.shape))] != 0;
               const HostTensor& src = c ? x : y;
               const auto sk = static_cast<size_t>(broadcastIndex(k, r.shape, src.shape));
               if (r.dtype == Dtype::F32)
                 r.f[static_cast<size_t>(k)] = src.f[sk];
               else
                 r.i[static_cast<size_t>(k)] = src.i[sk];
             }
             return r;
           },
       .differentiable = Differentiable::Yes,
       .grad =
           [](GradContext& c) {
             const Tensor zeroA =
                 broadcastTo(constScalar(0, c.in(1).dtype(), c.loc()), c.dy().shape(), c.loc());
             const Tensor zeroB =
                 broadcastTo(constScalar(0, c.in(2).dtype(), c.loc()), c.dy().shape(), c.loc());
             c.accumulate(1, where(c.in(0), c.dy(), zeroA, c.loc()));
             c.accumulate(2, where(c.in(0), zeroB, c.dy(), c.loc()));
           }});

  setExpr(t, OpKind::Where, [](const Op&, const std::vector<std::string>& v) {
    return "select(" + v[2] + ", " + v[1] + ", " + v[0] + " != 0u)";
  });
  setExpr(t, OpKind::Less, [](const Op&, const std::vector<std::string>& v) {
    return "select(0u, 1u, " + v[0] + " < " + v[1] + ")";
  });
  setExpr(t, OpKind::Greater, [](const Op&, const std::vector<std::string>& v) {
    return "select(0u, 1u, " + v[0] + " > " + v[1] + ")";
  });
  kernelOf(t, OpKind::Less) = [](const KernelArgs& a) { return compareKernel(a, "<"); };
  kernelOf(t, OpKind::Greater) = [](const KernelArgs& a) { return compareKernel(a, ">"); };
  kernelOf(t, OpKind::Where) = [](const KernelArgs& a) {
    const Shape& out = a.out().shape;
    return elementwise(a, shapeSize(out),
                       broadcastIndex("ci", out, a.in(0).shape) +
                           broadcastIndex("ai", out, a.in(1).shape) +
                           broadcastIndex("bi", out, a.in(2).shape) +
                           "  out[i] = select(b[bi], a[ai], cond[ci] != 0u);\n");
  };
}

}  // namespace tg::detail
