// The public op surface: argument normalisation (scalars, negative axes, -1 in reshape) and
// composites; every primitive goes through emit(), whose registry entry checks the shapes.
#include "tensorgrad/ops.h"

#include <cmath>
#include <numbers>

#include "../ops/op_registry.h"

namespace tg {
namespace {

using detail::internalSite;

Tensor emitAt(OpKind kind, const char* name, Loc loc, const std::vector<Tensor>& in,
              OpAttrs attrs = {}) {
  return emit(kind, in, std::move(attrs), internalSite(name, loc));
}

[[noreturn]] void fail(const char* name, Loc loc, const std::string& message) {
  const CallSite site = internalSite(name, loc);
  throw ShapeError(std::string(name) + ": " + message, &site);
}

int64_t normalizeAxis(const char* name, Loc loc, int64_t axis, const Shape& shape) {
  const auto rank = static_cast<int64_t>(shape.size());
  const int64_t k = axis < 0 ? rank + axis : axis;
  if (k < 0 || k >= rank)
    fail(name, loc, "axis " + std::to_string(axis) + " out of range for shape " + showShape(shape));
  return k;
}

std::vector<int64_t> axisToEnd(int64_t k, int64_t rank) {
  std::vector<int64_t> p;
  for (int64_t i = 0; i < rank; ++i) {
    if (i != k) p.push_back(i);
  }
  p.push_back(k);
  return p;
}

std::vector<int64_t> endToAxis(int64_t k, int64_t rank) {
  std::vector<int64_t> p;
  for (int64_t i = 0; i < k; ++i) p.push_back(i);
  p.push_back(rank - 1);
  for (int64_t i = k; i < rank - 1; ++i) p.push_back(i);
  return p;
}

// The shared per-step seed input, created on first use.
Tensor prngSeed(Loc loc) {
  Graph& g = currentGraph();
  for (const Op& op : g.ops) {
    if (op.kind == OpKind::TensorInput && op.attrs.name == kPrngSeedInput)
      return Tensor(&g, op.out);
  }
  return tensorInput(kPrngSeedInput, {}, Dtype::I32, loc);
}

// Salts number the stochastic ops in construction order, so each call site gets its own stream.
int64_t nextSalt() {
  int64_t n = 0;
  for (const Op& op : currentGraph().ops) n += detail::opDef(op.kind).stochastic ? 1 : 0;
  return n;
}

Tensor binary(OpKind kind, const char* name, const Tensor& a, const Tensor& b, Loc loc) {
  return emitAt(kind, name, loc, {a, b});
}

Tensor unary(OpKind kind, const char* name, const Tensor& a, Loc loc) {
  return emitAt(kind, name, loc, {a});
}

// Applies a last-axis op along any axis by permuting in and back out.
template <class F>
Tensor alongAxis(const Tensor& a, int64_t axis, const char* name, Loc loc, F applyLast) {
  if (a.rank() == 0) fail(name, loc, "cannot apply to 0-d tensor");
  const int64_t k = normalizeAxis(name, loc, axis, a.shape());
  if (k == a.rank() - 1) return applyLast(a);
  return permute(applyLast(permute(a, axisToEnd(k, a.rank()), loc)), endToAxis(k, a.rank()), loc);
}

// Applies a last-axis reducing op (drops the axis) along any axis.
template <class F>
Tensor reducingAxis(const Tensor& a, int64_t axis, const char* name, Loc loc, F applyLast) {
  if (a.rank() == 0) fail(name, loc, "cannot reduce a 0-d tensor");
  const int64_t k = normalizeAxis(name, loc, axis, a.shape());
  if (k == a.rank() - 1) return applyLast(a);
  return applyLast(permute(a, axisToEnd(k, a.rank()), loc));
}

Tensor reduceAxis(const Tensor& a, int64_t axis, bool keepDims, bool isMean, Loc loc) {
  const char* name = isMean ? "mean" : "sum";
  if (a.rank() == 0) fail(name, loc, "cannot reduce a 0-d tensor");
  const int64_t r = a.rank();
  const int64_t k = normalizeAxis(name, loc, axis, a.shape());
  const bool isLast = k == r - 1;
  const Tensor input = isLast ? a : permute(a, axisToEnd(k, r), loc);
  if (isMean) {
    const Tensor reduced = emitAt(OpKind::MeanLast, name, loc, {input});  // [..., 1]
    Shape dropped = reduced.shape();
    dropped.pop_back();
    if (!keepDims) return reshape(reduced, dropped, loc);
    return isLast ? reduced : permute(reduced, endToAxis(k, r), loc);
  }
  const Tensor dropped = emitAt(OpKind::SumLast, name, loc, {input});
  if (!keepDims) return dropped;
  Shape kept = dropped.shape();
  kept.push_back(1);
  const Tensor withAxis = reshape(dropped, kept, loc);
  return isLast ? withAxis : permute(withAxis, endToAxis(k, r), loc);
}

}  // namespace

// ---- Element-wise ----
Tensor add(const Tensor& a, const Tensor& b, Loc loc) {
  return binary(OpKind::Add, "add", a, b, loc);
}
Tensor add(const Tensor& a, double b, Loc loc) {
  return addScalar(a, b, loc);
}
Tensor add(double a, const Tensor& b, Loc loc) {
  return addScalar(b, a, loc);
}
Tensor sub(const Tensor& a, const Tensor& b, Loc loc) {
  return binary(OpKind::Sub, "sub", a, b, loc);
}
Tensor sub(const Tensor& a, double b, Loc loc) {
  return addScalar(a, -b, loc);
}
Tensor sub(double a, const Tensor& b, Loc loc) {
  return binary(OpKind::Sub, "sub", constScalar(a, b.dtype(), loc), b, loc);
}
Tensor mul(const Tensor& a, const Tensor& b, Loc loc) {
  return binary(OpKind::Mul, "mul", a, b, loc);
}
Tensor mul(const Tensor& a, double b, Loc loc) {
  return mulScalar(a, b, loc);
}
Tensor mul(double a, const Tensor& b, Loc loc) {
  return mulScalar(b, a, loc);
}
Tensor div(const Tensor& a, const Tensor& b, Loc loc) {
  return binary(OpKind::Div, "div", a, b, loc);
}
Tensor div(const Tensor& a, double b, Loc loc) {
  if (b == 0) fail("div", loc, "scalar divisor cannot be zero");
  return mulScalar(a, 1 / b, loc);
}
Tensor div(double a, const Tensor& b, Loc loc) {
  return binary(OpKind::Div, "div", constScalar(a, b.dtype(), loc), b, loc);
}
Tensor min(const Tensor& a, const Tensor& b, Loc loc) {
  return binary(OpKind::Min, "min", a, b, loc);
}
Tensor min(const Tensor& a, double b, Loc loc) {
  return min(a, constScalar(b, a.dtype(), loc), loc);
}
Tensor min(double a, const Tensor& b, Loc loc) {
  return min(b, a, loc);
}
Tensor max(const Tensor& a, const Tensor& b, Loc loc) {
  return binary(OpKind::Max, "max", a, b, loc);
}
Tensor max(const Tensor& a, double b, Loc loc) {
  return max(a, constScalar(b, a.dtype(), loc), loc);
}
Tensor max(double a, const Tensor& b, Loc loc) {
  return max(b, a, loc);
}
Tensor clamp(const Tensor& a, double lo, double hi, Loc loc) {
  return min(max(a, lo, loc), hi, loc);
}

Tensor mulScalar(const Tensor& a, double scalar, Loc loc) {
  OpAttrs at;
  at.scalar = scalar;
  return emitAt(OpKind::MulScalar, "mulScalar", loc, {a}, at);
}
Tensor addScalar(const Tensor& a, double scalar, Loc loc) {
  OpAttrs at;
  at.scalar = scalar;
  return emitAt(OpKind::AddScalar, "addScalar", loc, {a}, at);
}

// ---- Unary ----
Tensor sqrt(const Tensor& a, Loc loc) {
  return unary(OpKind::Sqrt, "sqrt", a, loc);
}
Tensor rsqrt(const Tensor& a, Loc loc) {
  return unary(OpKind::Rsqrt, "rsqrt", a, loc);
}
Tensor log(const Tensor& a, Loc loc) {
  return unary(OpKind::Log, "log", a, loc);
}
Tensor exp(const Tensor& a, Loc loc) {
  return unary(OpKind::Exp, "exp", a, loc);
}
Tensor relu(const Tensor& a, Loc loc) {
  return unary(OpKind::Relu, "relu", a, loc);
}
Tensor neg(const Tensor& a, Loc loc) {
  return unary(OpKind::Neg, "neg", a, loc);
}
Tensor abs(const Tensor& a, Loc loc) {
  return unary(OpKind::Abs, "abs", a, loc);
}
Tensor tanh(const Tensor& a, Loc loc) {
  return unary(OpKind::Tanh, "tanh", a, loc);
}
Tensor sigmoid(const Tensor& a, Loc loc) {
  return unary(OpKind::Sigmoid, "sigmoid", a, loc);
}
Tensor erf(const Tensor& a, Loc loc) {
  return unary(OpKind::Erf, "erf", a, loc);
}
Tensor sin(const Tensor& a, Loc loc) {
  return unary(OpKind::Sin, "sin", a, loc);
}
Tensor cos(const Tensor& a, Loc loc) {
  return unary(OpKind::Cos, "cos", a, loc);
}
Tensor square(const Tensor& a, Loc loc) {
  return mul(a, a, loc);
}
Tensor silu(const Tensor& a, Loc loc) {
  return mul(a, sigmoid(a, loc), loc);
}
Tensor gelu(const Tensor& a, GeluApprox approximate, Loc loc) {
  if (approximate == GeluApprox::Tanh) {
    const double c = 0.7978845608028654;  // sqrt(2 / pi)
    const Tensor x3 = mul(mul(a, a, loc), a, loc);
    const Tensor inner = mul(add(a, mul(x3, 0.044715, loc), loc), c, loc);
    const Tensor half = mul(a, 0.5, loc);
    return mul(half, add(tanh(inner, loc), 1.0, loc), loc);
  }
  const Tensor half = mul(a, 0.5, loc);
  return mul(half, add(erf(mul(a, 1 / std::numbers::sqrt2, loc), loc), 1.0, loc), loc);
}
Tensor leakyRelu(const Tensor& a, double alpha, Loc loc) {
  const Tensor positive = greater(a, 0.0, loc);
  return where(positive, a, mul(a, alpha, loc), loc);
}
Tensor softplus(const Tensor& a, Loc loc) {
  const Tensor relu0 = max(a, 0.0, loc);
  return add(relu0, log(add(exp(neg(abs(a, loc), loc), loc), 1.0, loc), loc), loc);
}
Tensor stopGradient(const Tensor& a, Loc loc) {
  return unary(OpKind::StopGradient, "stopGradient", a, loc);
}

// ---- Randomness ----
Tensor dropout(const Tensor& x, double p, Loc loc) {
  if (p == 0) return x;
  OpAttrs at;
  at.p = p;
  at.salt = nextSalt();
  return emitAt(OpKind::Dropout, "dropout", loc, {x, prngSeed(loc)}, at);
}
Tensor randn(const Shape& shape, Loc loc) {
  OpAttrs at;
  at.shape = shape;
  at.salt = nextSalt();
  return emitAt(OpKind::Randn, "randn", loc, {prngSeed(loc)}, at);
}
Tensor categorical(const Tensor& logits, int64_t axis, Loc loc) {
  return reducingAxis(logits, axis, "categorical", loc, [&](const Tensor& t) {
    OpAttrs at;
    at.salt = nextSalt();
    return emitAt(OpKind::CategoricalLast, "categorical", loc, {t, prngSeed(loc)}, at);
  });
}

// ---- Comparisons and selection ----
Tensor less(const Tensor& a, const Tensor& b, Loc loc) {
  return binary(OpKind::Less, "less", a, b, loc);
}
Tensor less(const Tensor& a, double b, Loc loc) {
  return less(a, constScalar(b, a.dtype(), loc), loc);
}
Tensor less(double a, const Tensor& b, Loc loc) {
  return greater(b, a, loc);
}
Tensor greater(const Tensor& a, const Tensor& b, Loc loc) {
  return binary(OpKind::Greater, "greater", a, b, loc);
}
Tensor greater(const Tensor& a, double b, Loc loc) {
  return greater(a, constScalar(b, a.dtype(), loc), loc);
}
Tensor greater(double a, const Tensor& b, Loc loc) {
  return less(b, a, loc);
}
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b, Loc loc) {
  return emitAt(OpKind::Where, "where", loc, {cond, a, b});
}

// ---- Reductions ----
Tensor mean(const Tensor& a, Loc loc) {
  const int64_t n = a.size();
  return mulScalar(emitAt(OpKind::SumLast, "mean", loc, {reshape(a, {-1}, loc)}),
                   1.0 / static_cast<double>(n), loc);
}
Tensor mean(const Tensor& a, int64_t axis, ReduceOptions opts, Loc loc) {
  return reduceAxis(a, axis, opts.keepDims, true, loc);
}
Tensor sum(const Tensor& a, Loc loc) {
  return emitAt(OpKind::SumLast, "sum", loc, {reshape(a, {-1}, loc)});
}
Tensor sum(const Tensor& a, int64_t axis, ReduceOptions opts, Loc loc) {
  return reduceAxis(a, axis, opts.keepDims, false, loc);
}
Tensor argmax(const Tensor& a, Loc loc) {
  return emitAt(OpKind::ArgmaxLast, "argmax", loc, {reshape(a, {-1}, loc)});
}
Tensor argmax(const Tensor& a, int64_t axis, Loc loc) {
  return reducingAxis(a, axis, "argmax", loc, [&](const Tensor& t) {
    return emitAt(OpKind::ArgmaxLast, "argmax", loc, {t});
  });
}
Tensor argmin(const Tensor& a, Loc loc) {
  return argmax(neg(a, loc), loc);
}
Tensor argmin(const Tensor& a, int64_t axis, Loc loc) {
  return argmax(neg(a, loc), axis, loc);
}

// ---- Shape ----
Tensor reshape(const Tensor& a, const Shape& newShape, Loc loc) {
  int inferAt = -1;
  int64_t known = 1;
  for (size_t i = 0; i < newShape.size(); ++i) {
    if (newShape[i] == -1) {
      if (inferAt != -1)
        fail("reshape", loc, "at most one -1 dim allowed in newShape " + showShape(newShape));
      inferAt = static_cast<int>(i);
    } else if (newShape[i] <= 0) {
      fail("reshape", loc,
           "invalid dim " + std::to_string(newShape[i]) + " in newShape " + showShape(newShape));
    } else if (__builtin_mul_overflow(known, newShape[i], &known)) {
      fail("reshape", loc,
           "newShape " + showShape(newShape) + " overflows: its element count does not fit in int64");
    }
  }
  Shape out = newShape;
  if (inferAt != -1) {
    if (a.size() % known != 0) {
      fail("reshape", loc,
           "cannot reshape " + showShape(a.shape()) + " (size " + std::to_string(a.size()) +
               ") to " + showShape(newShape) + " — known dims multiply to " +
               std::to_string(known));
    }
    out[static_cast<size_t>(inferAt)] = a.size() / known;
  }
  OpAttrs at;
  at.shape = out;
  return emitAt(OpKind::Reshape, "reshape", loc, {a}, at);
}
Tensor permute(const Tensor& a, const std::vector<int64_t>& perm, Loc loc) {
  OpAttrs at;
  at.perm = perm;
  return emitAt(OpKind::Permute, "permute", loc, {a}, at);
}
Tensor swapAxes(const Tensor& a, int64_t axis1, int64_t axis2, Loc loc) {
  const int64_t r = a.rank();
  const int64_t i1 = axis1 < 0 ? r + axis1 : axis1, i2 = axis2 < 0 ? r + axis2 : axis2;
  if (i1 < 0 || i1 >= r || i2 < 0 || i2 >= r) {
    fail("swapAxes", loc,
         "axis out of range — got (" + std::to_string(axis1) + ", " + std::to_string(axis2) +
             ") for rank-" + std::to_string(r) + " tensor " + showShape(a.shape()));
  }
  if (i1 == i2) return a;
  std::vector<int64_t> perm(static_cast<size_t>(r));
  for (int64_t k = 0; k < r; ++k) perm[static_cast<size_t>(k)] = k;
  std::swap(perm[static_cast<size_t>(i1)], perm[static_cast<size_t>(i2)]);
  return permute(a, perm, loc);
}
Tensor splitHeads(const Tensor& x, int64_t nHeads, Loc loc) {
  const int64_t r = x.rank();
  if (r < 2) fail("splitHeads", loc, "requires rank >= 2, got " + showShape(x.shape()));
  const Shape& s = x.shape();
  const int64_t t = s[static_cast<size_t>(r - 2)], d = s[static_cast<size_t>(r - 1)];
  if (nHeads <= 0 || d % nHeads != 0) {
    fail("splitHeads", loc,
         "last dim " + std::to_string(d) + " not divisible by nHeads " + std::to_string(nHeads));
  }
  Shape ns(s.begin(), s.end() - 2);
  const auto lead = static_cast<int64_t>(ns.size());
  ns.insert(ns.end(), {t, nHeads, d / nHeads});
  return swapAxes(reshape(x, ns, loc), lead, lead + 1, loc);
}
Tensor mergeHeads(const Tensor& x, Loc loc) {
  const int64_t r = x.rank();
  if (r < 3) fail("mergeHeads", loc, "requires rank >= 3, got " + showShape(x.shape()));
  const Shape& s = x.shape();
  const int64_t h = s[static_cast<size_t>(r - 3)], t = s[static_cast<size_t>(r - 2)],
                d = s[static_cast<size_t>(r - 1)];
  Shape ns(s.begin(), s.end() - 3);
  ns.insert(ns.end(), {t, h * d});
  return reshape(swapAxes(x, r - 3, r - 2, loc), ns, loc);
}
std::array<Tensor, 2> rope(const Tensor& q, const Tensor& k, RopeOptions opts, Loc loc) {
  if (q.dtype() != Dtype::F32 || k.dtype() != Dtype::F32) fail("rope", loc, "q and k must be f32");
  if (q.rank() < 2 || k.rank() < 2)
    fail("rope", loc, "q and k need rank >= 2 (sequence at -2, features at -1)");
  const Shape &qs = q.shape(), &ks = k.shape();
  const int64_t t = qs[qs.size() - 2], d = qs.back();
  if (ks[ks.size() - 2] != t || ks.back() != d) {
    fail("rope", loc,
         "q and k must share sequence and feature dims, got q=" + showShape(qs) +
             " k=" + showShape(ks));
  }
  if (d % 2 != 0)
    fail("rope", loc, "rotation dim must be even (rotates pairs), got " + std::to_string(d));
  const int64_t half = d / 2;
  const Tensor freqs =
      exp(mul(arange(half, Dtype::F32, loc), -std::log(opts.base) / static_cast<double>(half), loc),
          loc);
  const Tensor positions = reshape(arange(t, Dtype::F32, loc), {t, 1}, loc);
  const Tensor angles = mul(positions, reshape(freqs, {1, half}, loc), loc);
  const Tensor c = cos(angles, loc), s = sin(angles, loc);
  const Tensor cosFull = concat({c, c}, -1, loc), sinFull = concat({s, s}, -1, loc);
  const auto rotate = [&](const Tensor& x) {
    const auto halves = split(x, {half, half}, -1, loc);
    const Tensor rotated = concat({neg(halves[1], loc), halves[0]}, -1, loc);
    const Tensor cosPart = mul(x, cosFull, loc);
    return add(cosPart, mul(rotated, sinFull, loc), loc);
  };
  return {rotate(q), rotate(k)};
}
Tensor broadcastTo(const Tensor& a, const Shape& targetShape, Loc loc) {
  OpAttrs at;
  at.shape = targetShape;
  return emitAt(OpKind::BroadcastTo, "broadcastTo", loc, {a}, at);
}
Tensor sumToShape(const Tensor& a, const Shape& targetShape, Loc loc) {
  OpAttrs at;
  at.shape = targetShape;
  return emitAt(OpKind::SumToShape, "sumToShape", loc, {a}, at);
}

// ---- Linear algebra ----
Tensor matmul(const Tensor& a, const Tensor& b, Loc loc) {
  if (a.dtype() != Dtype::F32 || b.dtype() != Dtype::F32) {
    fail("matmul", loc,
         "requires f32, got " + std::string(dtypeName(a.dtype())) + " and " +
             std::string(dtypeName(b.dtype())));
  }
  if (a.rank() < 2) fail("matmul", loc, "lhs must have rank >= 2, got " + showShape(a.shape()));
  if (b.rank() < 2) fail("matmul", loc, "rhs must have rank >= 2, got " + showShape(b.shape()));
  return emitAt(b.rank() == 2 ? OpKind::Matmul : OpKind::MatmulBatched, "matmul", loc, {a, b});
}

// ---- Indexing and constants ----
Tensor oneHot(const Tensor& indices, int64_t depth, Dtype dtype, Loc loc) {
  OpAttrs at;
  at.depth = depth;
  at.dtype = dtype;
  return emitAt(OpKind::OneHot, "oneHot", loc, {indices}, at);
}
Tensor takeAlongAxis(const Tensor& input, const Tensor& indices, int64_t axis, Loc loc) {
  if (input.dtype() != Dtype::F32)
    fail("takeAlongAxis", loc, "input must be f32, got " + std::string(dtypeName(input.dtype())));
  if (indices.dtype() != Dtype::I32)
    fail("takeAlongAxis", loc,
         "indices must be i32, got " + std::string(dtypeName(indices.dtype())));
  const int64_t n = input.rank();
  if (indices.rank() != n) {
    fail("takeAlongAxis", loc,
         "input and indices must have the same rank, got " + showShape(input.shape()) + " and " +
             showShape(indices.shape()));
  }
  const int64_t k = normalizeAxis("takeAlongAxis", loc, axis, input.shape());
  for (int64_t i = 0; i < n; ++i) {
    if (i != k &&
        input.shape()[static_cast<size_t>(i)] != indices.shape()[static_cast<size_t>(i)]) {
      fail("takeAlongAxis", loc,
           "input and indices must match on every axis except " + std::to_string(k) + ", got " +
               showShape(input.shape()) + " and " + showShape(indices.shape()));
    }
  }
  const int64_t size = input.shape()[static_cast<size_t>(k)];
  Shape expanded;
  for (int64_t i = 0; i < n; ++i)
    expanded.push_back(i == k ? 1 : input.shape()[static_cast<size_t>(i)]);
  expanded.push_back(size);
  const Tensor moved = reshape(permute(input, axisToEnd(k, n), loc), expanded, loc);
  return sum(mul(moved, oneHot(indices, size, Dtype::F32, loc), loc), -1, {}, loc);
}
Tensor embedding(const Tensor& table, const Tensor& indices, Loc loc) {
  if (table.rank() != 2)
    fail("embedding", loc, "table must be 2-d [vocab, dim], got " + showShape(table.shape()));
  if (indices.dtype() != Dtype::I32)
    fail("embedding", loc, "indices must be i32, got " + std::string(dtypeName(indices.dtype())));
  return matmul(oneHot(indices, table.shape()[0], Dtype::F32, loc), table, loc);
}
Tensor arange(int64_t n, Dtype dtype, Loc loc) {
  OpAttrs at;
  at.n = n;
  at.dtype = dtype;
  return emitAt(OpKind::Arange, "arange", loc, {}, at);
}
static Tensor constFill(const char* name, const Shape& shape, Dtype dtype, double value, Loc loc) {
  OpAttrs at;
  at.shape = shape;
  at.dtype = dtype;
  at.value = value;
  return emitAt(OpKind::ConstFill, name, loc, {}, at);
}
Tensor zeros(const Shape& shape, Dtype dtype, Loc loc) {
  return constFill("zeros", shape, dtype, 0, loc);
}
Tensor ones(const Shape& shape, Dtype dtype, Loc loc) {
  return constFill("ones", shape, dtype, 1, loc);
}
Tensor constScalar(double value, Dtype dtype, Loc loc) {
  OpAttrs at;
  at.value = value;
  at.dtype = dtype;
  return emitAt(OpKind::ConstScalar, "constScalar", loc, {}, at);
}

// ---- ML primitives ----
Tensor logSoftmax(const Tensor& a, int64_t axis, Loc loc) {
  return alongAxis(a, axis, "logSoftmax", loc, [&](const Tensor& t) {
    return emitAt(OpKind::LogSoftmaxLast, "logSoftmax", loc, {t});
  });
}
Tensor softmax(const Tensor& a, int64_t axis, Loc loc) {
  return exp(logSoftmax(a, axis, loc), loc);
}
Tensor softmaxCausal(const Tensor& a, int64_t axis, Loc loc) {
  return alongAxis(a, axis, "softmaxCausal", loc, [&](const Tensor& t) {
    return emitAt(OpKind::SoftmaxCausalLast, "softmaxCausal", loc, {t});
  });
}
Tensor whereCausal(const Tensor& a, double fillValue, Loc loc) {
  OpAttrs at;
  at.fillValue = fillValue;
  return emitAt(OpKind::WhereCausal, "whereCausal", loc, {a}, at);
}

// ---- Slicing and joining ----
Tensor narrow(const Tensor& a, int64_t axis, int64_t start, int64_t length, Loc loc) {
  OpAttrs at;
  at.axis = axis < 0 ? a.rank() + axis : axis;
  at.start = start;
  at.end = start + length;
  return emitAt(OpKind::SliceRange, "narrow", loc, {a}, at);
}
Tensor concat(const std::vector<Tensor>& tensors, int64_t axis, Loc loc) {
  if (tensors.empty()) fail("concat", loc, "needs at least one input");
  if (tensors.size() == 1) return tensors[0];
  OpAttrs at;
  at.axis = axis < 0 ? tensors[0].rank() + axis : axis;
  // Past the binding cap, concatenate in chunks and then concatenate the chunks.
  std::vector<Tensor> layer = tensors;
  while (layer.size() > kConcatInputCap) {
    std::vector<Tensor> next;
    for (size_t i = 0; i < layer.size(); i += kConcatInputCap) {
      std::vector<Tensor> chunk(
          layer.begin() + static_cast<ptrdiff_t>(i),
          layer.begin() + static_cast<ptrdiff_t>(std::min(layer.size(), i + kConcatInputCap)));
      next.push_back(chunk.size() == 1 ? chunk[0]
                                       : emitAt(OpKind::Concat, "concat", loc, chunk, at));
    }
    layer = std::move(next);
  }
  return emitAt(OpKind::Concat, "concat", loc, layer, at);
}
Tensor stack(const std::vector<Tensor>& tensors, int64_t axis, Loc loc) {
  if (tensors.empty()) fail("stack", loc, "needs at least one input");
  const Shape& s0 = tensors[0].shape();
  const int64_t ax = axis < 0 ? static_cast<int64_t>(s0.size()) + 1 + axis : axis;
  if (ax < 0 || ax > static_cast<int64_t>(s0.size()))
    fail("stack", loc, "axis " + std::to_string(axis) + " out of range");
  Shape expanded = s0;
  expanded.insert(expanded.begin() + ax, 1);
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) {
    if (t.shape() != s0)
      fail("stack", loc,
           "all inputs must share a shape, got " + showShape(s0) + " and " + showShape(t.shape()));
    parts.push_back(reshape(t, expanded, loc));
  }
  return concat(parts, ax, loc);
}
std::vector<Tensor> split(const Tensor& t, const std::vector<int64_t>& sizes, int64_t axis,
                          Loc loc) {
  const int64_t ax = normalizeAxis("split", loc, axis, t.shape());
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  if (total != t.shape()[static_cast<size_t>(ax)]) {
    fail("split", loc,
         "sizes sum to " + std::to_string(total) + ", but axis " + std::to_string(ax) + " of " +
             showShape(t.shape()) + " has size " +
             std::to_string(t.shape()[static_cast<size_t>(ax)]));
  }
  std::vector<Tensor> out;
  int64_t cursor = 0;
  for (int64_t s : sizes) {
    out.push_back(narrow(t, ax, cursor, s, loc));
    cursor += s;
  }
  return out;
}

// ---- Convolution and pooling ----
Tensor conv2d(const Tensor& input, const Tensor& weight, Conv2dOptions opts, Loc loc) {
  OpAttrs at;
  at.strideH = opts.stride.h;
  at.strideW = opts.stride.w;
  at.padH = opts.padding.h;
  at.padW = opts.padding.w;
  at.groups = opts.groups;
  return emitAt(OpKind::Conv2d, "conv2d", loc, {input, weight}, at);
}
Tensor maxPool2d(const Tensor& input, Size2 kernelSize, MaxPool2dOptions opts,
                 Loc loc) {
  OpAttrs at;
  at.kH = kernelSize.h;
  at.kW = kernelSize.w;
  const Size2 stride = opts.stride.value_or(kernelSize);
  at.strideH = stride.h;
  at.strideW = stride.w;
  at.padH = opts.padding.h;
  at.padW = opts.padding.w;
  return emitAt(OpKind::MaxPool2d, "maxPool2d", loc, {input}, at);
}
Tensor nearestUpsample2d(const Tensor& x, int64_t factor, Loc loc) {
  if (x.rank() != 4)
    fail("nearestUpsample2d", loc,
         "input must be rank-4 [B, C, H, W], got " + showShape(x.shape()));
  if (factor < 1)
    fail("nearestUpsample2d", loc,
         "factor must be a positive integer, got " + std::to_string(factor));
  if (factor == 1) return x;
  const Shape& s = x.shape();
  const Tensor expanded = broadcastTo(reshape(x, {s[0], s[1], s[2], 1, s[3], 1}, loc),
                                      {s[0], s[1], s[2], factor, s[3], factor}, loc);
  return reshape(expanded, {s[0], s[1], s[2] * factor, s[3] * factor}, loc);
}

}  // namespace tg
