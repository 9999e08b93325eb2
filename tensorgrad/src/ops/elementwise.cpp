// Binary element-wise arithmetic with trailing-suffix broadcasting, and the fused scalar forms.
#include <cmath>
#include <limits>

#include "op_registry.h"

namespace tg::detail {
namespace {

using F = double (*)(double, double);
using I = int32_t (*)(int32_t, int32_t);

OutType inferBinary(const InferArgs& a) {
  const TensorInfo& x = *a.in[0];
  const TensorInfo& y = *a.in[1];
  if (x.dtype != y.dtype) {
    a.fail(a.name() + ": dtype mismatch (" + std::string(dtypeName(x.dtype)) + " vs " +
           std::string(dtypeName(y.dtype)) + ")");
  }
  auto shape = broadcastTrailing(x.shape, y.shape);
  if (!shape) {
    a.fail(a.name() + ": incompatible shapes " + showShape(x.shape) + " and " + showShape(y.shape) +
           ". Trailing-suffix broadcasting only: the smaller shape must be a suffix of the larger, "
           "with size-1 "
           "axes broadcasting to any size.");
  }
  return {*shape, x.dtype};
}

// u32-style wrapping arithmetic, as WGSL's i32 does.
int32_t wrap(int64_t v) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
}

HostTensor evalBinary(const EvalArgs& e, F f, I i) {
  const HostTensor& x = *e.in[0];
  const HostTensor& y = *e.in[1];
  HostTensor r = HostTensor::zeros(e.out.shape, e.out.dtype);
  const int64_t n = r.size();
  for (int64_t k = 0; k < n; ++k) {
    const auto xk = static_cast<size_t>(broadcastIndex(k, e.out.shape, x.shape));
    const auto yk = static_cast<size_t>(broadcastIndex(k, e.out.shape, y.shape));
    if (x.dtype == Dtype::F32)
      r.f[static_cast<size_t>(k)] = static_cast<float>(f(x.f[xk], y.f[yk]));
    else
      r.i[static_cast<size_t>(k)] = i(x.i[xk], y.i[yk]);
  }
  return r;
}

OpDef binary(OpKind kind, std::string_view name, F f, I i, std::function<void(GradContext&)> grad) {
  return {.kind = kind,
          .name = name,
          .inputNames = {"a", "b"},
          .infer = inferBinary,
          .eval = [f, i](const EvalArgs& e) { return evalBinary(e, f, i); },
          .differentiable = Differentiable::Yes,
          .grad = std::move(grad)};
}

int32_t idiv(int32_t a, int32_t b) {
  if (b == 0) return a;  // WGSL: e1 / 0 is e1
  if (a == std::numeric_limits<int32_t>::min() && b == -1) return a;
  return a / b;
}

// Routes dy to whichever side won; ties go to b, as upstream (and in upstream's op order).
void minMaxGrad(GradContext& c, bool isMax) {
  const Tensor a = c.in(0), b = c.in(1);
  const Tensor zero = constScalar(0, Dtype::F32, c.loc());
  const Tensor aWins = isMax ? greater(a, b, c.loc()) : less(a, b, c.loc());
  const Tensor zeroA = broadcastTo(zero, c.dy().shape(), c.loc());
  c.accumulate(0, where(aWins, c.dy(), zeroA, c.loc()));
  const Tensor zeroB = broadcastTo(zero, c.dy().shape(), c.loc());
  c.accumulate(1, where(aWins, zeroB, c.dy(), c.loc()));
}

OutType sameAsInput(const InferArgs& a) {
  return {a.in[0]->shape, a.in[0]->dtype};
}

HostTensor evalScalar(const EvalArgs& e, bool isMul) {
  const HostTensor& x = *e.in[0];
  HostTensor r = HostTensor::zeros(x.shape, x.dtype);
  const double s = e.op.attrs.scalar;
  for (size_t k = 0; k < static_cast<size_t>(r.size()); ++k) {
    if (x.dtype == Dtype::F32) {
      // The kernel multiplies by an f32 literal, so round the scalar first.
      const double sf = static_cast<float>(s);
      r.f[k] = static_cast<float>(isMul ? x.f[k] * sf : x.f[k] + sf);
    } else {
      const auto si = static_cast<int64_t>(s);
      r.i[k] = wrap(isMul ? int64_t{x.i[k]} * si : int64_t{x.i[k]} + si);
    }
  }
  return r;
}

// out = f(a[broadcast], b[broadcast]); `infix` is an operator, else a builtin name.
KernelSource binaryKernel(const KernelArgs& a, const std::string& op, bool infix) {
  const Shape& out = a.out().shape;
  std::string body =
      broadcastIndex("ai", out, a.in(0).shape) + broadcastIndex("bi", out, a.in(1).shape);
  body += infix ? "  out[i] = a[ai] " + op + " b[bi];\n" : "  out[i] = " + op + "(a[ai], b[bi]);\n";
  return elementwise(a, shapeSize(out), body);
}

// i32 division as WGSL defines it is already total (x / 0 = x, INT_MIN / -1 = INT_MIN).
KernelSource scalarKernel(const KernelArgs& a, const char* op) {
  return elementwise(a, shapeSize(a.out().shape),
                     "  out[i] = a[i] " + std::string(op) + " " +
                         literal(a.op.attrs.scalar, a.out().dtype) + ";\n");
}

}  // namespace

void registerElementwiseOps(OpTable& t) {
  t.push_back(binary(
      OpKind::Add, "add", [](double x, double y) { return x + y; },
      [](int32_t x, int32_t y) { return wrap(int64_t{x} + y); },
      [](GradContext& c) {
        c.accumulate(0, c.dy());
        c.accumulate(1, c.dy());
      }));
  t.push_back(binary(
      OpKind::Sub, "sub", [](double x, double y) { return x - y; },
      [](int32_t x, int32_t y) { return wrap(int64_t{x} - y); },
      [](GradContext& c) {
        c.accumulate(0, c.dy());
        c.accumulate(1, mulScalar(c.dy(), -1, c.loc()));
      }));
  t.push_back(binary(
      OpKind::Mul, "mul", [](double x, double y) { return x * y; },
      [](int32_t x, int32_t y) { return wrap(int64_t{x} * y); },
      [](GradContext& c) {
        c.accumulate(0, mul(c.dy(), c.in(1), c.loc()));
        c.accumulate(1, mul(c.dy(), c.in(0), c.loc()));
      }));
  t.push_back(binary(
      OpKind::Div, "div", [](double x, double y) { return x / y; }, idiv,
      [](GradContext& c) {
        const Tensor a = c.in(0), b = c.in(1);
        c.accumulate(0, div(c.dy(), b, c.loc()));
        const Tensor numer = mul(c.dy(), a, c.loc());
        const Tensor bSq = mul(b, b, c.loc());
        c.accumulate(1, mulScalar(div(numer, bSq, c.loc()), -1, c.loc()));
      }));
  t.push_back(binary(
      OpKind::Min, "min", [](double x, double y) { return std::fmin(x, y); },
      [](int32_t x, int32_t y) { return std::min(x, y); },
      [](GradContext& c) { minMaxGrad(c, false); }));
  t.push_back(binary(
      OpKind::Max, "max", [](double x, double y) { return std::fmax(x, y); },
      [](int32_t x, int32_t y) { return std::max(x, y); },
      [](GradContext& c) { minMaxGrad(c, true); }));

  t.push_back(
      {.kind = OpKind::MulScalar,
       .name = "mul_scalar",
       .inputNames = {"a"},
       .attrNames = {"scalar"},
       .infer = sameAsInput,
       .eval = [](const EvalArgs& e) { return evalScalar(e, true); },
       .differentiable = Differentiable::Yes,
       .grad =
           [](GradContext& c) { c.accumulate(0, mulScalar(c.dy(), c.attrs().scalar, c.loc())); }});
  t.push_back({.kind = OpKind::AddScalar,
               .name = "add_scalar",
               .inputNames = {"a"},
               .attrNames = {"scalar"},
               .infer = sameAsInput,
               .eval = [](const EvalArgs& e) { return evalScalar(e, false); },
               .differentiable = Differentiable::Yes,
               .grad = [](GradContext& c) { c.accumulate(0, c.dy()); }});

  kernelOf(t, OpKind::Add) = [](const KernelArgs& a) { return binaryKernel(a, "+", true); };
  kernelOf(t, OpKind::Sub) = [](const KernelArgs& a) { return binaryKernel(a, "-", true); };
  kernelOf(t, OpKind::Mul) = [](const KernelArgs& a) { return binaryKernel(a, "*", true); };
  kernelOf(t, OpKind::Div) = [](const KernelArgs& a) { return binaryKernel(a, "/", true); };
  kernelOf(t, OpKind::Min) = [](const KernelArgs& a) { return binaryKernel(a, "min", false); };
  kernelOf(t, OpKind::Max) = [](const KernelArgs& a) { return binaryKernel(a, "max", false); };
  kernelOf(t, OpKind::MulScalar) = [](const KernelArgs& a) { return scalarKernel(a, "*"); };
  kernelOf(t, OpKind::AddScalar) = [](const KernelArgs& a) { return scalarKernel(a, "+"); };

  const auto infix = [](const char* op) {
    return [op](const Op&, const std::vector<std::string>& v) {
      return "(" + v[0] + " " + op + " " + v[1] + ")";
    };
  };
  const auto call = [](const char* fn) {
    return [fn](const Op&, const std::vector<std::string>& v) {
      return std::string(fn) + "(" + v[0] + ", " + v[1] + ")";
    };
  };
  setExpr(t, OpKind::Add, infix("+"));
  setExpr(t, OpKind::Sub, infix("-"));
  setExpr(t, OpKind::Mul, infix("*"));
  setExpr(t, OpKind::Div, infix("/"));
  setExpr(t, OpKind::Min, call("min"));
  setExpr(t, OpKind::Max, call("max"));
  // Scalar ops are f32 here: fusion only chains f32 values.
  setExpr(t, OpKind::MulScalar, [](const Op& op, const std::vector<std::string>& v) {
    return "(" + v[0] + " * " + literal(op.attrs.scalar, Dtype::F32) + ")";
  });
  setExpr(t, OpKind::AddScalar, [](const Op& op, const std::vector<std::string>& v) {
    return "(" + v[0] + " + " + literal(op.attrs.scalar, Dtype::F32) + ")";
  });
}

}  // namespace tg::detail
