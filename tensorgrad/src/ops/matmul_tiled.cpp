// The fast matmul's tiled form (matmul_fast.h): workgroup tiles of both operands, walked along K,
// and product families over it.
#include <algorithm>

#include "matmul_emit.h"
#include "matmul_problem.h"
#include "matmul_row_softmax.h"

namespace tg::detail::matmul_emit {
namespace {

// One operand of the tiled form: a BK × BX tile (X = M for A, N for B) kept in workgroup memory
// k-major as vec4s of 4 consecutive x, so the inner loop reads whole vec4s. A source contiguous
// along x (B, or a transposed A) loads a vec4 where rows allow and stores it as is; a source
// contiguous along k (A, or a transposed B) gathers 4 rows at one k into a vec4 (32-byte
// segments per 8 lanes), and its rows are padded by one vec4 so those stores hit distinct banks.
struct TiledOperand {
  std::string name, smem, reg;  // binding, workgroup array, prefetch register prefix
  std::string base;             // batch offset
  int64_t bx = 0, bk = 0;       // tile extent along x and k
  int64_t x = 0;                // the operand's extent along x
  bool xContig = false;         // element (k, x) at k·X + x; else at x·K + k
  bool vec = false;             // the binding is array<vec4<f32>>
  std::string x0;               // the tile's first x ("row0" / "col0")
  std::string kDim;             // K as a runtime value (a product family), else a constant

  int64_t rowVec4() const { return bx / 4 + (xContig ? 0 : 1); }  // workgroup row stride
  int64_t groups() const { return bk * bx / 4; }

  // Tile-local k and x of group `g` of invocation `id` of the `inv` that load the tile (x a
  // multiple of 4).
  std::string place(int64_t g, int64_t inv, const std::string& id) const {
    const std::string e = "(" + id + " + " + u(g * inv) + ")";
    const std::string kk = xContig ? e + " / " + u(bx / 4) : e + " % " + u(bk);
    const std::string x4 = xContig ? e + " % " + u(bx / 4) : e + " / " + u(bk);
    return "  let " + reg + "k" + n(g) + " = " + kk + ";\n  let " + reg + "x" + n(g) + " = (" + x4 +
           ") * 4u;\n";
  }

  // Loads group g of the tile starting at k index `kt` of buffer `src` (this operand, or one K
  // part of it, `extent` long) into register reg<g>.
  std::string load(const std::string& src, int64_t extent, int64_t g, const std::string& kt,
                   const std::string& ind) const {
    const std::string r = reg + n(g), kk = "(" + kt + " + " + reg + "k" + n(g) + ")";
    const std::string xx = "(" + x0 + " + " + reg + "x" + n(g) + ")";
    const std::string kOk = extent % bk ? kk + " < " + u(extent) : "";
    std::string s = ind + r + " = vec4<f32>(0.0);\n";
    if (vec) {  // xContig and X % 4 == 0: the 4 values are all in range or all out
      const std::string xOk = x % bx ? xx + " < " + u(x) : "";
      return s + ind +
             guarded(both(kOk, xOk), r + " = " + src + "[(" + base + " + " + kk + " * " + u(x) +
                                         " + " + xx + ") / 4u];") +
             "\n";
    }
    for (int64_t j = 0; j < 4; ++j) {
      const std::string xj = xx + " + " + u(j);
      const std::string xOk = x % bx ? xj + " < " + u(x) : "";
      const std::string at = xContig ? kk + " * " + u(x) + " + " + xj
                                     : "(" + xj + ") * " + (kDim.empty() ? u(extent) : kDim) +
                                           " + " + kk;
      s += ind +
           guarded(both(kOk, xOk),
                   r + "." + lane(j) + " = " + src + "[" + base + " + " + at + "];") +
           "\n";
    }
    return s;
  }

  int64_t tileVec4() const { return bk * rowVec4(); }  // the tile in workgroup memory

  // Stores group g into the tile at vec4 `off` of the workgroup array ("" for the first).
  std::string store(int64_t g, const std::string& off) const {
    return "    " + smem + "[" + (off.empty() ? "" : off + " + ") + reg + "k" + n(g) + " * " +
           u(rowVec4()) + " + " + reg + "x" + n(g) + " / 4u] = " + reg + n(g) + ";\n";
  }
};

}  // namespace

// Tiled: out block BM×BN per workgroup; invocation (ty, tx) owns rows (ty + g·BM/TM)·4 + i and
// columns (tx + h·BN/TN)·4 + j, so a warp's reads of a k row are 16 consecutive vec4s (B) and
// one or two broadcast vec4s (A). The next K tile is loaded into registers while this one is
// multiplied (one workgroup buffer, two barriers a tile: a second buffer, storing the next tile
// after the multiply with one barrier a tile, ran 10-35% slower on an H100, 2026-11-26).
// With `family` (fastMatmulFamilyKernel), p is its first member and K is the member's, read at
// run time: every member's K a whole number of the slices' tiles, no edges, one part.
KernelSource tiledKernel(const MatmulProblem& p, const GemmTiling& g,
                         const std::vector<MatmulProblem>& family) {
  const int64_t inv = g.invocations(), thrM = g.bm / g.tm, thrN = g.bn / g.tn;
  // Sliced K (g.slices 2): two groups of `pos` invocations each walk half of K through tiles of
  // their own, then swap the partial sums of the accumulator rows the other group stores.
  const int64_t S = g.slices, pos = inv / S, kLen = p.k / S;
  const std::string kDim = family.empty() ? "" : "kDim";
  const std::string sliceK = family.empty() ? u(kLen) : S > 1 ? "(kDim / " + u(S) + ")" : "kDim";
  // Operand `tag` ("a" or "b"): its arrays and registers named by the tag, vec4 loads where
  // its x axis is contiguous and whole vec4s.
  const auto operand = [&](const std::string& name, const std::string& tag, int64_t bx,
                           int64_t x, bool xContig, const std::string& x0) {
    return TiledOperand{.name = name,
                        .smem = tag + "S",
                        .reg = "p" + tag,
                        .base = tag + "Base",
                        .bx = bx,
                        .bk = g.bk,
                        .x = x,
                        .xContig = xContig,
                        .vec = xContig && x % 4 == 0,
                        .x0 = x0,
                        .kDim = kDim};
  };
  TiledOperand a = operand(p.lhs, "a", g.bm, p.m, p.transA, "row0");
  TiledOperand b = operand(p.rhs, "b", g.bn, p.n, !p.transB, "col0");
  const bool vecOut = p.n % 4 == 0 && vec4Stores(p);
  std::string w =
      head(p, g, a.vec, b.vec, vecOut,
           "var<workgroup> aS : array<vec4<f32>, " + n(S * a.tileVec4()) + ">;\n" +
               "var<workgroup> bS : array<vec4<f32>, " + n(S * b.tileVec4()) + ">;\n" +
               (p.rowSoftmax ? "var<workgroup> rS : array<vec4<f32>, " +
                                   n(rowSoftmaxBytes(g) / 16) + ">;\n"
                             : ""),
           family);
  const std::string id = S > 1 ? "pl" : "lid";  // the invocation within its slice
  if (S > 1)
    w += "  let ks = lid / " + u(pos) + ";\n  let pl = lid % " + u(pos) + ";\n  let kS = ks * " +
         sliceK + ";\n  let aOff = ks * " + u(a.tileVec4()) + ";\n  let bOff = ks * " +
         u(b.tileVec4()) + ";\n";
  if (g.laneRows) {
    const int64_t wm = g.laneRows, wn = kLanes / wm;
    w += "  let warp = " + id + " / " + u(kLanes) + ";\n  let lane = " + id + " % " + u(kLanes) +
         ";\n";
    w += "  let ty = (warp / " + u(thrN / wn) + ") * " + u(wm) + " + lane / " + u(wn) + ";\n";
    w += "  let tx = (warp % " + u(thrN / wn) + ") * " + u(wn) + " + lane % " + u(wn) + ";\n";
  } else {
    w += "  let ty = " + id + " / " + u(thrN) + ";\n  let tx = " + id + " % " + u(thrN) + ";\n";
  }
  for (const TiledOperand* o : {&a, &b}) {
    for (int64_t q = 0; q < o->groups() / pos; ++q) {
      w += o->place(q, pos, id) + "  var " + o->reg + n(q) + " = vec4<f32>(0.0);\n";
    }
  }
  for (int64_t r = 0; r < g.tm; ++r)
    for (int64_t h = 0; h < g.tn / 4; ++h)
      w += "  var c" + n(r) + "_" + n(h) + " = vec4<f32>(0.0);\n";
  // Loads the K tile from `kt` into the prefetch registers. With K in parts, a tile lies in one
  // part (BK divides each), the same for the whole slice.
  const std::vector<int64_t> parts = partsOf(p);
  const auto loadTile = [&](const std::string& kt, const std::string& ind) {
    const auto from = [&](size_t part, const std::string& at, const std::string& in) {
      std::string s;
      for (const TiledOperand* o : {&a, &b})
        for (int64_t q = 0; q < o->groups() / pos; ++q)
          s += o->load(partName(o->name, part), parts[part], q, at, in);
      return s;
    };
    if (parts.size() == 1 || kt == "0u") return from(0, kt, ind);
    std::string s;
    int64_t start = 0;
    for (size_t part = 0; part < parts.size(); ++part) {
      const bool last = part + 1 == parts.size();
      s += (part ? " else " : ind) +
           (last ? std::string("{\n") : "if (" + kt + " < " + u(start + parts[part]) + ") {\n");
      s += from(part, start ? "(" + kt + " - " + u(start) + ")" : kt, ind + "  ") + ind + "}";
      start += parts[part];
    }
    return s + "\n";
  };
  const std::string k0 = S > 1 ? "kS + k0" : "k0";
  w += loadTile(S > 1 ? "kS" : "0u", "  ");
  w += "  for (var k0 = 0u; k0 < " + sliceK + "; k0 += " + u(g.bk) + ") {\n";
  for (const TiledOperand* o : {&a, &b})
    for (int64_t q = 0; q < o->groups() / pos; ++q)
      w += o->store(q, S > 1 ? o->smem.substr(0, 1) + "Off" : "");
  w += "    workgroupBarrier();\n";
  if (kLen > g.bk || !family.empty()) {
    w += "    if (k0 + " + u(g.bk) + " < " + sliceK + ") {\n";
    w += loadTile(k0 + " + " + u(g.bk), "      ");
    w += "    }\n";
  }
  // The k loop unrolled: workgroup addresses become constant offsets from the invocation's base.
  w += S > 1 ? "    let aAt = aOff + ty;\n    let bAt = bOff + tx;\n"
             : "    let aAt = ty;\n    let bAt = tx;\n";
  for (int64_t kk = 0; kk < g.bk; ++kk) {
    for (int64_t q = 0; q < g.tm / 4; ++q)
      w += "    let a" + n(kk) + "_" + n(q) + " = aS[aAt + " + u(kk * a.rowVec4() + q * thrM) +
           "];\n";
    for (int64_t h = 0; h < g.tn / 4; ++h)
      w += "    let b" + n(kk) + "_" + n(h) + " = bS[bAt + " + u(kk * b.rowVec4() + h * thrN) +
           "];\n";
    for (int64_t r = 0; r < g.tm; ++r)
      for (int64_t h = 0; h < g.tn / 4; ++h) {
        const std::string c = "c" + n(r) + "_" + n(h);
        w += "    " + c + " = " + c + " + a" + n(kk) + "_" + n(r / 4) + "." + lane(r % 4) + " * b" +
             n(kk) + "_" + n(h) + ";\n";
      }
  }
  w += "    workgroupBarrier();\n  }\n";
  // Which accumulator holds row r, vec4 h of what this invocation stores, and that row's index
  // in the block's invocation grid: every row, or with sliced K the half its slice keeps (slice 0
  // the upper rows c0.., slice 1 the lower ones), each summed with the other slice's partial
  // (slice 0's + slice 1's, the same sum in either slice), which that slice passed through aS
  // in rounds as large as the tiles' memory allows.
  if (p.rowSoftmax) {
    w += rowSoftmaxStores(p, g) + "}\n";
    return {std::move(w), blocks(p, g.bm, g.bn) * inv, static_cast<int>(inv)};
  }
  const int64_t rows = S > 1 ? g.tm / 2 : g.tm;
  const auto acc = [&](int64_t r, int64_t h) {
    return std::string(S > 1 ? "f" : "c") + n(r) + "_" + n(h);
  };
  const auto rowOf = [&](int64_t r) {
    return "(ty + " + u(r / 4 * thrM) + (S > 1 ? " + ks * " + u(rows / 4 * thrM) : "") +
           ") * 4u + " + u(r % 4);
  };
  if (S > 1) {
    const int64_t per4 = g.tn / 4, pairs = rows * per4;
    int64_t per = pairs;  // vec4s an invocation passes a round (invalidReason keeps it ≥ 1)
    while (per * inv > S * a.tileVec4()) per /= 2;
    for (int64_t e0 = 0; e0 < pairs; e0 += per) {
      const int64_t end = std::min(e0 + per, pairs);
      for (int64_t e = e0; e < end; ++e) {
        const int64_t r = e / per4, h = e % per4;
        w += "  aS[" + u((e - e0) * inv) + " + lid] = select(c" + n(r) + "_" + n(h) + ", c" +
             n(r + rows) + "_" + n(h) + ", ks == 0u);\n";
      }
      w += "  workgroupBarrier();\n";
      for (int64_t e = e0; e < end; ++e) {
        const int64_t r = e / per4, h = e % per4;
        w += "  let " + acc(r, h) + " = select(c" + n(r + rows) + "_" + n(h) + ", c" + n(r) +
             "_" + n(h) + ", ks == 0u) + aS[" + u((e - e0) * inv) + " + (lid + " + u(pos) +
             ") % " + u(inv) + "];\n";
      }
      if (end < pairs) w += "  workgroupBarrier();\n";
    }
  }
  // The stores of product `q` (p, or a family's member).
  const auto stores = [&](const MatmulProblem& q) {
    std::string s;
    for (int64_t r = 0; r < rows; ++r) {
      s += "  {\n    let r = row0 + " + rowOf(r) + ";\n";
      const std::string rOk = q.m % g.bm ? "r < " + u(q.m) : "";
      for (int64_t h = 0; h < g.tn / 4; ++h) {
        const std::string c = acc(r, h);
        const std::string col = "col0 + (tx + " + u(h * thrN) + ") * 4u";
        if (vecOut) {
          const std::string cOk = q.n % g.bn ? col + " < " + u(q.n) : "";
          const std::string idx = "oBase + r * " + u(q.n) + " + " + col;
          const std::string st =
              q.epilogue ? store4(q, idx, {c + ".x", c + ".y", c + ".z", c + ".w"})
                         : "out[(" + idx + ") / 4u] = " + c + ";";
          s += "    " + guarded(both(rOk, cOk), st) + "\n";
        } else {
          for (int64_t j = 0; j < 4; ++j) {
            const std::string cj = col + " + " + u(j);
            const std::string cOk = q.n % g.bn ? cj + " < " + u(q.n) : "";
            s += "    " +
                 guarded(both(rOk, cOk),
                         store(q, "oBase + r * " + u(q.n) + " + " + cj, c + "." + lane(j))) +
                 "\n";
          }
        }
      }
      s += "  }\n";
    }
    return s;
  };
  if (family.empty()) w += stores(p);
  for (size_t j = 0; j < family.size(); ++j)
    w += "  if (member == " + u(static_cast<int64_t>(j)) + ") {\n" +
         memberNames(stores(family[j]), j) + "  }\n";
  w += "}\n";
  const int64_t workgroups = blocks(p, g.bm, g.bn);
  return {std::move(w), workgroups * inv, static_cast<int>(inv)};
}

}  // namespace tg::detail::matmul_emit
