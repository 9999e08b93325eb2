// In-kernel randomness, as upstream: a per-step i32 seed input, a per-call salt, and a PCG-style
// u32 hash of (seed, salt, thread index). Dropout's backward reuses the forward's (seed, salt),
// so both see the same mask.
#include <cmath>

#include "op_registry.h"

namespace tg::detail {
namespace {

uint32_t saltMix(int64_t salt) {
  return static_cast<uint32_t>(static_cast<uint64_t>(salt) * 0x9E3779B1u);
}

uint32_t pcg(uint32_t h) {
  h = h * 747796405u + 2891336453u;
  h = ((h >> ((h >> 28u) + 4u)) ^ h) * 277803737u;
  return (h >> 22u) ^ h;
}

// The kernel converts the hash to f32 before dividing.
float unitFloat(uint32_t h) {
  return static_cast<float>(h) / 4294967296.0f;
}

uint32_t seedOf(const EvalArgs& e, size_t inputIndex) {
  return static_cast<uint32_t>(e.in[inputIndex]->i.at(0));
}

// The kernel bakes p and 1/(1-p) as 8-decimal literals.
double eightDecimals(double v) {
  return std::round(v * 1e8) / 1e8;
}

void requireSeed(const InferArgs& a, size_t i) {
  if (a.in[i]->dtype != Dtype::I32 || !a.in[i]->shape.empty())
    a.fail(a.name() + ": seed must be a 0-d i32 tensor");
}

}  // namespace

void registerRandomOps(OpTable& t) {
  t.push_back({.kind = OpKind::Dropout,
               .name = "dropout",
               .inputNames = {"a", "seed"},
               .attrNames = {"p", "salt"},
               .infer =
                   [](const InferArgs& a) {
                     if (a.in[0]->dtype != Dtype::F32)
                       a.fail(a.name() + ": requires f32, got " +
                              std::string(dtypeName(a.in[0]->dtype)));
                     if (!(a.attrs.p >= 0 && a.attrs.p < 1))
                       a.fail(a.name() + ": p must be in [0, 1), got " + std::to_string(a.attrs.p));
                     requireSeed(a, 1);
                     return OutType{a.in[0]->shape, Dtype::F32};
                   },
               .eval =
                   [](const EvalArgs& e) {
                     HostTensor r = HostTensor::zeros(e.out.shape, Dtype::F32);
                     const uint32_t base = seedOf(e, 1) ^ saltMix(e.op.attrs.salt);
                     const auto p = static_cast<float>(eightDecimals(e.op.attrs.p));
                     const auto scale = static_cast<float>(eightDecimals(1 / (1 - e.op.attrs.p)));
                     for (size_t k = 0; k < r.f.size(); ++k) {
                       const float u = unitFloat(pcg(base ^ static_cast<uint32_t>(k)));
                       r.f[k] = e.in[0]->f[k] * (u >= p ? scale : 0.0f);
                     }
                     return r;
                   },
               .differentiable = Differentiable::Yes,
               .grad =
                   [](GradContext& c) {
                     c.accumulate(0, emit(OpKind::Dropout, {c.dy(), c.in(1)}, c.attrs(),
                                          internalSite("dropout", c.loc())));
                   },
               .stochastic = true});

  t.push_back({.kind = OpKind::Randn,
               .name = "randn",
               .inputNames = {"seed"},
               .attrNames = {"salt", "shape"},
               .infer =
                   [](const InferArgs& a) {
                     for (int64_t d : a.attrs.shape) {
                       if (d <= 0)
                         a.fail(a.name() + ": shape must be positive integers, got " +
                                showShape(a.attrs.shape));
                     }
                     requireSeed(a, 0);
                     return OutType{a.attrs.shape, Dtype::F32};
                   },
               .eval =
                   [](const EvalArgs& e) {
                     HostTensor r = HostTensor::zeros(e.out.shape, Dtype::F32);
                     const uint32_t base = seedOf(e, 0) ^ saltMix(e.op.attrs.salt);
                     for (size_t k = 0; k < r.f.size(); ++k) {
                       const uint32_t h1 = pcg(base ^ static_cast<uint32_t>(k));
                       const uint32_t h2 = pcg(h1);
                       const float u1 = std::max(1.0e-10f, unitFloat(h1));
                       const float u2 = unitFloat(h2);
                       r.f[k] = static_cast<float>(std::sqrt(-2.0 * std::log(double{u1})) *
                                                   std::cos(6.283185307179586 * double{u2}));
                     }
                     return r;
                   },
               .stochastic = true});

  // Gumbel-max: argmax over logits + (-log(-log u)) per row.
  t.push_back(
      {.kind = OpKind::CategoricalLast,
       .name = "categorical_last",
       .inputNames = {"a", "seed"},
       .attrNames = {"salt"},
       .infer =
           [](const InferArgs& a) {
             if (a.in[0]->dtype != Dtype::F32)
               a.fail(a.name() + ": requires f32 logits, got " +
                      std::string(dtypeName(a.in[0]->dtype)));
             if (a.in[0]->shape.empty()) a.fail(a.name() + ": cannot reduce a 0-d tensor");
             requireSeed(a, 1);
             return OutType{Shape(a.in[0]->shape.begin(), a.in[0]->shape.end() - 1), Dtype::I32};
           },
       .eval =
           [](const EvalArgs& e) {
             const HostTensor& x = *e.in[0];
             const int64_t d = x.shape.back();
             HostTensor r = HostTensor::zeros(e.out.shape, Dtype::I32);
             const uint32_t base = seedOf(e, 1) ^ saltMix(e.op.attrs.salt);
             for (int64_t row = 0; row < r.size(); ++row) {
               float best = -1.0e30f;
               int32_t bestIdx = 0;
               for (int64_t j = 0; j < d; ++j) {
                 const float u =
                     std::max(1.0e-10f, unitFloat(pcg(base ^ static_cast<uint32_t>(row * d + j))));
                 const auto g = static_cast<float>(-std::log(-std::log(double{u})));
                 const float v = x.f[static_cast<size_t>(row * d + j)] + g;
                 if (v > best) best = v, bestIdx = static_cast<int32_t>(j);
               }
               r.i[static_cast<size_t>(row)] = bestIdx;
             }
             return r;
           },
       .stochastic = true});

  kernelOf(t, OpKind::Dropout) = [](const KernelArgs& a) {
    const double p = eightDecimals(a.op.attrs.p), scale = eightDecimals(1 / (1 - a.op.attrs.p));
    return elementwise(a, shapeSize(a.out().shape),
                       "  let u = f32(pcg(u32(seed[0]) ^ " + saltConstant(a.op.attrs.salt) +
                           " ^ i)) / 4294967296.0;\n"
                           "  out[i] = a[i] * select(0.0, " +
                           literal(scale, Dtype::F32) + ", u >= " + literal(p, Dtype::F32) + ");\n",
                       pcgHashFn());
  };
  kernelOf(t, OpKind::Randn) = [](const KernelArgs& a) {
    return elementwise(a, shapeSize(a.out().shape),
                       "  let h1 = pcg(u32(seed[0]) ^ " + saltConstant(a.op.attrs.salt) +
                           " ^ i);\n"
                           "  let h2 = pcg(h1);\n"
                           "  let u1 = max(1.0e-10, f32(h1) / 4294967296.0);\n"
                           "  let u2 = f32(h2) / 4294967296.0;\n"
                           "  out[i] = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);\n",
                       pcgHashFn());
  };
  kernelOf(t, OpKind::CategoricalLast) = [](const KernelArgs& a) {
    const int64_t d = a.in(0).shape.back();
    return elementwise(
        a, shapeSize(a.out().shape),
        "  var best = -1.0e30;\n  var bestIdx = 0i;\n"
        "  for (var j = 0u; j < " +
            u(d) +
            "; j++) {\n"
            "    let h = pcg(u32(seed[0]) ^ " +
            saltConstant(a.op.attrs.salt) + " ^ (i * " + u(d) +
            " + j));\n"
            "    let v = a[i * " +
            u(d) +
            " + j] - log(-log(max(1.0e-10, f32(h) / 4294967296.0)));\n"
            "    if (v > best) { best = v; bestIdx = i32(j); }\n  }\n  out[i] = bestIdx;\n",
        pcgHashFn());
  };
}

}  // namespace tg::detail
