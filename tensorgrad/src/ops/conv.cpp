// 2-D convolution (grouped, NCHW, PyTorch layout) and max pooling, with their gather-form
// gradients. Padded positions contribute nothing (conv) or count as -inf (pool).
#include "conv_fast.h"
#include "op_registry.h"

namespace tg::detail {
namespace {

int64_t spatialOut(const InferArgs& a, int64_t in, int64_t k, int64_t stride, int64_t pad,
                   const char* axis) {
  const std::string ax(axis);
  if (k < 1) a.fail(a.name() + ": " + ax + " kernel must be >= 1, got " + std::to_string(k));
  if (stride < 1)
    a.fail(a.name() + ": " + ax + " stride must be >= 1, got " + std::to_string(stride));
  if (pad < 0) a.fail(a.name() + ": " + ax + " padding must be >= 0, got " + std::to_string(pad));
  const int64_t num = in + 2 * pad - k;
  const int64_t out = num < 0 ? 0 : num / stride + 1;
  if (out < 1) {
    a.fail(a.name() + ": " + ax + " output size would be < 1 (in=" + std::to_string(in) +
           ", kernel=" + std::to_string(k) + ", stride=" + std::to_string(stride) +
           ", pad=" + std::to_string(pad) + ")");
  }
  return out;
}

// Output position (ho, wo) that tap (kh, kw) maps input row/col (hi, wi) to, if any.
bool tapSource(int64_t i, int64_t pad, int64_t k, int64_t stride, int64_t outSize, int64_t& o) {
  const int64_t num = i + pad - k;
  if (num < 0 || num % stride != 0) return false;
  o = num / stride;
  return o < outSize;
}

float poolMax(const float* plane, const ConvGeometry& g, int64_t ho, int64_t wo, int64_t& argH,
              int64_t& argW) {
  float m = -3.4e38f;
  argH = argW = -1;
  for (int64_t kh = 0; kh < g.kH; ++kh) {
    const int64_t hi = ho * g.sH + kh - g.pH;
    if (hi < 0 || hi >= g.h) continue;
    for (int64_t kw = 0; kw < g.kW; ++kw) {
      const int64_t wi = wo * g.sW + kw - g.pW;
      if (wi < 0 || wi >= g.w) continue;
      const float v = plane[hi * g.w + wi];
      if (v > m) m = v, argH = hi, argW = wi;
    }
  }
  return m;
}

ConvGeometry poolGeometry(const Shape& input, const Shape& out, const OpAttrs& at) {
  return {input[0], input[1], input[2], input[3],   input[1],   1,       at.kH,  at.kW,
          out[2],   out[3],   1,        at.strideH, at.strideW, at.padH, at.padW};
}

void requireF32Rank4(const InferArgs& a, size_t i, const char* what, const char* layout) {
  if (a.in[i]->dtype != Dtype::F32)
    a.fail(a.name() + ": " + what + " must be f32, got " + std::string(dtypeName(a.in[i]->dtype)));
  if (a.in[i]->shape.size() != 4)
    a.fail(a.name() + ": " + what + " must be rank-4 " + layout + ", got " +
           showShape(a.in[i]->shape));
}

// The input position a tap maps an output to, skipping padding (for conv and pool).
std::string forwardTaps(const ConvGeometry& g, const std::string& inner) {
  return "    for (var kh = 0i; kh < " + si(g.kH) +
         "; kh++) {\n"
         "      let hi = ho * " +
         si(g.sH) + " + kh - " + si(g.pH) +
         ";\n"
         "      if (hi < 0i || hi >= " +
         si(g.h) +
         ") { continue; }\n"
         "      for (var kw = 0i; kw < " +
         si(g.kW) +
         "; kw++) {\n"
         "        let wi = wo * " +
         si(g.sW) + " + kw - " + si(g.pW) +
         ";\n"
         "        if (wi < 0i || wi >= " +
         si(g.w) + ") { continue; }\n" + inner + "      }\n    }\n";
}

// The output positions whose window covers input (hi, wi) through tap (kh, kw).
std::string backwardTaps(const ConvGeometry& g, const std::string& inner) {
  return "    for (var kh = 0i; kh < " + si(g.kH) +
         "; kh++) {\n"
         "      let nh = hi + " +
         si(g.pH) +
         " - kh;\n"
         "      if (nh < 0i || nh % " +
         si(g.sH) + " != 0i || nh / " + si(g.sH) + " >= " + si(g.hOut) +
         ") { continue; }\n"
         "      let ho = nh / " +
         si(g.sH) +
         ";\n"
         "      for (var kw = 0i; kw < " +
         si(g.kW) +
         "; kw++) {\n"
         "        let nw = wi + " +
         si(g.pW) +
         " - kw;\n"
         "        if (nw < 0i || nw % " +
         si(g.sW) + " != 0i || nw / " + si(g.sW) + " >= " + si(g.wOut) +
         ") { continue; }\n"
         "        let wo = nw / " +
         si(g.sW) + ";\n" + inner + "      }\n    }\n";
}

// Decomposes i over a 4-D [n0, n1, n2, n3] shape into signed coordinates.
std::string coords4(const std::array<int64_t, 4>& s, const std::array<const char*, 4>& names) {
  return std::string("  let ") + names[3] + " = i32(i % " + u(s[3]) + ");\n  let " + names[2] +
         " = i32((i / " + u(s[3]) + ") % " + u(s[2]) + ");\n  let " + names[1] + " = i32((i / " +
         u(s[3] * s[2]) + ") % " + u(s[1]) + ");\n  let " + names[0] + " = i32(i / " +
         u(s[3] * s[2] * s[1]) + ");\n";
}

// Argmax of the pooling window of output (ho, wo) in plane `plane`, first maximum winning.
std::string poolWindow(const ConvGeometry& g) {
  return "  var m = -3.4e38;\n  var arg = -1i;\n" +
         forwardTaps(g, "        let v = input[plane + hi * " + si(g.w) +
                            " + wi];\n"
                            "        if (v > m) { m = v; arg = hi * " +
                            si(g.w) + " + wi; }\n");
}

}  // namespace

void registerConvOps(OpTable& t) {
  const std::vector<std::string_view> convAttrs = {"strideH", "strideW", "padH", "padW", "groups"};
  t.push_back(
      {.kind = OpKind::Conv2d,
       .name = "conv2d",
       .inputNames = {"input", "weight"},
       .attrNames = convAttrs,
       .infer =
           [](const InferArgs& a) {
             requireF32Rank4(a, 0, "input", "[B, C_in, H, W]");
             requireF32Rank4(a, 1, "weight", "[C_out, C_in/groups, K_h, K_w]");
             const Shape &in = a.in[0]->shape, &w = a.in[1]->shape;
             const int64_t g = a.attrs.groups;
             if (g < 1)
               a.fail(a.name() + ": groups must be a positive integer, got " + std::to_string(g));
             if (in[1] % g != 0)
               a.fail(a.name() + ": input C_in=" + std::to_string(in[1]) +
                      " is not divisible by groups=" + std::to_string(g));
             if (w[0] % g != 0)
               a.fail(a.name() + ": weight C_out=" + std::to_string(w[0]) +
                      " is not divisible by groups=" + std::to_string(g));
             if (in[1] / g != w[1]) {
               a.fail(a.name() + ": input " + showShape(in) + " and weight " + showShape(w) +
                      ": weight's second dim must be C_in/groups=" + std::to_string(in[1] / g) +
                      " (C_in=" + std::to_string(in[1]) + ", groups=" + std::to_string(g) + ")");
             }
             const int64_t ho = spatialOut(a, in[2], w[2], a.attrs.strideH, a.attrs.padH, "H");
             const int64_t wo = spatialOut(a, in[3], w[3], a.attrs.strideW, a.attrs.padW, "W");
             return OutType{{in[0], w[0], ho, wo}, Dtype::F32};
           },
       .eval =
           [](const EvalArgs& e) {
             const ConvGeometry g = convGeometry(e.in[0]->shape, e.in[1]->shape, e.out.shape, e.op.attrs);
             const float* x = e.in[0]->f.data();
             const float* w = e.in[1]->f.data();
             HostTensor r = HostTensor::zeros(e.out.shape, Dtype::F32);
             size_t o = 0;
             for (int64_t b = 0; b < g.batch; ++b)
               for (int64_t co = 0; co < g.cOut; ++co)
                 for (int64_t ho = 0; ho < g.hOut; ++ho)
                   for (int64_t wo = 0; wo < g.wOut; ++wo, ++o) {
                     const int64_t grp = co / g.cOutPerG();
                     double s = 0;
                     for (int64_t cl = 0; cl < g.cInPerG; ++cl)
                       for (int64_t kh = 0; kh < g.kH; ++kh) {
                         const int64_t hi = ho * g.sH + kh - g.pH;
                         if (hi < 0 || hi >= g.h) continue;
                         for (int64_t kw = 0; kw < g.kW; ++kw) {
                           const int64_t wi = wo * g.sW + kw - g.pW;
                           if (wi < 0 || wi >= g.w) continue;
                           const int64_t ci = grp * g.cInPerG + cl;
                           s += double{x[((b * g.cIn + ci) * g.h + hi) * g.w + wi]} *
                                double{w[((co * g.cInPerG + cl) * g.kH + kh) * g.kW + kw]};
                         }
                       }
                     r.f[o] = static_cast<float>(s);
                   }
             return r;
           },
       .differentiable = Differentiable::Yes,
       .grad =
           [](GradContext& c) {
             const Shape &in = c.in(0).shape(), &w = c.in(1).shape();
             OpAttrs at = c.attrs();
             at.inH = in[2];
             at.inW = in[3];
             c.accumulate(0, emit(OpKind::Conv2dInputGrad, {c.in(1), c.dy()}, at,
                                  internalSite("conv2dInputGrad", c.loc())));
             at = c.attrs();
             at.kH = w[2];
             at.kW = w[3];
             c.accumulate(1, emit(OpKind::Conv2dWeightGrad, {c.in(0), c.dy()}, at,
                                  internalSite("conv2dWeightGrad", c.loc())));
           }});

  std::vector<std::string_view> inputGradAttrs = {"inH", "inW"};
  inputGradAttrs.insert(inputGradAttrs.end(), convAttrs.begin(), convAttrs.end());
  t.push_back(
      {.kind = OpKind::Conv2dInputGrad,
       .name = "conv2d_input_grad",
       .inputNames = {"weight", "dy"},
       .attrNames = inputGradAttrs,
       .infer =
           [](const InferArgs& a) {
             const Shape &w = a.in[0]->shape, &dy = a.in[1]->shape;
             if (w.size() != 4 || dy.size() != 4 || dy[1] != w[0]) {
               a.fail(a.name() + ": dy " + showShape(dy) + " doesn't match weight " + showShape(w));
             }
             return OutType{{dy[0], w[1] * a.attrs.groups, a.attrs.inH, a.attrs.inW}, Dtype::F32};
           },
       .eval =
           [](const EvalArgs& e) {
             const ConvGeometry g = convGeometry(e.out.shape, e.in[0]->shape, e.in[1]->shape, e.op.attrs);
             const float* w = e.in[0]->f.data();
             const float* dy = e.in[1]->f.data();
             HostTensor r = HostTensor::zeros(e.out.shape, Dtype::F32);
             size_t o = 0;
             for (int64_t b = 0; b < g.batch; ++b)
               for (int64_t ci = 0; ci < g.cIn; ++ci)
                 for (int64_t hi = 0; hi < g.h; ++hi)
                   for (int64_t wi = 0; wi < g.w; ++wi, ++o) {
                     const int64_t grp = ci / g.cInPerG, cl = ci - grp * g.cInPerG;
                     double s = 0;
                     for (int64_t col = 0; col < g.cOutPerG(); ++col) {
                       const int64_t co = grp * g.cOutPerG() + col;
                       for (int64_t kh = 0; kh < g.kH; ++kh) {
                         int64_t ho = 0;
                         if (!tapSource(hi, g.pH, kh, g.sH, g.hOut, ho)) continue;
                         for (int64_t kw = 0; kw < g.kW; ++kw) {
                           int64_t wo = 0;
                           if (!tapSource(wi, g.pW, kw, g.sW, g.wOut, wo)) continue;
                           s += double{w[((co * g.cInPerG + cl) * g.kH + kh) * g.kW + kw]} *
                                double{dy[((b * g.cOut + co) * g.hOut + ho) * g.wOut + wo]};
                         }
                       }
                     }
                     r.f[o] = static_cast<float>(s);
                   }
             return r;
           },
       .differentiable = Differentiable::Rejected});

  std::vector<std::string_view> weightGradAttrs = {"kH", "kW"};
  weightGradAttrs.insert(weightGradAttrs.end(), convAttrs.begin(), convAttrs.end());
  t.push_back(
      {.kind = OpKind::Conv2dWeightGrad,
       .name = "conv2d_weight_grad",
       .inputNames = {"input", "dy"},
       .attrNames = weightGradAttrs,
       .infer =
           [](const InferArgs& a) {
             const Shape &in = a.in[0]->shape, &dy = a.in[1]->shape;
             if (in.size() != 4 || dy.size() != 4 || in[0] != dy[0]) {
               a.fail(a.name() + ": input " + showShape(in) + " doesn't match dy " + showShape(dy));
             }
             return OutType{{dy[1], in[1] / a.attrs.groups, a.attrs.kH, a.attrs.kW}, Dtype::F32};
           },
       .eval =
           [](const EvalArgs& e) {
             const ConvGeometry g = convGeometry(e.in[0]->shape, e.out.shape, e.in[1]->shape, e.op.attrs);
             const float* x = e.in[0]->f.data();
             const float* dy = e.in[1]->f.data();
             HostTensor r = HostTensor::zeros(e.out.shape, Dtype::F32);
             size_t o = 0;
             for (int64_t co = 0; co < g.cOut; ++co)
               for (int64_t cl = 0; cl < g.cInPerG; ++cl)
                 for (int64_t kh = 0; kh < g.kH; ++kh)
                   for (int64_t kw = 0; kw < g.kW; ++kw, ++o) {
                     const int64_t ci = (co / g.cOutPerG()) * g.cInPerG + cl;
                     double s = 0;
                     for (int64_t b = 0; b < g.batch; ++b)
                       for (int64_t ho = 0; ho < g.hOut; ++ho) {
                         const int64_t hi = ho * g.sH + kh - g.pH;
                         if (hi < 0 || hi >= g.h) continue;
                         for (int64_t wo = 0; wo < g.wOut; ++wo) {
                           const int64_t wi = wo * g.sW + kw - g.pW;
                           if (wi < 0 || wi >= g.w) continue;
                           s += double{x[((b * g.cIn + ci) * g.h + hi) * g.w + wi]} *
                                double{dy[((b * g.cOut + co) * g.hOut + ho) * g.wOut + wo]};
                         }
                       }
                     r.f[o] = static_cast<float>(s);
                   }
             return r;
           },
       .differentiable = Differentiable::Rejected});

  const std::vector<std::string_view> poolAttrs = {"kH",      "kW",   "strideH",
                                                   "strideW", "padH", "padW"};
  t.push_back({.kind = OpKind::MaxPool2d,
               .name = "max_pool_2d",
               .inputNames = {"input"},
               .attrNames = poolAttrs,
               .infer =
                   [](const InferArgs& a) {
                     requireF32Rank4(a, 0, "input", "[B, C, H, W]");
                     const Shape& in = a.in[0]->shape;
                     const int64_t ho =
                         spatialOut(a, in[2], a.attrs.kH, a.attrs.strideH, a.attrs.padH, "H");
                     const int64_t wo =
                         spatialOut(a, in[3], a.attrs.kW, a.attrs.strideW, a.attrs.padW, "W");
                     return OutType{{in[0], in[1], ho, wo}, Dtype::F32};
                   },
               .eval =
                   [](const EvalArgs& e) {
                     const ConvGeometry g = poolGeometry(e.in[0]->shape, e.out.shape, e.op.attrs);
                     HostTensor r = HostTensor::zeros(e.out.shape, Dtype::F32);
                     size_t o = 0;
                     for (int64_t plane = 0; plane < g.batch * g.cIn; ++plane)
                       for (int64_t ho = 0; ho < g.hOut; ++ho)
                         for (int64_t wo = 0; wo < g.wOut; ++wo, ++o) {
                           int64_t ah = 0, aw = 0;
                           r.f[o] =
                               poolMax(e.in[0]->f.data() + plane * g.h * g.w, g, ho, wo, ah, aw);
                         }
                     return r;
                   },
               .differentiable = Differentiable::Yes,
               .grad =
                   [](GradContext& c) {
                     c.accumulate(0, emit(OpKind::MaxPool2dGrad, {c.in(0), c.dy()}, c.attrs(),
                                          internalSite("maxPool2dGrad", c.loc())));
                   }});
  // dy goes to the window's first maximum (recomputed, not stored).
  t.push_back({.kind = OpKind::MaxPool2dGrad,
               .name = "max_pool_2d_grad",
               .inputNames = {"input", "dy"},
               .attrNames = poolAttrs,
               .infer =
                   [](const InferArgs& a) {
                     return OutType{a.in[0]->shape, Dtype::F32};
                   },
               .eval =
                   [](const EvalArgs& e) {
                     const ConvGeometry g = poolGeometry(e.in[0]->shape, e.in[1]->shape, e.op.attrs);
                     HostTensor r = HostTensor::zeros(e.out.shape, Dtype::F32);
                     for (int64_t plane = 0; plane < g.batch * g.cIn; ++plane) {
                       const float* x = e.in[0]->f.data() + plane * g.h * g.w;
                       const float* dy = e.in[1]->f.data() + plane * g.hOut * g.wOut;
                       for (int64_t ho = 0; ho < g.hOut; ++ho)
                         for (int64_t wo = 0; wo < g.wOut; ++wo) {
                           int64_t ah = 0, aw = 0;
                           poolMax(x, g, ho, wo, ah, aw);
                           if (ah >= 0)
                             r.f[static_cast<size_t>(plane * g.h * g.w + ah * g.w + aw)] +=
                                 dy[ho * g.wOut + wo];
                         }
                     }
                     return r;
                   },
               .differentiable = Differentiable::Rejected});

  kernelOf(t, OpKind::Conv2d) = [](const KernelArgs& a) {
    const ConvGeometry g = convGeometry(a.in(0).shape, a.in(1).shape, a.out().shape, a.op.attrs);
    return elementwise(
        a, shapeSize(a.out().shape),
        coords4({g.batch, g.cOut, g.hOut, g.wOut}, {"b", "co", "ho", "wo"}) + "  let grp = co / " +
            si(g.cOutPerG()) +
            ";\n  var s = 0.0;\n"
            "  for (var cl = 0i; cl < " +
            si(g.cInPerG) +
            "; cl++) {\n"
            "    let ci = grp * " +
            si(g.cInPerG) + " + cl;\n" +
            forwardTaps(g, "        s += input[((b * " + si(g.cIn) + " + ci) * " + si(g.h) +
                               " + hi) * " + si(g.w) + " + wi] * weight[((co * " + si(g.cInPerG) +
                               " + cl) * " + si(g.kH) + " + kh) * " + si(g.kW) + " + kw];\n") +
            "  }\n  out[i] = s;\n");
  };
  kernelOf(t, OpKind::Conv2dInputGrad) = [](const KernelArgs& a) {
    const ConvGeometry g = convGeometry(a.out().shape, a.in(0).shape, a.in(1).shape, a.op.attrs);
    return elementwise(
        a, shapeSize(a.out().shape),
        coords4({g.batch, g.cIn, g.h, g.w}, {"b", "ci", "hi", "wi"}) + "  let grp = ci / " +
            si(g.cInPerG) + ";\n  let cl = ci - grp * " + si(g.cInPerG) +
            ";\n  var s = 0.0;\n"
            "  for (var col = 0i; col < " +
            si(g.cOutPerG()) +
            "; col++) {\n"
            "    let co = grp * " +
            si(g.cOutPerG()) + " + col;\n" +
            backwardTaps(g, "        s += weight[((co * " + si(g.cInPerG) + " + cl) * " + si(g.kH) +
                                " + kh) * " + si(g.kW) + " + kw] * dy[((b * " + si(g.cOut) +
                                " + co) * " + si(g.hOut) + " + ho) * " + si(g.wOut) + " + wo];\n") +
            "  }\n  out[i] = s;\n");
  };
  // Σ over (b, ho, wo) of input · dy. As upstream: a small weight over a long reduction gets a
  // workgroup per weight element, 256 threads striding the flattened (b, ho, wo) index, then a
  // tree in shared memory; otherwise one thread per weight element loops b, ho, wo in order.
  kernelOf(t, OpKind::Conv2dWeightGrad) = [](const KernelArgs& a) {
    const ConvGeometry g = convGeometry(a.in(0).shape, a.out().shape, a.in(1).shape, a.op.attrs);
    const std::string coords =
        coords4({g.cOut, g.cInPerG, g.kH, g.kW}, {"co", "cl", "kh", "kw"}) + "  let ci = (co / " +
        si(g.cOutPerG()) + ") * " + si(g.cInPerG) + " + cl;\n  var s = 0.0;\n";
    const std::string term = "input[((b * " + si(g.cIn) + " + ci) * " + si(g.h) + " + hi) * " +
                             si(g.w) + " + wi] * dy[((b * " + si(g.cOut) + " + co) * " +
                             si(g.hOut) + " + ho) * " + si(g.wOut) + " + wo]";
    const int64_t weights = shapeSize(a.out().shape);
    const int64_t redLen = g.batch * g.hOut * g.wOut;
    if (treeReduces(weights, redLen)) {
      return perWorkgroup(
          a, weights,
          coords + "  for (var r = i32(lid); r < " + si(redLen) + "; r += " + si(kWorkgroupSize) +
              ") {\n"
              "    let b = r / " + si(g.hOut * g.wOut) + ";\n    let ho = (r / " + si(g.wOut) +
              ") % " + si(g.hOut) + ";\n    let wo = r % " + si(g.wOut) +
              ";\n"
              "    let hi = ho * " + si(g.sH) + " + kh - " + si(g.pH) + ";\n    let wi = wo * " +
              si(g.sW) + " + kw - " + si(g.pW) +
              ";\n"
              "    if (hi >= 0i && hi < " + si(g.h) + " && wi >= 0i && wi < " + si(g.w) +
              ") {\n      s = s + " + term + ";\n    }\n  }\n" + workgroupReduce("partial", "s") +
              "  if (lid == 0u) { out[i] = partial[0]; }\n");
    }
    return elementwise(a, weights,
                       coords + "  for (var b = 0i; b < " + si(g.batch) +
                           "; b++) {\n"
                           "    for (var ho = 0i; ho < " + si(g.hOut) +
                           "; ho++) {\n"
                           "      let hi = ho * " + si(g.sH) + " + kh - " + si(g.pH) +
                           ";\n"
                           "      if (hi < 0i || hi >= " + si(g.h) +
                           ") { continue; }\n"
                           "      for (var wo = 0i; wo < " + si(g.wOut) +
                           "; wo++) {\n"
                           "        let wi = wo * " + si(g.sW) + " + kw - " + si(g.pW) +
                           ";\n"
                           "        if (wi < 0i || wi >= " + si(g.w) +
                           ") { continue; }\n"
                           "        s = s + " + term + ";\n"
                           "      }\n    }\n  }\n  out[i] = s;\n");
  };
  fastKernelOf(t, OpKind::Conv2d) = fastConv2dKernel;
  fastKernelOf(t, OpKind::Conv2dInputGrad) = fastConv2dInputGradKernel;
  fastKernelOf(t, OpKind::Conv2dWeightGrad) = fastConv2dWeightGradKernel;
  kernelOf(t, OpKind::MaxPool2d) = [](const KernelArgs& a) {
    const ConvGeometry g = poolGeometry(a.in(0).shape, a.out().shape, a.op.attrs);
    return elementwise(a, shapeSize(a.out().shape),
                       coords4({g.batch, g.cIn, g.hOut, g.wOut}, {"b", "c", "ho", "wo"}) +
                           "  let plane = (b * " + si(g.cIn) + " + c) * " + si(g.h * g.w) + ";\n" +
                           poolWindow(g) + "  out[i] = m;\n");
  };
  // Gather form (no atomics): each input element sums dy over the windows whose argmax it is.
  kernelOf(t, OpKind::MaxPool2dGrad) = [](const KernelArgs& a) {
    const ConvGeometry g = poolGeometry(a.in(0).shape, a.in(1).shape, a.op.attrs);
    const std::string self = "hi0 * " + si(g.w) + " + wi0";
    const std::string window = poolWindow(g);
    return elementwise(
        a, shapeSize(a.out().shape),
        coords4({g.batch, g.cIn, g.h, g.w}, {"b", "c", "hi0", "wi0"}) + "  let plane = (b * " +
            si(g.cIn) + " + c) * " + si(g.h * g.w) + ";\n  let dyPlane = (b * " + si(g.cIn) +
            " + c) * " + si(g.hOut * g.wOut) +
            ";\n  var s = 0.0;\n  let hi = hi0;\n  let wi = wi0;\n" +
            backwardTaps(g, "        if (argmaxOf(plane, ho, wo) == " + self +
                                ") { s = s + dy[dyPlane + ho * " + si(g.wOut) + " + wo]; }\n") +
            "  out[i] = s;\n",
        "fn argmaxOf(plane : i32, ho : i32, wo : i32) -> i32 {\n" + window + "  return arg;\n}\n");
  };
}

}  // namespace tg::detail
