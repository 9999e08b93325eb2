#include "matmul_fast.h"

#include <algorithm>
#include <array>
#include <bit>
#include <functional>
#include <regex>
#include <stdexcept>
#include <tuple>

#include "matmul_emit.h"
#include "matmul_problem.h"
#include "matmul_row_softmax.h"

namespace tg::detail {
namespace matmul_emit {

std::string both(const std::string& a, const std::string& b) {
  return a.empty() ? b : b.empty() ? a : a + " && " + b;
}

std::string guarded(const std::string& cond, const std::string& stmt) {
  return cond.empty() ? stmt : "if (" + cond + ") { " + stmt + " }";
}

// The K parts of `p` (MatmulProblem::kParts): one, all of K, where it names none.
std::vector<int64_t> partsOf(const MatmulProblem& p) {
  return p.kParts.empty() ? std::vector<int64_t>{p.k} : p.kParts;
}

// The binding name of K part `part` of an operand named `name` (no kernel names a value so).
std::string partName(const std::string& name, size_t part) {
  return part ? name + "_part" + n(static_cast<int64_t>(part)) : name;
}

// A product family's member j (fastMatmulFamilyKernel): the names its epilogue defines and reads
// made its own, e<j>_epilogue, e<j>_in<k>, ..., and its bindings moved from 2, 3, ... to `slot`,
// slot + 1, ...
std::string memberNames(const std::string& wgsl, size_t j) {
  const std::string e = "e" + std::to_string(j) + "_";
  return std::regex_replace(
      std::regex_replace(wgsl, std::regex(R"(\b(epilogue4|epilogue|outIndex)\()"), e + "$1("),
      std::regex(R"(\bin(\d+)\b)"), e + "in$1");
}
std::string memberEpilogue(const std::string& wgsl, size_t j, int64_t slot) {
  std::string out;
  const std::regex binding(R"(@binding\((\d+)\))");
  auto at = wgsl.cbegin();
  for (std::sregex_iterator it(wgsl.begin(), wgsl.end(), binding), end; it != end; ++it) {
    out.append(at, (*it)[0].first);
    out += "@binding(" + std::to_string(slot + std::stoll((*it)[1].str()) - 2) + ")";
    at = (*it)[0].second;
  }
  out.append(at, wgsl.cend());
  return memberNames(out, j);
}

// Whether 4 consecutive product elements (from a multiple of 4) may go out as one vec4: stored
// in place, or through permutes that keep runs of 4 (attention's head split and merge: D512's Q
// and K projections 67 → 55 µs, its step 19.3 → 18.7–18.8 ms pipelined; H100, bench/RESULTS.md).
bool vec4Stores(const MatmulProblem& p) {
  return !p.epilogue || !p.epilogue->permuted || p.epilogue->keepsRunsOf4;
}

// Stores product element `idx` (a flat index expression) with value `v`, through the epilogue.
// With an outer product (n = 1), the row's value it multiplies also goes to workgroup memory.
std::string store(const MatmulProblem& p, const std::string& idx, const std::string& v) {
  if (p.outer) {
    const std::string keep = "uS[" + idx + " - oBase - row0] = ";
    if (!p.epilogue) return "{ out[" + idx + "] = " + v + "; " + keep + v + "; }";
    std::string s = "{ let ev = epilogue(" + idx + ", " + v + "); out[" + idx + "] = ev; ";
    if (p.epilogue->second)
      s += "let sv = second(" + idx + ", ev); out2[" + idx + "] = sv; ";
    return s + keep + (p.outer->fromSecond ? "sv" : "ev") + "; }";
  }
  if (!p.epilogue) return "out[" + idx + "] = " + v + ";";
  if (p.epilogue->second)
    return "{ let ev = epilogue(" + idx + ", " + v + "); out[" + idx + "] = ev; out2[" + idx +
           "] = second(" + idx + ", ev); }";
  const std::string at = p.epilogue->permuted ? "outIndex(" + idx + ")" : idx;
  return "out[" + at + "] = epilogue(" + idx + ", " + v + ");";
}

// The outer product's pass (p.outer), after every row value of the workgroup's BM rows is in
// uS: element (r, j) = uS[r - row0] · v[j], through its epilogue, 4 columns an iteration where n
// allows. Iteration e = lid + invocations·t covers vec4 e mod (n / 4) of row e / (n / 4): where
// a row has as many vec4s as the workgroup has invocations, lid writes columns 4·lid .. 4·lid + 3
// of every row, the k its split-K lanes read of a [m, K]·[K, 1] product with K = n.
// The outer product's read of v at column j (4 columns from j where its n allows).
std::string outerV(const OuterProduct& o) {
  const bool v4 = o.n % 4 == 0;
  const std::string from = o.v == OuterProduct::Source::Lhs ? "lhs" : "rhs";
  return o.v == OuterProduct::Source::Own ? (v4 ? "orhs[j / 4u]" : "orhs[j]")
                                          : (v4 ? from + "Vec4(j / 4u)" : from + "Element(j)");
}

std::string outerPass(const MatmulProblem& p, const GemmTiling& g) {
  const OuterProduct& o = *p.outer;
  const bool v4 = o.n % 4 == 0;
  const std::string v = outerV(o);
  const int64_t per = v4 ? o.n / 4 : o.n;  // iterations a row
  std::string w = "  workgroupBarrier();\n";
  w += "  for (var e = lid; e < " + u(g.bm * per) + "; e += " + u(g.invocations()) + ") {\n";
  w += "    let r = row0 + e / " + u(per) + ";\n";
  std::string body;
  if (v4) {
    body = "let j = (e % " + u(per) + ") * 4u; let o = r * " + u(o.n) +
           " + j; let mm = uS[e / " + u(per) + "] * " + v + "; ";
    std::string value = "mm";
    if (!o.wgsl4.empty()) {
      value = "outerEpilogue4(o, mm)";
    } else if (!o.wgsl.empty()) {
      value = "vec4<f32>(";
      for (int64_t j = 0; j < 4; ++j)
        value += (j ? ", " : "") + std::string("outerEpilogue(o") + (j ? " + " + u(j) : "") +
                 ", mm." + lane(j) + ")";
      value += ")";
    }
    body += "out3[o / 4u] = " + value + ";";
  } else {
    body = "let j = e % " + u(per) + "; let o = r * " + u(o.n) + " + j; let mm = uS[e / " +
           u(per) + "] * " + v + "; out3[o] = " + (o.wgsl.empty() ? "mm" : "outerEpilogue(o, mm)") +
           ";";
  }
  w += "    " + guarded(p.m % g.bm ? "r < " + u(p.m) : "", body) + "\n  }\n";
  return w;
}

// Stores elements idx .. idx + 3 (idx a multiple of 4) as one vec4 through an epilogue that is
// unpermuted or keeps runs of 4.
std::string store4(const MatmulProblem& p, const std::string& idx,
                   const std::array<std::string, 4>& v) {
  std::array<std::string, 4> at;
  for (size_t j = 0; j < 4; ++j) at[j] = j ? "(" + idx + ") + " + u(static_cast<int64_t>(j)) : idx;
  if (p.epilogue && !p.epilogue->wgsl4.empty()) {  // unpermuted, its reads a vec4 at a time
    const std::string e = "epilogue4(" + idx + ", vec4<f32>(" + v[0] + ", " + v[1] + ", " + v[2] +
                          ", " + v[3] + "))";
    if (!p.epilogue->second) return "out[(" + idx + ") / 4u] = " + e + ";";
    std::string second = "vec4<f32>(";
    for (size_t j = 0; j < 4; ++j)
      second += (j ? ", " : "") + std::string("second(") + at[j] + ", ev." +
                lane(static_cast<int64_t>(j)) + ")";
    return "{ let ev = " + e + "; out[(" + idx + ") / 4u] = ev; out2[(" + idx + ") / 4u] = " +
           second + "); }";
  }
  if (p.epilogue && p.epilogue->second) {
    std::string s = "{ ", first = "vec4<f32>(", second = "vec4<f32>(";
    for (size_t j = 0; j < 4; ++j) {
      const std::string e = "ev" + n(static_cast<int64_t>(j));
      s += "let " + e + " = epilogue(" + at[j] + ", " + v[j] + "); ";
      first += (j ? ", " : "") + e;
      second += (j ? ", " : "") + std::string("second(") + at[j] + ", " + e + ")";
    }
    return s + "out[(" + idx + ") / 4u] = " + first + "); out2[(" + idx + ") / 4u] = " + second +
           "); }";
  }
  const std::string dest =
      p.epilogue && p.epilogue->permuted ? "outIndex(" + idx + ")" : "(" + idx + ")";
  std::string s = "out[" + dest + " / 4u] = vec4<f32>(";
  for (size_t j = 0; j < 4; ++j)
    s += (j ? ", " : "") + (p.epilogue ? "epilogue(" + at[j] + ", " + v[j] + ")" : v[j]);
  return s + ");";
}

// The shared head of both forms: bindings, entry point, the workgroup's batch and block.
std::string head(const MatmulProblem& p, const GemmTiling& g, bool vecA, bool vecB, bool vecOut,
                 const std::string& workgroupVars, const std::vector<MatmulProblem>& family) {
  const int64_t tiles = ceilDiv(p.m, g.bm) * ceilDiv(p.n, g.bn);
  const auto arr = [](bool v) { return v ? "array<vec4<f32>>" : "array<f32>"; };
  const std::string what = !p.rowSoftmax          ? "matmul"
                           : p.rowSoftmax->causal ? "causal softmax of a matmul's rows"
                                                  : "softmax gradient through a matmul's rows";
  std::string ks;
  for (const MatmulProblem& q : family) ks += (ks.empty() ? "" : ", ") + n(q.k);
  const std::string k = family.empty() ? n(p.k) : "K";
  std::string w = "// fast " + what + (family.empty() ? "" : " family") + ": " + n(p.batches) +
                  " × [" + n(p.m) + ", " + k + "]" + (p.transA ? "ᵀ" : "") + " · [" + k + ", " +
                  n(p.n) + "]" + (p.transB ? "ᵀ" : "") + ", " + g.describe() +
                  (family.empty() ? "" : ", K " + ks + " by member") + "\n";
  w += workgroupVars;
  w += "@group(0) @binding(0) var<storage, read> " + p.lhs + " : " + arr(vecA) + ";\n";
  w += "@group(0) @binding(1) var<storage, read> " + p.rhs + " : " + arr(vecB) + ";\n";
  const int64_t parts = static_cast<int64_t>(partsOf(p).size());
  for (int64_t s = 1; s < parts; ++s) {
    w += "@group(0) @binding(" + n(2 * s) + ") var<storage, read> " +
         partName(p.lhs, static_cast<size_t>(s)) + " : " + arr(vecA) + ";\n";
    w += "@group(0) @binding(" + n(2 * s + 1) + ") var<storage, read> " +
         partName(p.rhs, static_cast<size_t>(s)) + " : " + arr(vecB) + ";\n";
  }
  int64_t outBinding = 2 * parts;
  if (p.rowSoftmax && !p.rowSoftmax->causal)  // the softmax's output, read 4 at a time
    w += "@group(0) @binding(" + n(outBinding++) + ") var<storage, read> rowY : array<vec4<f32>>;\n";
  const auto epilogueOf = [&](const MatmulProblem& q) {
    return vecOut && !q.epilogue->wgsl4.empty() ? q.epilogue->wgsl4 : q.epilogue->wgsl;
  };
  if (family.empty()) {
    if (p.epilogue) w += epilogueOf(p);
    outBinding += static_cast<int64_t>(p.epilogue ? p.epilogue->bindings : 0);
  }
  for (size_t j = 0; j < family.size(); ++j) {
    if (!family[j].epilogue) continue;
    w += memberEpilogue(epilogueOf(family[j]), j, outBinding);
    outBinding += static_cast<int64_t>(family[j].epilogue->bindings);
  }
  const bool outerV4 = p.outer && p.outer->n % 4 == 0;
  if (p.outer) {
    if (p.outer->v == OuterProduct::Source::Own)
      w += "@group(0) @binding(" + n(outBinding++) + ") var<storage, read> orhs : " +
           std::string(arr(outerV4)) + ";\n";
    const std::string& epilogue =
        outerV4 && !p.outer->wgsl4.empty() ? p.outer->wgsl4 : p.outer->wgsl;
    w += epilogue;
    outBinding += static_cast<int64_t>(p.outer->bindings);
    // The operands' buffers, element by element and 4 at a time, where the outer product reads
    // them.
    const std::string reads = epilogue + outerV(*p.outer);
    for (const auto& [f, name, vec] :
         {std::tuple{std::string("lhs"), p.lhs, vecA}, {std::string("rhs"), p.rhs, vecB}}) {
      if (reads.find(f + "Element(") != std::string::npos)
        w += "fn " + f + "Element(i : u32) -> f32 {\n  return " +
             (vec ? name + "[i / 4u][i % 4u]" : name + "[i]") + ";\n}\n";
      if (reads.find(f + "Vec4(") != std::string::npos)
        w += "fn " + f + "Vec4(q : u32) -> vec4<f32> {\n  return " +
             (vec ? name + "[q]"
                  : "vec4<f32>(" + name + "[q * 4u], " + name + "[q * 4u + 1u], " + name +
                        "[q * 4u + 2u], " + name + "[q * 4u + 3u])") +
             ";\n}\n";
    }
  }
  w += "@group(0) @binding(" + n(outBinding) + ") var<storage, read_write> out : " +
       std::string(arr(vecOut)) + ";\n";
  if (p.epilogue && p.epilogue->second)
    w += "@group(0) @binding(" + n(++outBinding) + ") var<storage, read_write> out2 : " +
         std::string(arr(vecOut)) + ";\n";
  if (p.outer)
    w += "@group(0) @binding(" + n(++outBinding) + ") var<storage, read_write> out3 : " +
         std::string(arr(outerV4)) + ";\n";
  w += "@compute @workgroup_size(" + n(g.invocations()) +
       ")\nfn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : "
       "u32" +
       (family.empty() ? "" : ", @builtin(num_workgroups) nwg : vec3<u32>") + ") {\n";
  w += "  let wg = wid.x + wid.y * " + u(kMaxWorkgroupsPerDim) + ";\n";
  w += "  if (wg >= " + u(p.batches * tiles) + ") { return; }\n";
  w += "  let bi = wg / " + u(tiles) + ";\n  let tile = wg % " + u(tiles) + ";\n";
  if (!family.empty()) {  // the member: how many workgroups its dispatch adds past the blocks
    w += "  let member = nwg.x - " + u(tiles) + ";\n";
    std::string kDim = u(family[0].k);
    for (size_t j = 1; j < family.size(); ++j)
      kDim = "select(" + kDim + ", " + u(family[j].k) + ", member == " +
             u(static_cast<int64_t>(j)) + ")";
    w += "  let kDim = " + kDim + ";\n";
  }
  w += "  let row0 = (tile / " + u(ceilDiv(p.n, g.bn)) + ") * " + u(g.bm) + ";\n";
  w += "  let col0 = (tile % " + u(ceilDiv(p.n, g.bn)) + ") * " + u(g.bn) + ";\n";
  w += "  let aBase = bi * " + u(p.m * p.k) + ";\n";
  w += "  let bBase = " + (p.batchedRhs ? "bi * " + u(p.k * p.n) : std::string("0u")) + ";\n";
  w += "  let oBase = bi * " + u(p.m * p.n) + ";\n";
  return w;
}

}  // namespace matmul_emit

namespace {

using namespace matmul_emit;

// SplitK: invocation (p, s) of positions × slices owns rows ty·TM + i and columns tx·TN + j of
// the block and sums chunks s, s + S, s + 2S, ... of KC consecutive k (KC = 4 when K allows, so
// a row contiguous along k is read a vec4 at a time), reading the operands straight from the
// buffers: neighbouring slices read neighbouring k, so a warp's loads stay in few cache lines.
// The slices' partial blocks then meet in workgroup memory, summed in slice order or, where a
// workgroup has few outputs, by a tree. Rows and columns past the edge are clamped (read, never
// stored).
KernelSource splitKernel(const MatmulProblem& p, const GemmTiling& g) {
  const int64_t inv = g.invocations(), thrN = g.bn / g.tn, S = g.slices;
  const std::vector<int64_t> kParts = partsOf(p);
  const int64_t kc =
      std::all_of(kParts.begin(), kParts.end(), [](int64_t k) { return k % 4 == 0; }) ? 4 : 1;
  const bool edgeM = p.m % g.bm != 0, edgeN = p.n % g.bn != 0;
  // vec4 loads: along k for a k-contiguous operand, along x for an x-contiguous one whose
  // invocation owns 4 aligned consecutive x.
  const bool vecA = p.transA ? g.tm == 4 && p.m % 4 == 0 : kc == 4;
  const bool vecB = p.transB ? kc == 4 : g.tn == 4 && p.n % 4 == 0;
  const bool vecOut =
      S == 1 && g.tn == 4 && p.n % 4 == 0 && vec4Stores(p);
  const int64_t bmbn = g.bm * g.bn;
  std::string w = head(p, g, vecA, vecB, vecOut,
                       (S > 1 ? "var<workgroup> red : array<f32, " + n(S * bmbn) + ">;\n" : "") +
                           (p.outer ? "var<workgroup> uS : array<f32, " + n(g.bm) + ">;\n" : ""));
  // Which invocations of a warp share a slice: where an operand is k-contiguous, neighbours take
  // neighbouring slices, so their chunks of K sit side by side; where both are x-contiguous (a
  // weight gradient, the lhs read transposed), neighbours take neighbouring positions of one
  // slice and read along x. The mapping decides which invocation runs a slice, not which chunks a
  // slice sums or the order the slices meet in.
  if (p.transA && !p.transB)
    w += "  let pos = lid % " + u(inv / S) + ";\n  let s = lid / " + u(inv / S) + ";\n";
  else
    w += "  let s = lid % " + u(S) + ";\n  let pos = lid / " + u(S) + ";\n";
  w += "  let ty = pos / " + u(thrN) + ";\n  let tx = pos % " + u(thrN) + ";\n";
  // Clamped row / column indices (the first of 4 for an aligned vec4 group).
  for (int64_t i = 0; i < g.tm; ++i) {
    const std::string r = "row0 + ty * " + u(g.tm) + " + " + u(i);
    w += "  let ra" + n(i) + " = " + (edgeM ? "min(" + r + ", " + u(p.m - 1) + ")" : r) + ";\n";
  }
  for (int64_t j = 0; j < g.tn; ++j) {
    const std::string c = "col0 + tx * " + u(g.tn) + " + " + u(j);
    w += "  let cb" + n(j) + " = " + (edgeN ? "min(" + c + ", " + u(p.n - 1) + ")" : c) + ";\n";
  }
  if (p.transA && vecA && edgeM) w += "  let ra4 = min(row0 + ty * 4u, " + u(p.m - 4) + ");\n";
  if (!p.transB && vecB && edgeN) w += "  let cb4 = min(col0 + tx * 4u, " + u(p.n - 4) + ");\n";
  const std::string ra4 = edgeM ? "ra4" : "ra0", cb4 = edgeN ? "cb4" : "cb0";
  for (int64_t i = 0; i < g.tm; ++i)
    for (int64_t j = 0; j < g.tn; ++j) w += "  var c" + n(i) + "_" + n(j) + " = 0.0;\n";
  // The slice's sum over K, part by part (each from its own buffers, in k order within a part).
  for (size_t part = 0; part < kParts.size(); ++part) {
    const std::string lhs = partName(p.lhs, part), rhs = partName(p.rhs, part);
    const int64_t K = kParts[part];
    w += "  for (var k = s * " + u(kc) + "; k < " + u(K) + "; k += " + u(S * kc) + ") {\n";
    // a(i, q): A's row i at k + q; b(q, j): B's k + q at column j.
    std::function<std::string(int64_t, int64_t)> av, bv;
    if (!p.transA) {
      for (int64_t i = 0; i < g.tm; ++i) {
        if (vecA) {
          w += "    let a" + n(i) + " = " + lhs + "[(aBase + ra" + n(i) + " * " + u(K) +
               " + k) / 4u];\n";
        } else {
          w +=
              "    let a" + n(i) + " = " + lhs + "[aBase + ra" + n(i) + " * " + u(K) + " + k];\n";
        }
      }
      av = [vecA](int64_t i, int64_t q) { return "a" + n(i) + (vecA ? "." + lane(q) : ""); };
    } else {
      for (int64_t q = 0; q < kc; ++q) {
        const std::string kq = "(k + " + u(q) + ") * " + u(p.m);
        if (vecA) {
          w += "    let a" + n(q) + " = " + lhs + "[(aBase + " + kq + " + " + ra4 + ") / 4u];\n";
        } else {
          for (int64_t i = 0; i < g.tm; ++i)
            w += "    let a" + n(q) + "_" + n(i) + " = " + lhs + "[aBase + " + kq + " + ra" + n(i) +
                 "];\n";
        }
      }
      av = [vecA](int64_t i, int64_t q) {
        return vecA ? "a" + n(q) + "." + lane(i) : "a" + n(q) + "_" + n(i);
      };
    }
    if (p.transB) {
      for (int64_t j = 0; j < g.tn; ++j) {
        if (vecB) {
          w += "    let b" + n(j) + " = " + rhs + "[(bBase + cb" + n(j) + " * " + u(K) +
               " + k) / 4u];\n";
        } else {
          w +=
              "    let b" + n(j) + " = " + rhs + "[bBase + cb" + n(j) + " * " + u(K) + " + k];\n";
        }
      }
      bv = [vecB](int64_t q, int64_t j) { return "b" + n(j) + (vecB ? "." + lane(q) : ""); };
    } else {
      for (int64_t q = 0; q < kc; ++q) {
        const std::string kq = "(k + " + u(q) + ") * " + u(p.n);
        if (vecB) {
          w += "    let b" + n(q) + " = " + rhs + "[(bBase + " + kq + " + " + cb4 + ") / 4u];\n";
        } else {
          for (int64_t j = 0; j < g.tn; ++j)
            w += "    let b" + n(q) + "_" + n(j) + " = " + rhs + "[bBase + " + kq + " + cb" + n(j) +
                 "];\n";
        }
      }
      bv = [vecB](int64_t q, int64_t j) {
        return vecB ? "b" + n(q) + "." + lane(j) : "b" + n(q) + "_" + n(j);
      };
    }
    for (int64_t q = 0; q < kc; ++q)
      for (int64_t i = 0; i < g.tm; ++i)
        for (int64_t j = 0; j < g.tn; ++j) {
          const std::string c = "c" + n(i) + "_" + n(j);
          w += "    " + c + " = " + c + " + " + av(i, q) + " * " + bv(q, j) + ";\n";
        }
    w += "  }\n";
  }
  const auto outIndex = [&](const std::string& r, const std::string& c) {
    return "oBase + (" + r + ") * " + u(p.n) + " + " + c;
  };
  if (S == 1) {
    for (int64_t i = 0; i < g.tm; ++i) {
      const std::string r = "row0 + ty * " + u(g.tm) + " + " + u(i);
      const std::string rOk = edgeM ? r + " < " + u(p.m) : "";
      if (vecOut) {
        const std::string c = "col0 + tx * 4u";
        const std::string cOk = edgeN ? c + " < " + u(p.n) : "";
        const std::string ci = "c" + n(i) + "_";
        w += "  " +
             guarded(both(rOk, cOk),
                     store4(p, outIndex(r, c), {ci + "0", ci + "1", ci + "2", ci + "3"})) +
             "\n";
        continue;
      }
      for (int64_t j = 0; j < g.tn; ++j) {
        const std::string c = "col0 + tx * " + u(g.tn) + " + " + u(j);
        const std::string cOk = edgeN ? c + " < " + u(p.n) : "";
        w += "  " + guarded(both(rOk, cOk), store(p, outIndex(r, c), "c" + n(i) + "_" + n(j))) +
             "\n";
      }
    }
  } else {
    // Slice s's partial of block output o sits at slot(s, o) = s·BMBN + (o + s) mod BMBN: the
    // rotation by s puts the writes of neighbouring slices (a warp's lanes, where they take
    // neighbouring slices) in distinct banks. With an output for every other invocation or more,
    // one invocation per output sums its S partials in slice order (a tree level would cost as
    // many reads as it saves, and a barrier); with fewer (a whole workgroup on a few outputs), a
    // tree adds the upper half of the slices into the lower, log2(S) levels, ending at
    // slot(0, o) = o.
    const bool tree = bmbn * 2 <= inv;
    const auto slot = [&](const std::string& s, const std::string& o) {
      return s + " * " + u(bmbn) + " + (" + o + " + " + s + ") % " + u(bmbn);
    };
    for (int64_t i = 0; i < g.tm; ++i)
      for (int64_t j = 0; j < g.tn; ++j) {
        const std::string o = "((ty * " + u(g.tm) + " + " + u(i) + ") * " + u(g.bn) + " + tx * " +
                              u(g.tn) + " + " + u(j) + ")";
        w += "  red[" + slot("s", o) + "] = c" + n(i) + "_" + n(j) + ";\n";
      }
    w += "  workgroupBarrier();\n";
    if (tree) {
      w += "  for (var h = " + u(S / 2) + "; h > 0u; h = h / 2u) {\n";
      w += "    for (var e = lid; e < h * " + u(bmbn) + "; e += " + u(inv) + ") {\n";
      w += "      let ls = e / " + u(bmbn) + ";\n      let lo = e % " + u(bmbn) + ";\n";
      w += "      red[" + slot("ls", "lo") + "] = red[" + slot("ls", "lo") + "] + red[" +
           slot("(ls + h)", "lo") + "];\n";
      w += "    }\n    workgroupBarrier();\n  }\n";
    }
    for (int64_t first = 0; first < bmbn; first += inv) {
      const std::string o = "o" + n(first / inv);
      w += "  {\n    let " + o + " = lid + " + u(first) + ";\n";
      std::string cond = first + inv > bmbn ? o + " < " + u(bmbn) : "";
      w += "    let r = row0 + " + o + " / " + u(g.bn) + ";\n    let c = col0 + " + o + " % " +
           u(g.bn) + ";\n";
      if (edgeM) cond = both(cond, "r < " + u(p.m));
      if (edgeN) cond = both(cond, "c < " + u(p.n));
      if (tree) {
        w += "    " + guarded(cond, store(p, outIndex("r", "c"), "red[" + o + "]")) + "\n  }\n";
        continue;
      }
      w += "    " + std::string(cond.empty() ? "{" : "if (" + cond + ") {") + "\n";
      w += "      var t = 0.0;\n      for (var q = 0u; q < " + u(S) + "; q++) {\n";
      w += "        t = t + red[" + slot("q", o) + "];\n      }\n";
      w += "      " + store(p, outIndex("r", "c"), "t") + "\n    }\n  }\n";
    }
  }
  if (p.outer) w += outerPass(p, g);
  w += "}\n";
  const int64_t workgroups = blocks(p, g.bm, g.bn);
  return {std::move(w), workgroups * inv, static_cast<int>(inv)};
}

// Column: invocation lid owns outputs x0 .. x0 + 3 (x0 = the block's first + (lid % C)·4, C =
// the block's vec4 lanes) and sums rows r, r + R, r + 2R, ... of M (r = lid / C, R = slices)
// weighted by v[k], in four accumulators; the row lanes' partials meet in a tree over slots C
// apart. A warp reads 32 / C whole rows of C vec4s, where the split-K form's 1 × 4 blocks read
// 16 bytes of 32 rows (MLP H1024 B4096's xᵀ·dh₁ in 10.1 µs against the column sum of dh₁ in
// 6.6 on an H200, 2026-11-28, bench/RESULTS.md).
KernelSource columnKernel(const MatmulProblem& p, const GemmTiling& g) {
  const bool rowOut = p.m == 1;  // out [1, W]: v is the lhs, M the rhs
  const int64_t W = rowOut ? p.n : p.m, inv = g.invocations(), R = g.slices;
  const int64_t lanes = (rowOut ? g.bn : g.bm) / 4;
  const bool vecOut = vec4Stores(p);
  std::string w = head(p, g, !rowOut, rowOut, vecOut,
                       "var<workgroup> part : array<vec4<f32>, " + n(inv) + ">;\n");
  const std::string v = rowOut ? p.lhs : p.rhs, mat = rowOut ? p.rhs : p.lhs;
  const std::string vBase = rowOut ? "aBase" : "bBase", mBase = rowOut ? "bBase" : "aBase";
  w += "  let r = lid / " + u(lanes) + ";\n";
  w += "  let x0 = " + std::string(rowOut ? "col0" : "row0") + " + (lid % " + u(lanes) + ") * 4u;\n";
  for (int i = 0; i < 4; ++i) w += "  var s" + n(i) + " = vec4<f32>(0.0);\n";
  const auto term = [&](const std::string& k) {
    return v + "[" + vBase + " + " + k + "] * " + mat + "[(" + mBase + " + (" + k + ") * " + u(W) +
           " + x0) / 4u]";
  };
  w += "  if (x0 < " + u(W) + ") {\n    var k = r;\n";
  w += "    for (; k + " + u(3 * R) + " < " + u(p.k) + "; k += " + u(4 * R) + ") {\n";
  for (int i = 0; i < 4; ++i)
    w += "      s" + n(i) + " = s" + n(i) + " + " + term(i ? "k + " + u(i * R) : "k") + ";\n";
  w += "    }\n    for (; k < " + u(p.k) + "; k += " + u(R) + ") { s0 = s0 + " + term("k") +
       "; }\n  }\n";
  w += "  part[lid] = (s0 + s1) + (s2 + s3);\n  workgroupBarrier();\n";
  if (R > 1) {
    w += "  for (var h = " + u(R / 2) + "; h > 0u; h = h / 2u) {\n";
    w += "    if (r < h) { part[lid] = part[lid] + part[lid + h * " + u(lanes) + "]; }\n";
    w += "    workgroupBarrier();\n  }\n";
  }
  const std::string o = "oBase + x0";
  std::string st;
  if (vecOut && !p.epilogue) {
    st = "out[(" + o + ") / 4u] = t;";
  } else if (vecOut) {
    st = store4(p, o, {"t.x", "t.y", "t.z", "t.w"});
  } else {
    for (int64_t j = 0; j < 4; ++j)
      st += (j ? " " : "") + store(p, "(" + o + ") + " + u(j), "t." + lane(j));
  }
  w += "  if (r == 0u && x0 < " + u(W) + ") {\n    let t = part[lid];\n    " + st + "\n  }\n}\n";
  const int64_t workgroups = blocks(p, g.bm, g.bn);
  return {std::move(w), workgroups * inv, static_cast<int>(inv)};
}

}  // namespace

MatmulProblem matmulProblem(const KernelArgs& a, bool batchedRhs) {
  const Shape& x = a.in(0).shape;
  MatmulProblem p;
  p.m = x[x.size() - 2];
  p.k = x.back();
  p.n = a.in(1).shape.back();
  p.batches = shapeSize(a.out().shape) / (p.m * p.n);
  p.batchedRhs = batchedRhs;
  p.lhs = a.inName(0);
  p.rhs = a.inName(1);
  p.workgroupBytes = a.workgroupBytes;
  p.cpuDevice = a.cpuDevice;
  return p;
}

std::string familyUnsupported(const std::vector<MatmulProblem>& members, const GemmTiling& g) {
  if (members.empty()) return "a family has members";
  if (g.form != GemmTiling::Form::Tiled) return "a family is of the tiled form";
  const MatmulProblem& f = members.front();
  size_t bindings = 3;
  for (const MatmulProblem& p : members) {
    if (p.batches != 1 || !p.kParts.empty() || p.outer || p.rowSoftmax || p.cpuDevice)
      return "a member is one product of one part, stored through an epilogue at most";
    if (p.m != f.m || p.n != f.n || p.transA != f.transA || p.transB != f.transB ||
        p.lhs != f.lhs || p.rhs != f.rhs || p.workgroupBytes != f.workgroupBytes)
      return "members differ in more than K and their epilogues";
    if (p.m % g.bm || p.n % g.bn || p.n % 4 || p.k % (g.slices * g.bk) || !vec4Stores(p))
      return "a member has edges, or stores no vec4s";
    if (p.epilogue) {
      if (p.epilogue->second) return "a member has a second output";
      // Its module-scope WGSL defines the epilogue's functions only (a member's own helpers
      // would meet another's of the same name).
      const std::string& e = p.epilogue->wgsl4.empty() ? p.epilogue->wgsl : p.epilogue->wgsl4;
      static const std::regex own(R"(\bfn (epilogue4|epilogue|outIndex)\()"), any(R"(\bfn )");
      const auto count = [&](const std::regex& r) {
        return std::distance(std::sregex_iterator(e.begin(), e.end(), r), std::sregex_iterator());
      };
      if (count(any) != count(own)) return "a member's epilogue defines functions of its own";
      bindings += p.epilogue->bindings;
    }
  }
  if (bindings > 8) return "more than 8 storage buffers (WebGPU's default limit)";
  if (blocks(f, g.bm, g.bn) + static_cast<int64_t>(members.size()) > kMaxWorkgroupsPerDim)
    return "more blocks than one dispatch row";
  return g.invalidReason(f.workgroupBytes);
}

KernelSource fastMatmulFamilyKernel(const std::vector<MatmulProblem>& raw, const GemmTiling& g) {
  std::vector<MatmulProblem> members;
  for (const MatmulProblem& p : raw) members.push_back(normalized(p));
  if (members.size() < 2) throw std::logic_error("fastMatmulFamilyKernel: one member");
  if (const std::string why = familyUnsupported(members, g); !why.empty())
    throw std::logic_error("fastMatmulFamilyKernel: " + g.describe() + ": " + why);
  return tiledKernel(members.front(), g, members);
}

KernelSource fastMatmulKernel(const MatmulProblem& raw, std::optional<GemmTiling> tiling) {
  const MatmulProblem p = normalized(raw);
  const GemmTiling g = tiling ? *tiling : chooseTiling(p);
  if (const std::string why = g.invalidReason(p.workgroupBytes); !why.empty())
    throw std::logic_error("fastMatmulKernel: " + g.describe() + ": " + why);
  if (const std::string why = kUnsupported(p, g); !why.empty())
    throw std::logic_error("fastMatmulKernel: " + g.describe() + ": " + why);
  if (p.rowSoftmax)
    if (const std::string why = rowSoftmaxUnsupported(p, g); !why.empty())
      throw std::logic_error("fastMatmulKernel: " + g.describe() + ": " + why);
  if (p.outer && (g.form != GemmTiling::Form::SplitK || p.n != 1 || p.batches != 1 ||
                  p.outer->n <= 0 || (p.epilogue && p.epilogue->permuted) ||
                  (p.outer->fromSecond && !(p.epilogue && p.epilogue->second)) ||
                  g.workgroupBytes() + g.bm * 4 > p.workgroupBytes))
    throw std::logic_error("fastMatmulKernel: " + g.describe() +
                           ": an outer product follows one split-K matrix-vector product");
  switch (g.form) {
    case GemmTiling::Form::Tiled:
      return tiledKernel(p, g);
    case GemmTiling::Form::SplitK:
      return splitKernel(p, g);
    case GemmTiling::Form::Column:
      if (!columnShape(p))
        throw std::logic_error("fastMatmulKernel: " + g.describe() +
                               ": not a matrix-vector product along K");
      return columnKernel(p, g);
  }
  throw std::logic_error("fastMatmulKernel: unknown form");
}

}  // namespace tg::detail
