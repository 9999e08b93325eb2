// Last-axis reductions. Other axes are reached by permuting first (ops.cpp does that).
#include "op_registry.h"
#include "reduce_fast.h"

namespace tg::detail {
namespace {

void requireReducible(const InferArgs& a) {
  if (a.in[0]->dtype != Dtype::F32)
    a.fail(a.name() + ": requires f32, got " + std::string(dtypeName(a.in[0]->dtype)));
  if (a.in[0]->shape.empty()) a.fail(a.name() + ": cannot reduce a 0-d tensor");
}

Shape dropLast(const Shape& s) {
  return Shape(s.begin(), s.end() - 1);
}

HostTensor reduceLast(const EvalArgs& e, bool mean) {
  const HostTensor& x = *e.in[0];
  const int64_t d = x.shape.back();
  HostTensor r = HostTensor::zeros(e.out.shape, Dtype::F32);
  for (size_t row = 0; row < r.f.size(); ++row) {
    double s = 0;
    for (int64_t j = 0; j < d; ++j) s += x.f[row * static_cast<size_t>(d) + static_cast<size_t>(j)];
    r.f[row] = static_cast<float>(mean ? s / static_cast<double>(d) : s);
  }
  return r;
}

// Few long rows starve a thread-per-row kernel (the loss's full mean is one thread summing
// everything), so those get a workgroup per row with a shared-memory tree reduction.
KernelSource reduceKernel(const KernelArgs& a, bool mean) {
  const int64_t d = a.in(0).shape.back();
  const int64_t rows = shapeSize(a.in(0).shape) / d;
  const std::string finish = mean ? " / " + literal(static_cast<double>(d), Dtype::F32) : "";
  if (treeReduces(rows, d)) {
    return perWorkgroup(a, rows,
                        "  var s = 0.0;\n  for (var j = lid; j < " + u(d) +
                            "; j += " + u(kWorkgroupSize) +
                            ") {\n"
                            "    s += a[i * " +
                            u(d) + " + j];\n  }\n" + workgroupReduce("partial", "s") +
                            "  if (lid == 0u) { out[i] = partial[0]" + finish + "; }\n");
  }
  return elementwise(a, rows,
                     "  var s = 0.0;\n  for (var j = 0u; j < " + u(d) +
                         "; j++) {\n    s += a[i * " + u(d) +
                         " + j];\n  }\n"
                         "  out[i] = s" +
                         finish + ";\n");
}

}  // namespace

void registerReduceOps(OpTable& t) {
  t.push_back({.kind = OpKind::MeanLast,
               .name = "mean_last",
               .inputNames = {"a"},
               .infer =
                   [](const InferArgs& a) {
                     requireReducible(a);
                     Shape s = a.in[0]->shape;
                     s.back() = 1;
                     return OutType{s, Dtype::F32};
                   },
               .eval = [](const EvalArgs& e) { return reduceLast(e, true); },
               .differentiable = Differentiable::Yes,
               .grad =
                   [](GradContext& c) {
                     const Shape& in = c.in(0).shape();
                     c.accumulate(0, mulScalar(broadcastTo(c.dy(), in, c.loc()),
                                               1.0 / static_cast<double>(in.back()), c.loc()));
                   }});
  t.push_back({.kind = OpKind::SumLast,
               .name = "sum_last",
               .inputNames = {"a"},
               .infer =
                   [](const InferArgs& a) {
                     requireReducible(a);
                     return OutType{dropLast(a.in[0]->shape), Dtype::F32};
                   },
               .eval = [](const EvalArgs& e) { return reduceLast(e, false); },
               .differentiable = Differentiable::Yes,
               .grad =
                   [](GradContext& c) {
                     Shape keep = c.dy().shape();
                     keep.push_back(1);
                     c.accumulate(
                         0, broadcastTo(reshape(c.dy(), keep, c.loc()), c.in(0).shape(), c.loc()));
                   }});
  t.push_back({.kind = OpKind::ArgmaxLast,
               .name = "argmax_last",
               .inputNames = {"a"},
               .infer =
                   [](const InferArgs& a) {
                     requireReducible(a);
                     return OutType{dropLast(a.in[0]->shape), Dtype::I32};
                   },
               .eval =
                   [](const EvalArgs& e) {
                     const HostTensor& x = *e.in[0];
                     const auto d = static_cast<size_t>(x.shape.back());
                     HostTensor r = HostTensor::zeros(e.out.shape, Dtype::I32);
                     for (size_t row = 0; row < r.i.size(); ++row) {
                       size_t best = 0;  // first maximum wins
                       for (size_t j = 1; j < d; ++j) {
                         if (x.f[row * d + j] > x.f[row * d + best]) best = j;
                       }
                       r.i[row] = static_cast<int32_t>(best);
                     }
                     return r;
                   }});

  kernelOf(t, OpKind::MeanLast) = [](const KernelArgs& a) { return reduceKernel(a, true); };
  kernelOf(t, OpKind::SumLast) = [](const KernelArgs& a) { return reduceKernel(a, false); };
  fastKernelOf(t, OpKind::MeanLast) = fastMeanLastKernel;
  fastKernelOf(t, OpKind::SumLast) = fastSumLastKernel;
  kernelOf(t, OpKind::ArgmaxLast) = [](const KernelArgs& a) {
    const int64_t d = a.in(0).shape.back();
    return elementwise(a, shapeSize(a.out().shape),
                       "  var best = a[i * " + u(d) +
                           "];\n  var bestIdx = 0i;\n"
                           "  for (var j = 1u; j < " +
                           u(d) +
                           "; j++) {\n"
                           "    let v = a[i * " +
                           u(d) +
                           " + j];\n    if (v > best) { best = v; bestIdx = i32(j); }\n  }\n"
                           "  out[i] = bestIdx;\n");
  };
}

}  // namespace tg::detail
