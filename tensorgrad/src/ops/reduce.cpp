// Last-axis reductions. Other axes are reached by permuting first (ops.cpp does that).
#include "op_registry.h"

namespace tg::detail {
namespace {

void requireReducible(const InferArgs& a) {
  if (a.in[0]->dtype != Dtype::F32) a.fail(a.name() + ": requires f32, got " + std::string(dtypeName(a.in[0]->dtype)));
  if (a.in[0]->shape.empty()) a.fail(a.name() + ": cannot reduce a 0-d tensor");
}

Shape dropLast(const Shape& s) { return Shape(s.begin(), s.end() - 1); }

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

}  // namespace

void registerReduceOps(OpTable& t) {
  t.push_back({.kind = OpKind::MeanLast, .name = "mean_last", .inputNames = {"a"},
               .infer = [](const InferArgs& a) {
                 requireReducible(a);
                 Shape s = a.in[0]->shape;
                 s.back() = 1;
                 return OutType{s, Dtype::F32};
               },
               .eval = [](const EvalArgs& e) { return reduceLast(e, true); },
               .differentiable = Differentiable::Yes,
               .grad = [](GradContext& c) {
                 const Shape& in = c.in(0).shape();
                 c.accumulate(0, mulScalar(broadcastTo(c.dy(), in, c.loc()), 1.0 / static_cast<double>(in.back()), c.loc()));
               }});
  t.push_back({.kind = OpKind::SumLast, .name = "sum_last", .inputNames = {"a"},
               .infer = [](const InferArgs& a) {
                 requireReducible(a);
                 return OutType{dropLast(a.in[0]->shape), Dtype::F32};
               },
               .eval = [](const EvalArgs& e) { return reduceLast(e, false); },
               .differentiable = Differentiable::Yes,
               .grad = [](GradContext& c) {
                 Shape keep = c.dy().shape();
                 keep.push_back(1);
                 c.accumulate(0, broadcastTo(reshape(c.dy(), keep, c.loc()), c.in(0).shape(), c.loc()));
               }});
  t.push_back({.kind = OpKind::ArgmaxLast, .name = "argmax_last", .inputNames = {"a"},
               .infer = [](const InferArgs& a) {
                 requireReducible(a);
                 return OutType{dropLast(a.in[0]->shape), Dtype::I32};
               },
               .eval = [](const EvalArgs& e) {
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
}

}  // namespace tg::detail
