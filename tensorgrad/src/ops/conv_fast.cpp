#include "conv_fast.h"

#include <array>
#include <functional>

namespace tg::detail {
namespace {

// out[r, c] = Σ_{k < depth} A(r, k) · B(k, c) for r < rows, c < cols, with A and B read through
// the convolution's buffers. In the kernel, row i of an invocation's block is `r<i>` and column j
// is `c<j>` (i32, clamped to the last row and column); `colSetup(j)` declares what stays fixed
// along k for column j, `kSetup` what the loop's `k` (i32) gives, `a(i)` and `b(j)` are the
// operands' values there, `store(i, j)` the statement writing `v` as the output of (r<i>, c<j>).
struct ImplicitProduct {
  std::string comment;
  int64_t rows = 0, cols = 0, depth = 0;
  std::function<std::string(int)> colSetup;
  std::string kSetup;
  std::function<std::string(int)> a, b;
  std::function<std::string(int, int)> store;
};

// Block of BR × BC outputs a workgroup (4 × 4 an invocation), its positions splitting K into
// `slices` that meet in workgroup memory.
struct ProductTiling {
  int64_t br = 16, bc = 16, slices = 1;
  int64_t positions() const { return (br / 4) * (bc / 4); }
};

// A CPU device runs a workgroup's invocations 8 to a SIMD register and loses most of its time to
// loads (bench/RESULTS.md, twenty-third session): 16 × 16 blocks in one slice. A GPU: a long sum
// (a weight gradient over every position of the batch) gets one 4 × 4 block a workgroup and 256
// slices, so a few hundred outputs still fill it; a short one, 8 × 16 blocks in 4 slices (32
// invocations), which on an H100 (2026-11-28, RESULTS) ran the mnist sample's convolutions in 49
// and its input gradient in 44 µs against 62 and 131 with 16 × 64 blocks in one slice, 66 and 46
// with 16 × 16 in 16 slices.
ProductTiling chooseProductTiling(const ImplicitProduct& p, bool cpuDevice) {
  if (cpuDevice) return {.br = 16, .bc = 16, .slices = 1};
  if (p.depth >= 1024) return {.br = 4, .bc = 4, .slices = kWorkgroupSize};
  return {.br = 8, .bc = 16, .slices = 4};
}

KernelSource implicitProductKernel(const KernelArgs& args, const ImplicitProduct& p,
                                   const ProductTiling& t) {
  const int64_t P = t.positions(), S = t.slices, inv = P * S;
  const int64_t tilesR = ceilDiv(p.rows, t.br), tilesC = ceilDiv(p.cols, t.bc);
  const int64_t workgroups = tilesR * tilesC;
  std::string w = "// fast conv: " + p.comment + ", [" + n(p.rows) + " x " + n(p.depth) + "] · [" +
                  n(p.depth) + " x " + n(p.cols) + "] implicit, blocks " + n(t.br) + "x" +
                  n(t.bc) + " of 4x4, " + n(S) + " slices\n";
  if (S > 1) w += "var<workgroup> red : array<f32, " + n(S * P * 16) + ">;\n";
  w += args.bindings();
  w += "@compute @workgroup_size(" + n(inv) +
       ")\nfn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : "
       "u32) {\n";
  w += "  let wg = wid.x + wid.y * " + u(kMaxWorkgroupsPerDim) + ";\n";
  w += "  if (wg >= " + u(workgroups) + ") { return; }\n";
  // Neighbouring invocations take neighbouring slices: their k are neighbours in memory.
  w += "  let s = i32(lid % " + u(S) + ");\n  let pos = i32(lid / " + u(S) + ");\n";
  w += "  let rowAt = i32(wg / " + u(tilesC) + ") * " + si(t.br) + " + (pos / " + si(t.bc / 4) +
       ") * 4i;\n";
  w += "  let colAt = i32(wg % " + u(tilesC) + ") * " + si(t.bc) + " + (pos % " + si(t.bc / 4) +
       ") * 4i;\n";
  for (int i = 0; i < 4; ++i) {
    w += "  let r" + n(i) + " = min(rowAt + " + si(i) + ", " + si(p.rows - 1) + ");\n";
  }
  for (int j = 0; j < 4; ++j) {
    w += "  let c" + n(j) + " = min(colAt + " + si(j) + ", " + si(p.cols - 1) + ");\n";
    w += p.colSetup(j);
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) w += "  var acc" + n(i) + n(j) + " = 0.0;\n";
  w += "  for (var k = s; k < " + si(p.depth) + "; k += " + si(S) + ") {\n" + p.kSetup;
  for (int i = 0; i < 4; ++i) w += "    let a" + n(i) + " = " + p.a(i) + ";\n";
  for (int j = 0; j < 4; ++j) w += "    let b" + n(j) + " = " + p.b(j) + ";\n";
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const std::string acc = "acc" + n(i) + n(j);
      w += "    " + acc + " = " + acc + " + a" + n(i) + " * b" + n(j) + ";\n";
    }
  w += "  }\n";
  const auto guardedStore = [&](int i, int j, const std::string& v) {
    return "if (rowAt + " + si(i) + " < " + si(p.rows) + " && colAt + " + si(j) + " < " + si(p.cols) +
           ") { let v = " + v + "; " + p.store(i, j) + " }";
  };
  if (S == 1) {
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) w += "  " + guardedStore(i, j, "acc" + n(i) + n(j)) + "\n";
    w += "}\n";
    return {std::move(w), workgroups * inv, static_cast<int>(inv)};
  }
  // Slice s's 16 partials of position pos at red[s·16P + pos·16 + e]; then the invocation of
  // slice 0 at each position adds its position's partials in slice order.
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      w += "  red[u32(s) * " + u(16 * P) + " + u32(pos) * 16u + " + u(i * 4 + j) + "] = acc" +
           n(i) + n(j) + ";\n";
  w += "  workgroupBarrier();\n  if (s == 0i) {\n";
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      w += "    {\n      var t = 0.0;\n      for (var q = 0u; q < " + u(S) + "; q++) { t = t + red[q * " +
           u(16 * P) + " + u32(pos) * 16u + " + u(i * 4 + j) + "]; }\n";
      w += "      " + guardedStore(i, j, "t") + "\n    }\n";
    }
  w += "  }\n}\n";
  return {std::move(w), workgroups * inv, static_cast<int>(inv)};
}

// `let`s splitting the flat i32 index `flat` over [*, e1, e2] into `n0`, `n1`, `n2`.
std::string split3(const std::string& flat, const std::array<std::string, 3>& names, int64_t e1,
                   int64_t e2, const std::string& indent) {
  return indent + "let " + names[0] + " = " + flat + " / " + si(e1 * e2) + ";\n" + indent + "let " +
         names[1] + " = (" + flat + " / " + si(e2) + ") % " + si(e1) + ";\n" + indent + "let " +
         names[2] + " = " + flat + " % " + si(e2) + ";\n";
}

// `value` of buffer `buffer` at `index` where `ok`, else 0 (a padded position).
std::string padded(const std::string& buffer, const std::string& index, const std::string& ok) {
  return "select(0.0, " + buffer + "[u32(select(0i, " + index + ", " + ok + "))], " + ok + ")";
}

}  // namespace

// out[b, co, ho, wo] = Σ_{ci, kh, kw} w[co, ci, kh, kw] · x[b, ci, ho·sH + kh − pH, wo·sW + kw − pW]:
// rows co, columns the output positions (b, ho, wo), depth (ci, kh, kw).
KernelSource fastConv2dKernel(const KernelArgs& a) {
  const ConvGeometry g = convGeometry(a.in(0).shape, a.in(1).shape, a.out().shape, a.op.attrs);
  if (g.groups != 1) return {};
  const std::string x = a.inName(0), wt = a.inName(1);
  const int64_t taps = g.kH * g.kW;
  ImplicitProduct p{.comment = "conv2d",
                    .rows = g.cOut,
                    .cols = g.batch * g.hOut * g.wOut,
                    .depth = g.cIn * taps};
  p.colSetup = [&](int j) {
    const std::string s = n(j);
    return split3("c" + s, {"b" + s + "_", "ho" + s, "wo" + s}, g.hOut, g.wOut, "  ");
  };
  p.kSetup = split3("k", {"ci", "kh", "kw"}, g.kH, g.kW, "    ");
  for (int j = 0; j < 4; ++j) {
    const std::string s = n(j);
    p.kSetup += "    let hi" + s + " = ho" + s + " * " + si(g.sH) + " + kh - " + si(g.pH) +
                ";\n    let wi" + s + " = wo" + s + " * " + si(g.sW) + " + kw - " + si(g.pW) +
                ";\n";
  }
  p.a = [&](int i) { return wt + "[u32(r" + n(i) + " * " + si(g.cIn * taps) + " + k)]"; };
  p.b = [&](int j) {
    const std::string s = n(j);
    return padded(x,
                  "((b" + s + "_ * " + si(g.cIn) + " + ci) * " + si(g.h) + " + hi" + s + ") * " +
                      si(g.w) + " + wi" + s,
                  "hi" + s + " >= 0i && hi" + s + " < " + si(g.h) + " && wi" + s + " >= 0i && wi" +
                      s + " < " + si(g.w));
  };
  p.store = [&](int i, int j) {
    const std::string s = n(j);
    return "out[u32(((b" + s + "_ * " + si(g.cOut) + " + r" + n(i) + ") * " + si(g.hOut) + " + ho" +
           s + ") * " + si(g.wOut) + " + wo" + s + ")] = v;";
  };
  return implicitProductKernel(a, p, chooseProductTiling(p, a.cpuDevice));
}

// dx[b, ci, hi, wi] = Σ_{co, kh, kw} w[co, ci, kh, kw] · dy[b, co, ho, wo] over the taps whose
// window reaches (hi, wi): ho = (hi + pH − kh) / sH where that divides and lands inside. Rows ci,
// columns the input positions (b, hi, wi), depth (co, kh, kw).
KernelSource fastConv2dInputGradKernel(const KernelArgs& a) {
  const ConvGeometry g = convGeometry(a.out().shape, a.in(0).shape, a.in(1).shape, a.op.attrs);
  if (g.groups != 1) return {};
  const std::string wt = a.inName(0), dy = a.inName(1);
  const int64_t taps = g.kH * g.kW;
  ImplicitProduct p{.comment = "conv2d_input_grad",
                    .rows = g.cIn,
                    .cols = g.batch * g.h * g.w,
                    .depth = g.cOut * taps};
  p.colSetup = [&](int j) {
    const std::string s = n(j);
    return split3("c" + s, {"b" + s + "_", "hi" + s, "wi" + s}, g.h, g.w, "  ");
  };
  p.kSetup = split3("k", {"co", "kh", "kw"}, g.kH, g.kW, "    ");
  for (int j = 0; j < 4; ++j) {
    const std::string s = n(j);
    p.kSetup += "    let nh" + s + " = hi" + s + " + " + si(g.pH) + " - kh;\n    let nw" + s +
                " = wi" + s + " + " + si(g.pW) + " - kw;\n    let ho" + s + " = nh" + s + " / " +
                si(g.sH) + ";\n    let wo" + s + " = nw" + s + " / " + si(g.sW) + ";\n";
  }
  p.a = [&](int i) {
    return wt + "[u32(((co * " + si(g.cIn) + " + r" + n(i) + ") * " + si(g.kH) + " + kh) * " +
           si(g.kW) + " + kw)]";
  };
  p.b = [&](int j) {
    const std::string s = n(j);
    return padded(dy,
                  "((b" + s + "_ * " + si(g.cOut) + " + co) * " + si(g.hOut) + " + ho" + s + ") * " +
                      si(g.wOut) + " + wo" + s,
                  "nh" + s + " >= 0i && nh" + s + " % " + si(g.sH) + " == 0i && ho" + s + " < " +
                      si(g.hOut) + " && nw" + s + " >= 0i && nw" + s + " % " + si(g.sW) +
                      " == 0i && wo" + s + " < " + si(g.wOut));
  };
  p.store = [&](int i, int j) {
    const std::string s = n(j);
    return "out[u32(((b" + s + "_ * " + si(g.cIn) + " + r" + n(i) + ") * " + si(g.h) + " + hi" + s +
           ") * " + si(g.w) + " + wi" + s + ")] = v;";
  };
  return implicitProductKernel(a, p, chooseProductTiling(p, a.cpuDevice));
}

// dw[co, ci, kh, kw] = Σ_{b, ho, wo} dy[b, co, ho, wo] · x[b, ci, ho·sH + kh − pH, wo·sW + kw − pW]:
// rows co, columns the taps (ci, kh, kw), depth the output positions (b, ho, wo).
KernelSource fastConv2dWeightGradKernel(const KernelArgs& a) {
  const ConvGeometry g = convGeometry(a.in(0).shape, a.out().shape, a.in(1).shape, a.op.attrs);
  if (g.groups != 1) return {};
  const std::string x = a.inName(0), dy = a.inName(1);
  const int64_t taps = g.kH * g.kW;
  ImplicitProduct p{.comment = "conv2d_weight_grad",
                    .rows = g.cOut,
                    .cols = g.cIn * taps,
                    .depth = g.batch * g.hOut * g.wOut};
  p.colSetup = [&](int j) {
    const std::string s = n(j);
    return split3("c" + s, {"ci" + s, "kh" + s, "kw" + s}, g.kH, g.kW, "  ");
  };
  p.kSetup = split3("k", {"b", "ho", "wo"}, g.hOut, g.wOut, "    ");
  for (int j = 0; j < 4; ++j) {
    const std::string s = n(j);
    p.kSetup += "    let hi" + s + " = ho * " + si(g.sH) + " + kh" + s + " - " + si(g.pH) +
                ";\n    let wi" + s + " = wo * " + si(g.sW) + " + kw" + s + " - " + si(g.pW) +
                ";\n";
  }
  p.a = [&](int i) {
    return dy + "[u32(((b * " + si(g.cOut) + " + r" + n(i) + ") * " + si(g.hOut) + " + ho) * " +
           si(g.wOut) + " + wo)]";
  };
  p.b = [&](int j) {
    const std::string s = n(j);
    return padded(x,
                  "((b * " + si(g.cIn) + " + ci" + s + ") * " + si(g.h) + " + hi" + s + ") * " +
                      si(g.w) + " + wi" + s,
                  "hi" + s + " >= 0i && hi" + s + " < " + si(g.h) + " && wi" + s + " >= 0i && wi" +
                      s + " < " + si(g.w));
  };
  p.store = [&](int i, int j) {
    return "out[u32(r" + n(i) + " * " + si(g.cIn * taps) + " + c" + n(j) + ")] = v;";
  };
  return implicitProductKernel(a, p, chooseProductTiling(p, a.cpuDevice));
}

}  // namespace tg::detail
