// Layout ops: reshape, permute, and the broadcast/un-broadcast pair autograd emits.
#include <set>

#include "op_registry.h"
#include "reduce_fast.h"
#include "transpose_fast.h"

namespace tg::detail {
namespace {

HostTensor copyAs(const HostTensor& x, const TensorInfo& out) {
  HostTensor r = x;
  r.shape = out.shape;
  return r;
}

// Gathers out[k] = x[index(k)] for either dtype.
template <class IndexFn>
HostTensor gather(const HostTensor& x, const TensorInfo& out, IndexFn index) {
  HostTensor r = HostTensor::zeros(out.shape, x.dtype);
  for (int64_t k = 0; k < r.size(); ++k) {
    const auto src = static_cast<size_t>(index(k));
    if (x.dtype == Dtype::F32)
      r.f[static_cast<size_t>(k)] = x.f[src];
    else
      r.i[static_cast<size_t>(k)] = x.i[src];
  }
  return r;
}

KernelSource copyKernel(const KernelArgs& a) {
  return elementwise(a, shapeSize(a.out().shape), "  out[i] = a[i];\n");
}

}  // namespace

void registerShapeOps(OpTable& t) {
  // The resolved shape (no -1) is stored in attrs.shape, as upstream stores newShape.
  t.push_back(
      {.kind = OpKind::Reshape,
       .name = "reshape",
       .inputNames = {"a"},
       .attrNames = {"newShape"},
       .infer =
           [](const InferArgs& a) {
             const Shape& want = a.attrs.shape;
             if (shapeSize(want) != shapeSize(a.in[0]->shape) ||
                 std::any_of(want.begin(), want.end(), [](int64_t d) { return d <= 0; })) {
               a.fail(a.name() + ": size mismatch — input " + showShape(a.in[0]->shape) + " has " +
                      std::to_string(shapeSize(a.in[0]->shape)) + " elements but newShape " +
                      showShape(want) + " has " + std::to_string(shapeSize(want)));
             }
             return OutType{want, a.in[0]->dtype};
           },
       .eval = [](const EvalArgs& e) { return copyAs(*e.in[0], e.out); },
       .differentiable = Differentiable::Yes,
       .grad = [](GradContext& c) { c.accumulate(0, reshape(c.dy(), c.in(0).shape(), c.loc())); }});

  t.push_back({.kind = OpKind::Permute,
               .name = "permute",
               .inputNames = {"a"},
               .attrNames = {"perm"},
               .infer =
                   [](const InferArgs& a) {
                     const Shape& in = a.in[0]->shape;
                     const auto& perm = a.attrs.perm;
                     if (perm.size() != in.size()) {
                       a.fail(a.name() + ": perm length " + std::to_string(perm.size()) +
                              " must equal input rank " + std::to_string(in.size()) + " (input " +
                              showShape(in) + ")");
                     }
                     std::set<int64_t> seen;
                     Shape out;
                     for (int64_t p : perm) {
                       if (p < 0 || p >= static_cast<int64_t>(in.size())) {
                         a.fail(a.name() + ": perm index " + std::to_string(p) +
                                " out of range for rank " + std::to_string(in.size()));
                       }
                       if (!seen.insert(p).second)
                         a.fail(a.name() + ": perm has duplicate index " + std::to_string(p));
                       out.push_back(in[static_cast<size_t>(p)]);
                     }
                     return OutType{out, a.in[0]->dtype};
                   },
               .eval =
                   [](const EvalArgs& e) {
                     const auto& perm = e.op.attrs.perm;
                     const auto inStrides = stridesOf(e.in[0]->shape);
                     const Shape& os = e.out.shape;
                     return gather(*e.in[0], e.out, [&](int64_t k) {
                       int64_t src = 0;
                       for (size_t d = os.size(); d-- > 0;) {
                         src += (k % os[d]) * inStrides[static_cast<size_t>(perm[d])];
                         k /= os[d];
                       }
                       return src;
                     });
                   },
               .differentiable = Differentiable::Yes,
               .grad =
                   [](GradContext& c) {
                     const auto& perm = c.attrs().perm;
                     std::vector<int64_t> inv(perm.size());
                     for (size_t i = 0; i < perm.size(); ++i)
                       inv[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
                     c.accumulate(0, permute(c.dy(), inv, c.loc()));
                   }});

  t.push_back(
      {.kind = OpKind::BroadcastTo,
       .name = "broadcast_to",
       .inputNames = {"a"},
       .attrNames = {"targetShape"},
       .infer =
           [](const InferArgs& a) {
             const Shape& from = a.in[0]->shape;
             const Shape& to = a.attrs.shape;
             if (from.size() > to.size()) {
               a.fail(a.name() + ": cannot broadcast " + showShape(from) + " to " + showShape(to) +
                      " — source rank " + std::to_string(from.size()) + " > target rank " +
                      std::to_string(to.size()));
             }
             const size_t off = to.size() - from.size();
             for (size_t i = 0; i < from.size(); ++i) {
               if (from[i] != to[off + i] && from[i] != 1) {
                 a.fail(a.name() + ": cannot broadcast " + showShape(from) + " to " +
                        showShape(to) + " — axis " + std::to_string(i) + " (size " +
                        std::to_string(from[i]) + ") doesn't match target axis " +
                        std::to_string(off + i) + " (size " + std::to_string(to[off + i]) +
                        ") and isn't 1");
               }
             }
             return OutType{to, a.in[0]->dtype};
           },
       .eval =
           [](const EvalArgs& e) {
             return gather(*e.in[0], e.out, [&](int64_t k) {
               return broadcastIndex(k, e.out.shape, e.in[0]->shape);
             });
           },
       .differentiable = Differentiable::Yes,
       .grad =
           [](GradContext& c) { c.accumulate(0, sumToShape(c.dy(), c.in(0).shape(), c.loc())); }});

  t.push_back(
      {.kind = OpKind::SumToShape,
       .name = "sum_to_shape",
       .inputNames = {"a"},
       .attrNames = {"targetShape"},
       .infer =
           [](const InferArgs& a) {
             const Shape& from = a.in[0]->shape;
             const Shape& to = a.attrs.shape;
             if (to.size() > from.size()) {
               a.fail(a.name() + ": cannot sum-reduce " + showShape(from) + " to " + showShape(to) +
                      " — target rank " + std::to_string(to.size()) + " > source rank " +
                      std::to_string(from.size()));
             }
             const size_t off = from.size() - to.size();
             for (size_t i = 0; i < to.size(); ++i) {
               if (from[off + i] != to[i] && to[i] != 1) {
                 a.fail(a.name() + ": cannot sum-reduce " + showShape(from) + " to " +
                        showShape(to) + " — target axis " + std::to_string(i) + " (size " +
                        std::to_string(to[i]) + ") must be 1 or match source");
               }
             }
             return OutType{to, a.in[0]->dtype};
           },
       .eval =
           [](const EvalArgs& e) {
             const HostTensor& x = *e.in[0];
             HostTensor r = HostTensor::zeros(e.out.shape, x.dtype);
             std::vector<double> acc(static_cast<size_t>(r.size()), 0.0);
             for (int64_t k = 0; k < x.size(); ++k)
               acc[static_cast<size_t>(broadcastIndex(k, x.shape, r.shape))] += x.at(k);
             for (size_t k = 0; k < acc.size(); ++k) {
               if (x.dtype == Dtype::F32)
                 r.f[k] = static_cast<float>(acc[k]);
               else
                 r.i[k] = static_cast<int32_t>(acc[k]);
             }
             return r;
           },
       .differentiable = Differentiable::Yes,
       .grad =
           [](GradContext& c) { c.accumulate(0, broadcastTo(c.dy(), c.in(0).shape(), c.loc())); }});

  kernelOf(t, OpKind::Reshape) = copyKernel;
  setExpr(t, OpKind::Reshape,
          [](const Op&, const std::vector<std::string>& v) { return v[0]; });  // same flat order
  kernelOf(t, OpKind::Permute) = [](const KernelArgs& a) {
    const Shape& out = a.out().shape;
    const auto inStrides = stridesOf(a.in(0).shape);
    std::string src;
    for (size_t d = 0; d < out.size(); ++d) {
      src += (src.empty() ? "" : " + ") + std::string("o_") + std::to_string(d) + " * " +
             u(inStrides[static_cast<size_t>(a.op.attrs.perm[d])]);
    }
    return elementwise(
        a, shapeSize(out),
        decompose("i", out, "o") + "  out[i] = a[" + (src.empty() ? "0u" : src) + "];\n");
  };
  kernelOf(t, OpKind::BroadcastTo) = [](const KernelArgs& a) {
    const Shape& out = a.out().shape;
    return elementwise(a, shapeSize(out),
                       broadcastIndex("ai", out, a.in(0).shape) + "  out[i] = a[ai];\n");
  };
  // One thread per output cell, looping over the flattened reduced axes in row-major order. As
  // upstream: few outputs over a long reduction (a bias gradient summing every row) get a
  // workgroup per output instead, 256 threads striding the reduction, then a tree in shared memory.
  kernelOf(t, OpKind::SumToShape) = [](const KernelArgs& a) {
    const Shape& src = a.in(0).shape;
    const Shape& dst = a.out().shape;
    const size_t offset = src.size() - dst.size();
    const auto srcStrides = stridesOf(src);
    std::vector<size_t> reduced;
    std::string base;
    for (size_t k = 0; k < src.size(); ++k) {
      if (k < offset || (dst[k - offset] == 1 && src[k] > 1))
        reduced.push_back(k);
      else
        base += " + d_" + std::to_string(k - offset) + " * " + u(srcStrides[k]);
    }
    int64_t redLen = 1;
    for (size_t k : reduced) redLen *= src[k];
    std::string at = "    var rem = r;\n    var at = 0u" + base + ";\n";
    for (size_t n = reduced.size(); n-- > 0;) {
      const size_t k = reduced[n];
      at += "    at += (rem % " + u(src[k]) + ") * " + u(srcStrides[k]) + ";\n    rem = rem / " +
            u(src[k]) + ";\n";
    }
    const int64_t outputs = shapeSize(dst);
    if (a.out().dtype == Dtype::F32 && treeReduces(outputs, redLen)) {
      return perWorkgroup(a, outputs,
                          decompose("i", dst, "d") + "  var s = 0.0;\n  for (var r = lid; r < " +
                              u(redLen) + "; r += " + u(kWorkgroupSize) + ") {\n" + at +
                              "    s = s + a[at];\n  }\n" + workgroupReduce("partial", "s") +
                              "  if (lid == 0u) { out[i] = partial[0]; }\n");
    }
    return elementwise(a, outputs,
                       decompose("i", dst, "d") + "  var s = " + literal(0, a.out().dtype) +
                           ";\n  for (var r = 0u; r < " + u(redLen) + "; r++) {\n" + at +
                           "    s = s + a[at];\n  }\n  out[i] = s;\n");
  };
  // Fused, a broadcast is only its consumer's indexing: the fused kernel reads the source at
  // the broadcast index of each output element.
  setExpr(t, OpKind::BroadcastTo, [](const Op&, const std::vector<std::string>& in) { return in[0]; });
  // Likewise a permute: its consumer reads the source at the permuted index (a permute's
  // kernel is a full read and write for a relabelling of axes).
  setExpr(t, OpKind::Permute, [](const Op&, const std::vector<std::string>& in) { return in[0]; });
  fastKernelOf(t, OpKind::SumToShape) = fastSumToShapeKernel;
  fastKernelOf(t, OpKind::Permute) = fastTransposeKernel;
}

}  // namespace tg::detail
