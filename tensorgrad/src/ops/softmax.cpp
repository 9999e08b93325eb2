// Fused last-axis ML primitives: log-softmax, causal softmax, and the causal mask.
#include <cmath>
#include <limits>

#include "op_registry.h"
#include "reduce_fast.h"

namespace tg::detail {
namespace {

OutType inferCausal(const InferArgs& a) {
  const Shape& s = a.in[0]->shape;
  if (a.in[0]->dtype != Dtype::F32)
    a.fail(a.name() + ": requires f32, got " + std::string(dtypeName(a.in[0]->dtype)));
  if (s.size() < 2) a.fail(a.name() + ": requires rank >= 2, got " + showShape(s));
  if (s[s.size() - 2] != s.back())
    a.fail(a.name() + ": last two axes must be equal (square mask), got " + showShape(s));
  return {s, Dtype::F32};
}

// Runs f(row, rowIndexWithinSquare, width) over every last-axis row.
template <class F>
HostTensor perRow(const EvalArgs& e, F f) {
  HostTensor r = HostTensor::zeros(e.out.shape, Dtype::F32);
  const auto d = static_cast<size_t>(e.out.shape.back());
  for (size_t row = 0; row * d < r.f.size(); ++row)
    f(e.in[0]->f.data() + row * d, r.f.data() + row * d, row % d, d);
  return r;
}

}  // namespace

void registerSoftmaxOps(OpTable& t) {
  t.push_back(
      {.kind = OpKind::LogSoftmaxLast,
       .name = "log_softmax_last",
       .inputNames = {"a"},
       .infer =
           [](const InferArgs& a) {
             if (a.in[0]->dtype != Dtype::F32)
               a.fail(a.name() + ": requires f32, got " + std::string(dtypeName(a.in[0]->dtype)));
             if (a.in[0]->shape.empty()) a.fail(a.name() + ": cannot apply to 0-d tensor");
             return OutType{a.in[0]->shape, Dtype::F32};
           },
       .eval =
           [](const EvalArgs& e) {
             return perRow(e, [](const float* x, float* y, size_t, size_t d) {
               double m = -std::numeric_limits<double>::infinity(), s = 0;
               for (size_t j = 0; j < d; ++j) m = std::max(m, double{x[j]});
               for (size_t j = 0; j < d; ++j) s += std::exp(x[j] - m);
               const double logSum = std::log(s) + m;
               for (size_t j = 0; j < d; ++j) y[j] = static_cast<float>(x[j] - logSum);
             });
           },
       .differentiable = Differentiable::Yes,
       .grad =
           [](GradContext& c) {
             const Tensor y = c.out();
             const Tensor probs = exp(y, c.loc());
             const Tensor total = sum(c.dy(), -1, {.keepDims = true}, c.loc());
             const Tensor term = mul(probs, broadcastTo(total, y.shape(), c.loc()), c.loc());
             c.accumulate(0, sub(c.dy(), term, c.loc()));
           }});
  t.push_back({.kind = OpKind::SoftmaxCausalLast,
               .name = "softmax_causal_last",
               .inputNames = {"a"},
               .infer = inferCausal,
               .eval =
                   [](const EvalArgs& e) {
                     return perRow(e, [](const float* x, float* y, size_t i, size_t d) {
                       double m = -std::numeric_limits<double>::infinity(), s = 0;
                       for (size_t j = 0; j <= i; ++j) m = std::max(m, double{x[j]});
                       for (size_t j = 0; j <= i; ++j) s += std::exp(x[j] - m);
                       for (size_t j = 0; j < d; ++j)
                         y[j] = j <= i ? static_cast<float>(std::exp(x[j] - m) / s) : 0.0f;
                     });
                   },
               .differentiable = Differentiable::Yes,
               .grad =
                   [](GradContext& c) {
                     const Tensor y = c.out();
                     const Tensor s = sum(mul(c.dy(), y, c.loc()), -1, {.keepDims = true}, c.loc());
                     c.accumulate(0, mul(sub(c.dy(), broadcastTo(s, y.shape(), c.loc()), c.loc()),
                                         y, c.loc()));
                   }});
  t.push_back({.kind = OpKind::WhereCausal,
               .name = "where_causal",
               .inputNames = {"a"},
               .attrNames = {"fillValue"},
               .infer = inferCausal,
               .eval =
                   [](const EvalArgs& e) {
                     const auto fill = static_cast<float>(e.op.attrs.fillValue);
                     return perRow(e, [fill](const float* x, float* y, size_t i, size_t d) {
                       for (size_t j = 0; j < d; ++j) y[j] = j <= i ? x[j] : fill;
                     });
                   },
               .differentiable = Differentiable::Yes,
               .grad = [](GradContext& c) { c.accumulate(0, whereCausal(c.dy(), 0, c.loc())); }});

  // One thread per row, in upstream's order: the row max found from -1e30 by strict comparison, Σ exp(x − m), then
  // x − (m + log Σ).
  kernelOf(t, OpKind::LogSoftmaxLast) = [](const KernelArgs& a) {
    const std::string d = u(a.out().shape.back());
    return elementwise(a, shapeSize(a.out().shape) / a.out().shape.back(),
                       "  let base = i * " + d +
                           ";\n  var m = -1.0e30;\n"
                           "  for (var j = 0u; j < " + d +
                           "; j++) {\n    let v = a[base + j];\n    if (v > m) { m = v; }\n  }\n"
                           "  var s = 0.0;\n"
                           "  for (var j = 0u; j < " + d + "; j++) { s = s + exp(a[base + j] - m); }\n"
                           "  let logZ = m + log(s);\n"
                           "  for (var j = 0u; j < " + d + "; j++) { out[base + j] = a[base + j] - logZ; }\n");
  };
  // Row r of each square sees columns 0..r; the rest are 0. As upstream: exp(x − m) is stored,
  // summed, then each stored value divided by the sum.
  kernelOf(t, OpKind::SoftmaxCausalLast) = [](const KernelArgs& a) {
    const std::string d = u(a.out().shape.back());
    return elementwise(
        a, shapeSize(a.out().shape) / a.out().shape.back(),
        "  let base = i * " + d + ";\n  let r = i % " + d +
            ";\n  var m = -1.0e30;\n"
            "  for (var j = 0u; j <= r; j++) {\n    let v = a[base + j];\n    if (v > m) { m = v; }\n  }\n"
            "  var s = 0.0;\n"
            "  for (var j = 0u; j <= r; j++) {\n"
            "    let e = exp(a[base + j] - m);\n    out[base + j] = e;\n    s = s + e;\n  }\n"
            "  for (var j = 0u; j <= r; j++) { out[base + j] = out[base + j] / s; }\n"
            "  for (var j = r + 1u; j < " + d + "; j++) { out[base + j] = 0.0; }\n");
  };
  kernelOf(t, OpKind::WhereCausal) = [](const KernelArgs& a) {
    const std::string d = u(a.out().shape.back());
    return elementwise(a, shapeSize(a.out().shape),
                       "  let col = i % " + d + ";\n  let row = (i / " + d + ") % " + d +
                           ";\n"
                           "  out[i] = select(" +
                           literal(a.op.attrs.fillValue, Dtype::F32) + ", a[i], col <= row);\n");
  };
  fastKernelOf(t, OpKind::LogSoftmaxLast) = fastLogSoftmaxKernel;
  fastKernelOf(t, OpKind::SoftmaxCausalLast) = fastSoftmaxCausalKernel;
}

}  // namespace tg::detail
