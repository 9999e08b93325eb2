// slice_range, its adjoint scatter_axis, and concat (at most kConcatInputCap inputs per node).
#include "op_registry.h"

namespace tg::detail {
namespace {

// Views a shape as [outer, axis, inner] around `axis`.
struct AxisSplit {
  int64_t outer = 1, dim = 1, inner = 1;
};
AxisSplit splitAt(const Shape& s, int64_t axis) {
  AxisSplit r;
  for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d) {
    if (d < axis)
      r.outer *= s[static_cast<size_t>(d)];
    else if (d == axis)
      r.dim = s[static_cast<size_t>(d)];
    else
      r.inner *= s[static_cast<size_t>(d)];
  }
  return r;
}

void copyBlock(const HostTensor& src, int64_t srcIdx, HostTensor& dst, int64_t dstIdx, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    if (src.dtype == Dtype::F32)
      dst.f[static_cast<size_t>(dstIdx + k)] = src.f[static_cast<size_t>(srcIdx + k)];
    else
      dst.i[static_cast<size_t>(dstIdx + k)] = src.i[static_cast<size_t>(srcIdx + k)];
  }
}

void checkRange(const InferArgs& a, const Shape& s, const char* what) {
  const int64_t axis = a.attrs.axis;
  if (s.empty()) a.fail(a.name() + ": cannot " + what + " a 0-d tensor");
  if (axis < 0 || axis >= static_cast<int64_t>(s.size())) {
    a.fail(a.name() + ": axis " + std::to_string(axis) + " out of range for shape " + showShape(s));
  }
  const int64_t dim = s[static_cast<size_t>(axis)];
  if (a.attrs.start < 0 || a.attrs.end > dim || a.attrs.start >= a.attrs.end) {
    a.fail(a.name() + ": invalid range [" + std::to_string(a.attrs.start) + ", " +
           std::to_string(a.attrs.end) + ") for axis " + std::to_string(axis) + " of size " +
           std::to_string(dim) + " in " + showShape(s));
  }
}

// `let outer/ax/inner` for output element i around `axis`.
std::string axisCoords(const Shape& s, int64_t axis) {
  const AxisSplit p = splitAt(s, axis);
  return "  let inner = i % " + u(p.inner) + ";\n  let ax = (i / " + u(p.inner) + ") % " +
         u(p.dim) + ";\n  let outer = i / " + u(p.inner * p.dim) + ";\n";
}

}  // namespace

void registerSliceOps(OpTable& t) {
  t.push_back({.kind = OpKind::SliceRange,
               .name = "slice_range",
               .inputNames = {"a"},
               .attrNames = {"axis", "start", "end"},
               .infer =
                   [](const InferArgs& a) {
                     checkRange(a, a.in[0]->shape, "slice");
                     Shape s = a.in[0]->shape;
                     s[static_cast<size_t>(a.attrs.axis)] = a.attrs.end - a.attrs.start;
                     return OutType{s, a.in[0]->dtype};
                   },
               .eval =
                   [](const EvalArgs& e) {
                     const OpAttrs& at = e.op.attrs;
                     const AxisSplit in = splitAt(e.in[0]->shape, at.axis);
                     HostTensor r = HostTensor::zeros(e.out.shape, e.out.dtype);
                     const int64_t len = at.end - at.start;
                     for (int64_t o = 0; o < in.outer; ++o) {
                       copyBlock(*e.in[0], (o * in.dim + at.start) * in.inner, r,
                                 o * len * in.inner, len * in.inner);
                     }
                     return r;
                   },
               .differentiable = Differentiable::Yes,
               .grad =
                   [](GradContext& c) {
                     OpAttrs at = c.attrs();
                     at.shape = c.in(0).shape();
                     c.accumulate(0, emit(OpKind::ScatterAxis, {c.dy()}, at,
                                          internalSite("scatterAxis", c.loc())));
                   }});

  t.push_back({.kind = OpKind::ScatterAxis,
               .name = "scatter_axis",
               .inputNames = {"a"},
               .attrNames = {"outShape", "axis", "start", "end"},
               .infer =
                   [](const InferArgs& a) {
                     const Shape& out = a.attrs.shape;
                     checkRange(a, out, "scatter into");
                     const Shape& in = a.in[0]->shape;
                     if (in.size() != out.size()) {
                       a.fail(a.name() + ": input rank " + std::to_string(in.size()) +
                              " must equal output rank " + std::to_string(out.size()));
                     }
                     for (size_t i = 0; i < out.size(); ++i) {
                       const int64_t want = static_cast<int64_t>(i) == a.attrs.axis
                                                ? a.attrs.end - a.attrs.start
                                                : out[i];
                       if (in[i] != want) {
                         a.fail(a.name() + ": input " + showShape(in) + " doesn't match output " +
                                showShape(out) + " at axis " + std::to_string(i) + " (expected " +
                                std::to_string(want) + ")");
                       }
                     }
                     return OutType{out, a.in[0]->dtype};
                   },
               .eval =
                   [](const EvalArgs& e) {
                     const OpAttrs& at = e.op.attrs;
                     const AxisSplit out = splitAt(e.out.shape, at.axis);
                     HostTensor r = HostTensor::zeros(e.out.shape, e.out.dtype);
                     const int64_t len = at.end - at.start;
                     for (int64_t o = 0; o < out.outer; ++o) {
                       copyBlock(*e.in[0], o * len * out.inner, r,
                                 (o * out.dim + at.start) * out.inner, len * out.inner);
                     }
                     return r;
                   },
               .differentiable = Differentiable::Rejected});

  t.push_back({.kind = OpKind::Concat,
               .name = "concat",
               .inputNames = {"inputs"},
               .attrNames = {"axis"},
               .variadic = true,
               .infer =
                   [](const InferArgs& a) {
                     if (a.in.empty()) a.fail(a.name() + ": needs at least one input");
                     if (a.in.size() > kConcatInputCap) {
                       a.fail(a.name() + ": one concat node takes at most " +
                              std::to_string(kConcatInputCap) + " inputs");
                     }
                     const Shape& first = a.in[0]->shape;
                     const int64_t axis = a.attrs.axis;
                     if (axis < 0 || axis >= static_cast<int64_t>(first.size())) {
                       a.fail(a.name() + ": axis " + std::to_string(axis) +
                              " out of range for shape " + showShape(first));
                     }
                     Shape out = first;
                     for (size_t i = 1; i < a.in.size(); ++i) {
                       const Shape& s = a.in[i]->shape;
                       if (a.in[i]->dtype != a.in[0]->dtype)
                         a.fail(a.name() + ": dtype mismatch (" +
                                std::string(dtypeName(a.in[0]->dtype)) + " vs " +
                                std::string(dtypeName(a.in[i]->dtype)) + ")");
                       bool ok = s.size() == first.size();
                       for (size_t d = 0; ok && d < s.size(); ++d)
                         ok = static_cast<int64_t>(d) == axis || s[d] == first[d];
                       if (!ok) {
                         a.fail(a.name() + ": input " + std::to_string(i) + " has shape " +
                                showShape(s) + ", must match " + showShape(first) +
                                " except along axis " + std::to_string(axis));
                       }
                       out[static_cast<size_t>(axis)] += s[static_cast<size_t>(axis)];
                     }
                     return OutType{out, a.in[0]->dtype};
                   },
               .eval =
                   [](const EvalArgs& e) {
                     const int64_t axis = e.op.attrs.axis;
                     const AxisSplit out = splitAt(e.out.shape, axis);
                     HostTensor r = HostTensor::zeros(e.out.shape, e.out.dtype);
                     int64_t cursor = 0;
                     for (const HostTensor* in : e.in) {
                       const int64_t len = in->shape[static_cast<size_t>(axis)];
                       for (int64_t o = 0; o < out.outer; ++o) {
                         copyBlock(*in, o * len * out.inner, r, (o * out.dim + cursor) * out.inner,
                                   len * out.inner);
                       }
                       cursor += len;
                     }
                     return r;
                   },
               .differentiable = Differentiable::Yes,
               .grad =
                   [](GradContext& c) {
                     int64_t cursor = 0;
                     const int64_t axis = c.attrs().axis;
                     for (size_t i = 0; i < c.op().inputs.size(); ++i) {
                       const int64_t len = c.in(i).shape()[static_cast<size_t>(axis)];
                       c.accumulate(i, narrow(c.dy(), axis, cursor, len, c.loc()));
                       cursor += len;
                     }
                   }});

  kernelOf(t, OpKind::SliceRange) = [](const KernelArgs& a) {
    const OpAttrs& at = a.op.attrs;
    const AxisSplit in = splitAt(a.in(0).shape, at.axis);
    return elementwise(a, shapeSize(a.out().shape),
                       axisCoords(a.out().shape, at.axis) + "  out[i] = a[(outer * " + u(in.dim) +
                           " + ax + " + u(at.start) + ") * " + u(in.inner) + " + inner];\n");
  };
  kernelOf(t, OpKind::ScatterAxis) = [](const KernelArgs& a) {
    const OpAttrs& at = a.op.attrs;
    const int64_t len = at.end - at.start;
    const AxisSplit out = splitAt(a.out().shape, at.axis);
    return elementwise(a, shapeSize(a.out().shape),
                       axisCoords(a.out().shape, at.axis) + "  if (ax < " + u(at.start) +
                           " || ax >= " + u(at.end) + ") {\n" +
                           "    out[i] = " + literal(0, a.out().dtype) + ";\n    return;\n  }\n" +
                           "  out[i] = a[(outer * " + u(len) + " + ax - " + u(at.start) + ") * " +
                           u(out.inner) + " + inner];\n");
  };
  // Each output element reads from the input whose range along the axis covers it.
  kernelOf(t, OpKind::Concat) = [](const KernelArgs& a) {
    const int64_t axis = a.op.attrs.axis;
    const AxisSplit out = splitAt(a.out().shape, axis);
    std::string body = axisCoords(a.out().shape, axis);
    int64_t cursor = 0;
    for (size_t k = 0; k < a.op.inputs.size(); ++k) {
      const int64_t len = a.in(k).shape[static_cast<size_t>(axis)];
      body += "  if (ax < " + u(cursor + len) + ") {\n    out[i] = " + a.inName(k) + "[(outer * " +
              u(len) + " + ax - " + u(cursor) + ") * " + u(out.inner) +
              " + inner];\n    return;\n  }\n";
      cursor += len;
    }
    return elementwise(a, shapeSize(a.out().shape), body);
  };
}

}  // namespace tg::detail
