// one_hot: i32 indices → a depth-sized trailing axis (out-of-range indices give an all-zero row).
#include "op_registry.h"

namespace tg::detail {

void registerIndexingOps(OpTable& t) {
  t.push_back({.kind = OpKind::OneHot,
               .name = "one_hot",
               .inputNames = {"indices"},
               .attrNames = {"depth", "dtype"},
               .infer =
                   [](const InferArgs& a) {
                     if (a.in[0]->dtype != Dtype::I32)
                       a.fail(a.name() + ": indices must be i32, got " +
                              std::string(dtypeName(a.in[0]->dtype)));
                     if (a.attrs.depth <= 0)
                       a.fail(a.name() + ": depth must be positive, got " +
                              std::to_string(a.attrs.depth));
                     if (a.attrs.dtype == Dtype::Bool)
                       a.fail(a.name() + ": dtype must be f32 or i32");
                     Shape s = a.in[0]->shape;
                     s.push_back(a.attrs.depth);
                     return OutType{s, a.attrs.dtype};
                   },
               .eval =
                   [](const EvalArgs& e) {
                     HostTensor r = HostTensor::zeros(e.out.shape, e.out.dtype);
                     const int64_t depth = e.op.attrs.depth;
                     for (size_t k = 0; k < e.in[0]->i.size(); ++k) {
                       const int32_t idx = e.in[0]->i[k];
                       if (idx < 0 || idx >= depth) continue;
                       const size_t at = k * static_cast<size_t>(depth) + static_cast<size_t>(idx);
                       if (r.dtype == Dtype::F32)
                         r.f[at] = 1.0f;
                       else
                         r.i[at] = 1;
                     }
                     return r;
                   }});
  kernelOf(t, OpKind::OneHot) = [](const KernelArgs& a) {
    const std::string d = u(a.op.attrs.depth);
    const Dtype dt = a.out().dtype;
    return elementwise(a, shapeSize(a.out().shape),
                       "  out[i] = select(" + literal(0, dt) + ", " + literal(1, dt) +
                           ", indices[i / " + d + "] == i32(i % " + d + "));\n");
  };
}

}  // namespace tg::detail
