// Element-wise f32 math. Each entry's CPU formula matches the kernel's (sigmoid through tanh, erf
// through Abramowitz & Stegun 7.1.26).
#include <cmath>
#include <numbers>

#include "op_registry.h"

namespace tg::detail {
namespace {

OutType inferUnaryF32(const InferArgs& a) {
  if (a.in[0]->dtype != Dtype::F32)
    a.fail(a.name() + ": requires f32, got " + std::string(dtypeName(a.in[0]->dtype)));
  return {a.in[0]->shape, Dtype::F32};
}

double erfApprox(double x) {
  const double s = x < 0 ? -1.0 : (x > 0 ? 1.0 : 0.0);
  const double ax = std::fabs(x);
  const double t = 1 / (1 + 0.3275911 * ax);
  const double p =
      t *
      (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  return s * (1 - p * std::exp(-ax * ax));
}

OpDef unary(OpKind kind, std::string_view name, double (*f)(double),
            std::function<void(GradContext&)> grad) {
  return {.kind = kind,
          .name = name,
          .inputNames = {"a"},
          .infer = inferUnaryF32,
          .eval =
              [f](const EvalArgs& e) {
                HostTensor r = HostTensor::zeros(e.out.shape, Dtype::F32);
                for (size_t k = 0; k < r.f.size(); ++k)
                  r.f[k] = static_cast<float>(f(e.in[0]->f[k]));
                return r;
              },
          .differentiable = Differentiable::Yes,
          .grad = std::move(grad)};
}

// WGSL has no erf: the same A&S 7.1.26 polynomial as the CPU evaluation.
const char* kErfFn =
    "fn erf_approx(x : f32) -> f32 {\n"
    "  let ax = abs(x);\n"
    "  let t = 1.0 / (1.0 + 0.3275911 * ax);\n"
    "  let p = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * "
    "1.061405429))));\n"
    "  return sign(x) * (1.0 - p * exp(-ax * ax));\n"
    "}\n";

// The kernel's expression with `$` for its input; fused, `$` becomes the input's value.
std::function<std::string(const Op&, const std::vector<std::string>&)> mapExpr(std::string expr) {
  return [expr](const Op&, const std::vector<std::string>& v) {
    std::string s;
    for (char ch : expr) s += ch == '$' ? v[0] : std::string(1, ch);
    return "(" + s + ")";
  };
}

std::function<KernelSource(const KernelArgs&)> mapKernel(std::string expr,
                                                         std::string preamble = "") {
  return [expr, preamble](const KernelArgs& a) {
    return elementwise(a, shapeSize(a.out().shape), "  let x = a[i];\n  out[i] = " + expr + ";\n",
                       preamble);
  };
}

}  // namespace

void registerUnaryOps(OpTable& t) {
  t.push_back(unary(
      OpKind::Sqrt, "sqrt", [](double x) { return std::sqrt(x); },
      [](GradContext& c) {
        c.accumulate(0, mulScalar(div(c.dy(), c.out(), c.loc()), 0.5, c.loc()));
      }));
  t.push_back(unary(
      OpKind::Rsqrt, "rsqrt", [](double x) { return 1 / std::sqrt(x); },
      [](GradContext& c) {
        const Tensor y = c.out();
        const Tensor y3 = mul(mul(y, y, c.loc()), y, c.loc());
        c.accumulate(0, mulScalar(mul(c.dy(), y3, c.loc()), -0.5, c.loc()));
      }));
  t.push_back(unary(
      OpKind::Log, "log", [](double x) { return std::log(x); },
      [](GradContext& c) { c.accumulate(0, div(c.dy(), c.in(0), c.loc())); }));
  t.push_back(unary(
      OpKind::Exp, "exp", [](double x) { return std::exp(x); },
      [](GradContext& c) { c.accumulate(0, mul(c.dy(), c.out(), c.loc())); }));
  t.push_back(unary(
      OpKind::Relu, "relu", [](double x) { return x > 0 ? x : 0.0; },
      [](GradContext& c) {
        c.accumulate(
            0, emit(OpKind::ReluGrad, {c.in(0), c.dy()}, {}, internalSite("reluGrad", c.loc())));
      }));
  t.push_back(unary(
      OpKind::Neg, "neg", [](double x) { return -x; },
      [](GradContext& c) { c.accumulate(0, mulScalar(c.dy(), -1, c.loc())); }));
  t.push_back(unary(
      OpKind::Abs, "abs", [](double x) { return std::fabs(x); },
      [](GradContext& c) {
        const Tensor negative = less(c.in(0), constScalar(0, Dtype::F32, c.loc()), c.loc());
        c.accumulate(0, where(negative, mulScalar(c.dy(), -1, c.loc()), c.dy(), c.loc()));
      }));
  t.push_back(unary(
      OpKind::Tanh, "tanh", [](double x) { return std::tanh(x); },
      [](GradContext& c) {
        const Tensor y = c.out();
        const Tensor one = constScalar(1, Dtype::F32, c.loc());
        c.accumulate(0, mul(c.dy(), sub(one, mul(y, y, c.loc()), c.loc()), c.loc()));
      }));
  t.push_back(unary(
      OpKind::Sigmoid, "sigmoid", [](double x) { return 0.5 + 0.5 * std::tanh(0.5 * x); },
      [](GradContext& c) {
        const Tensor y = c.out();
        c.accumulate(0, mul(c.dy(), sub(y, mul(y, y, c.loc()), c.loc()), c.loc()));
      }));
  t.push_back(unary(OpKind::Erf, "erf", erfApprox, [](GradContext& c) {
    const Tensor x = c.in(0);
    const Tensor d = mulScalar(exp(mulScalar(mul(x, x, c.loc()), -1, c.loc()), c.loc()),
                               2 / std::sqrt(std::numbers::pi), c.loc());
    c.accumulate(0, mul(c.dy(), d, c.loc()));
  }));
  t.push_back(unary(
      OpKind::Sin, "sin", [](double x) { return std::sin(x); },
      [](GradContext& c) { c.accumulate(0, mul(c.dy(), cos(c.in(0), c.loc()), c.loc())); }));
  t.push_back(unary(
      OpKind::Cos, "cos", [](double x) { return std::cos(x); },
      [](GradContext& c) {
        c.accumulate(0, mul(c.dy(), mulScalar(sin(c.in(0), c.loc()), -1, c.loc()), c.loc()));
      }));

  // Identity forward on any dtype; the gradient stops here.
  t.push_back({.kind = OpKind::StopGradient,
               .name = "stop_gradient",
               .inputNames = {"a"},
               .infer =
                   [](const InferArgs& a) {
                     return OutType{a.in[0]->shape, a.in[0]->dtype};
                   },
               .eval = [](const EvalArgs& e) { return *e.in[0]; }});

  // ReLU's backward, fused: dy where x > 0, else 0.
  t.push_back({.kind = OpKind::ReluGrad,
               .name = "relu_grad",
               .inputNames = {"x", "dy"},
               .infer =
                   [](const InferArgs& a) {
                     if (a.in[0]->dtype != Dtype::F32 || a.in[1]->dtype != Dtype::F32)
                       a.fail(a.name() + ": requires f32");
                     if (a.in[0]->shape != a.in[1]->shape) {
                       a.fail(a.name() + ": x and dy must have matching shapes, got " +
                              showShape(a.in[0]->shape) + " and " + showShape(a.in[1]->shape));
                     }
                     return OutType{a.in[0]->shape, Dtype::F32};
                   },
               .eval =
                   [](const EvalArgs& e) {
                     HostTensor r = HostTensor::zeros(e.out.shape, Dtype::F32);
                     for (size_t k = 0; k < r.f.size(); ++k)
                       r.f[k] = e.in[0]->f[k] > 0 ? e.in[1]->f[k] : 0.0f;
                     return r;
                   },
               .differentiable = Differentiable::Rejected});

  kernelOf(t, OpKind::Sqrt) = mapKernel("sqrt(x)");
  kernelOf(t, OpKind::Rsqrt) = mapKernel("1.0 / sqrt(x)");
  kernelOf(t, OpKind::Log) = mapKernel("log(x)");
  kernelOf(t, OpKind::Exp) = mapKernel("exp(x)");
  kernelOf(t, OpKind::Relu) = mapKernel("max(x, 0.0)");
  kernelOf(t, OpKind::Neg) = mapKernel("-x");
  kernelOf(t, OpKind::Abs) = mapKernel("abs(x)");
  kernelOf(t, OpKind::Tanh) = mapKernel("tanh(x)");
  kernelOf(t, OpKind::Sigmoid) = mapKernel("0.5 + 0.5 * tanh(0.5 * x)");  // stable for large |x|
  kernelOf(t, OpKind::Erf) = mapKernel("erf_approx(x)", kErfFn);
  kernelOf(t, OpKind::Sin) = mapKernel("sin(x)");
  kernelOf(t, OpKind::Cos) = mapKernel("cos(x)");
  kernelOf(t, OpKind::StopGradient) = mapKernel("x");
  const std::vector<std::pair<OpKind, const char*>> exprs = {
      {OpKind::Sqrt, "sqrt($)"},
      {OpKind::Rsqrt, "1.0 / sqrt($)"},
      {OpKind::Log, "log($)"},
      {OpKind::Exp, "exp($)"},
      {OpKind::Relu, "max($, 0.0)"},
      {OpKind::Neg, "-$"},
      {OpKind::Abs, "abs($)"},
      {OpKind::Tanh, "tanh($)"},
      {OpKind::Sigmoid, "0.5 + 0.5 * tanh(0.5 * $)"},
      {OpKind::Sin, "sin($)"},
      {OpKind::Cos, "cos($)"},
      {OpKind::StopGradient, "$"}};
  for (const auto& [kind, e] : exprs) setExpr(t, kind, mapExpr(e));
  setExpr(t, OpKind::Erf, mapExpr("erf_approx($)"), kErfFn);
  setExpr(t, OpKind::ReluGrad, [](const Op&, const std::vector<std::string>& v) {
    return "select(0.0, " + v[1] + ", " + v[0] + " > 0.0)";
  });
  kernelOf(t, OpKind::ReluGrad) = [](const KernelArgs& a) {
    return elementwise(a, shapeSize(a.out().shape), "  out[i] = select(0.0, dy[i], x[i] > 0.0);\n");
  };
}

}  // namespace tg::detail
