#include "matmul_fast.h"

#include <stdexcept>

namespace tg::detail {
namespace {

std::string n(int64_t v) {
  return std::to_string(v);
}

std::string lane(int j) {
  return std::string(1, "xyzw"[j]);
}

// One operand tile's load: the tile is `rows`×`cols` of a row-major matrix whose rows are
// `stride` long, read in groups of 4 along a row (one vec4 when `vec4`), `rowLimit`/`colLimit`
// bounding what exists (empty: always in range). Each invocation stores its group into
// workgroup memory through `store(r, c, value)`.
struct TileLoad {
  std::string src;       // the binding
  std::string base;      // flat index of the tile's (0, 0) element
  int64_t rows = 0, cols = 0, stride = 0;
  std::string rowLimit;  // r < rowLimit, where r is the tile-local row
  std::string colLimit;  // c < colLimit
  bool vec4 = false;
};

template <class Store>
std::string loadTile(const TileLoad& t, int64_t invocations, Store store) {
  const int64_t groups = t.rows * t.cols / 4, perRow = t.cols / 4;
  std::string s;
  for (int64_t g = 0; g * invocations < groups; ++g) {
    const std::string e = "e" + t.src + n(g);
    s += "    {\n      let " + e + " = lid + " + n(g * invocations) + "u;\n";
    // Fewer groups than invocations: the rest idle (no barrier inside, so no uniformity issue).
    const bool partial = (g + 1) * invocations > groups;
    const std::string ind = partial ? "        " : "      ";
    if (partial) s += "      if (" + e + " < " + n(groups) + "u) {\n";
    s += ind + "let r = " + e + " / " + n(perRow) + "u;\n" + ind + "let c = (" + e + " % " +
         n(perRow) + "u) * 4u;\n";
    s += ind + "var v = vec4<f32>(0.0);\n";
    const std::string at = t.base + " + r * " + n(t.stride) + "u + c";
    std::string rowOk = t.rowLimit.empty() ? "" : "r < " + t.rowLimit;
    const auto cond = [&](const std::string& col) {
      std::string c = rowOk;
      if (!t.colLimit.empty()) c += (c.empty() ? "" : " && ") + col + " < " + t.colLimit;
      return c;
    };
    if (t.vec4) {
      // Rows are whole vec4s (stride % 4 == 0), so a group is all in range or all out.
      const std::string c = cond("c");
      const std::string load = "v = " + t.src + "[(" + at + ") / 4u];";
      s += ind + (c.empty() ? load : "if (" + c + ") { " + load + " }") + "\n";
    } else {
      for (int j = 0; j < 4; ++j) {
        const std::string c = cond("c + " + n(j) + "u");
        const std::string load = "v." + lane(j) + " = " + t.src + "[" + at + " + " + n(j) + "u];";
        s += ind + (c.empty() ? load : "if (" + c + ") { " + load + " }") + "\n";
      }
    }
    for (int j = 0; j < 4; ++j) s += ind + store(j) + "\n";
    if (partial) s += "      }\n";
    s += "    }\n";
  }
  return s;
}

}  // namespace

// Each workgroup owns one BM×BN output block; K advances BK at a time through two workgroup
// tiles, A stored k-major (aT[kk·BM + row]) so both tiles are read along rows in the inner loop.
// Invocation (ty, tx) accumulates rows ty·TM.., columns tx·TN.. in TM·TN registers. Bounds
// checks appear only along dimensions that are not tile multiples (shapes are constants);
// out-of-range loads read 0, so partial tiles add nothing.
GemmTiling chooseTiling(int64_t batches, int64_t m, int64_t n) {
  const GemmTiling big;
  const int64_t blocks = batches * ((m + big.bm - 1) / big.bm) * ((n + big.bn - 1) / big.bn);
  if (blocks >= 128) return big;
  return {.bm = 32, .bn = 32, .bk = 16, .tm = 2, .tn = 2};
}

KernelSource fastMatmulKernel(const KernelArgs& a, bool batchedRhs,
                              std::optional<GemmTiling> tiling) {
  const Shape& x = a.in(0).shape;
  int64_t m = x[x.size() - 2];
  const int64_t k = x.back(), cols = a.in(1).shape.back();
  int64_t batches = shapeSize(a.out().shape) / (m * cols);
  if (!batchedRhs) {  // a shared rhs: the batches are just more rows
    m *= batches;
    batches = 1;
  }
  const GemmTiling g = tiling ? *tiling : chooseTiling(batches, m, cols);
  if (g.bk % 4 || g.bn % 4 || g.bm % g.tm || g.bn % g.tn || g.invocations() > kWorkgroupSize ||
      g.workgroupBytes() > 16384)
    throw std::logic_error("fastMatmulKernel: tiling outside WebGPU's default limits");
  const int64_t tilesM = (m + g.bm - 1) / g.bm, tilesN = (cols + g.bn - 1) / g.bn;
  const int64_t workgroups = batches * tilesM * tilesN, inv = g.invocations();
  const bool vecA = k % 4 == 0, vecB = cols % 4 == 0;
  const bool edgeM = m % g.bm != 0, edgeN = cols % g.bn != 0, edgeK = k % g.bk != 0;
  const std::string lhs = a.inName(0), rhs = a.inName(1);

  std::string w = "// fast matmul: " + n(batches) + " × [" + n(m) + ", " + n(k) + "] · [" + n(k) +
                  ", " + n(cols) + "], " + n(g.bm) + "×" + n(g.bn) + " tiles, " + n(g.tm) + "×" +
                  n(g.tn) + " per invocation\n";
  w += "var<workgroup> aT : array<f32, " + n(g.bk * g.bm) + ">;\n";
  w += "var<workgroup> bT : array<f32, " + n(g.bk * g.bn) + ">;\n";
  w += "@group(0) @binding(0) var<storage, read> " + lhs + " : array<" +
       (vecA ? "vec4<f32>" : "f32") + ">;\n";
  w += "@group(0) @binding(1) var<storage, read> " + rhs + " : array<" +
       (vecB ? "vec4<f32>" : "f32") + ">;\n";
  w += "@group(0) @binding(2) var<storage, read_write> out : array<f32>;\n";
  w += "@compute @workgroup_size(" + n(inv) +
       ")\nfn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : "
       "u32) {\n";
  w += "  let wg = wid.x + wid.y * " + u(kMaxWorkgroupsPerDim) + ";\n";
  w += "  if (wg >= " + u(workgroups) + ") { return; }\n";
  w += "  let bi = wg / " + u(tilesM * tilesN) + ";\n  let tile = wg % " + u(tilesM * tilesN) + ";\n";
  w += "  let row0 = (tile / " + u(tilesN) + ") * " + u(g.bm) + ";\n";
  w += "  let col0 = (tile % " + u(tilesN) + ") * " + u(g.bn) + ";\n";
  w += "  let aBase = bi * " + u(m * k) + " + row0 * " + u(k) + ";\n";
  w += "  let bBase = " + (batchedRhs ? "bi * " + u(k * cols) : std::string("0u")) + " + col0;\n";
  w += "  let ty = (lid / " + u(g.bn / g.tn) + ") * " + u(g.tm) + ";\n";
  w += "  let tx = (lid % " + u(g.bn / g.tn) + ") * " + u(g.tn) + ";\n";
  for (int64_t i = 0; i < g.tm; ++i)
    for (int64_t j = 0; j < g.tn; ++j) w += "  var c" + n(i) + "_" + n(j) + " = 0.0;\n";
  w += "  for (var k0 = 0u; k0 < " + u(k) + "; k0 += " + u(g.bk) + ") {\n";
  const std::string kLeft = edgeK ? "(" + u(k) + " - k0)" : "";
  w += loadTile({.src = lhs, .base = "aBase + k0", .rows = g.bm, .cols = g.bk, .stride = k,
                 .rowLimit = edgeM ? "(" + u(m) + " - row0)" : "", .colLimit = kLeft, .vec4 = vecA},
                inv, [&](int j) { return "aT[(c + " + n(j) + "u) * " + n(g.bm) + "u + r] = v." + lane(j) + ";"; });
  w += loadTile({.src = rhs, .base = "bBase + k0 * " + u(cols), .rows = g.bk, .cols = g.bn,
                 .stride = cols, .rowLimit = kLeft,
                 .colLimit = edgeN ? "(" + u(cols) + " - col0)" : "", .vec4 = vecB},
                inv, [&](int j) { return "bT[r * " + n(g.bn) + "u + c + " + n(j) + "u] = v." + lane(j) + ";"; });
  w += "    workgroupBarrier();\n";
  w += "    for (var kk = 0u; kk < " + u(g.bk) + "; kk++) {\n";
  for (int64_t i = 0; i < g.tm; ++i)
    w += "      let a" + n(i) + " = aT[kk * " + u(g.bm) + " + ty + " + u(i) + "];\n";
  for (int64_t j = 0; j < g.tn; ++j)
    w += "      let b" + n(j) + " = bT[kk * " + u(g.bn) + " + tx + " + u(j) + "];\n";
  for (int64_t i = 0; i < g.tm; ++i)
    for (int64_t j = 0; j < g.tn; ++j) {
      const std::string c = "c" + n(i) + "_" + n(j);
      w += "      " + c + " = " + c + " + a" + n(i) + " * b" + n(j) + ";\n";
    }
  w += "    }\n    workgroupBarrier();\n  }\n";
  w += "  let oBase = bi * " + u(m * cols) + ";\n";
  for (int64_t i = 0; i < g.tm; ++i) {
    w += "  {\n    let r = row0 + ty + " + u(i) + ";\n";
    for (int64_t j = 0; j < g.tn; ++j) {
      const std::string at = "out[oBase + r * " + u(cols) + " + col0 + tx + " + u(j) + "] = c" +
                             n(i) + "_" + n(j) + ";";
      std::string cond;
      if (edgeM) cond = "r < " + u(m);
      if (edgeN) cond += (cond.empty() ? "" : " && ") + ("col0 + tx + " + u(j) + " < " + u(cols));
      w += "    " + (cond.empty() ? at : "if (" + cond + ") { " + at + " }") + "\n";
    }
    w += "  }\n";
  }
  w += "}\n";
  return {std::move(w), workgroups * inv, static_cast<int>(inv)};
}

}  // namespace tg::detail
