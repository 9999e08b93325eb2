#include "attention_fast.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

namespace tg::detail {
namespace {

constexpr int64_t kMaxInvocations = 256;
// Heads share a workgroup until it holds a warp's worth of invocations, and beyond that while
// there are more than this many workgroups (a few for each SM of a large GPU).
constexpr int64_t kEnoughWorkgroups = 1024;

// Where everything goes. An invocation owns 4 rows (4ty ..) of its head's scores and output, and
// 4 columns (4tx ..) of each; a head takes t4 × cols invocations, a workgroup `heads` heads.
// Workgroup memory, per head, in vec4s of 4 consecutive rows (or columns): qS holds Q as
// [dk][t4 + 1], then Pᵀ as [t][t4 + 1]; kS holds Kᵀ as [dk][t4 + 1], then V as [t][dv4 + 1]; red
// holds each row's partial maxima, then sums, one an invocation of the row. The vec4 of padding
// a row puts the gathering stores (consecutive k) on distinct banks.
struct Layout {
  int64_t t4, dv4, cols, perHead, heads, tp, vp, q, k, red;
  explicit Layout(const AttentionProblem& p)
      : t4(ceilDiv(p.t, 4)),
        dv4(ceilDiv(p.dv, 4)),
        cols(std::max(t4, dv4)),
        perHead(std::max<int64_t>(1, t4 * cols)),  // 1 for an empty problem, which no kernel takes
        heads(0),
        tp(t4 + 1),
        vp(dv4 + 1),
        q(std::max(p.dk, p.t) * tp),
        k(std::max(p.dk * tp, p.t * vp)),
        red(p.t * cols) {
    const int64_t bytes = 16 * (q + k) + 4 * red;
    const int64_t wanted = std::max(ceilDiv(32, perHead), ceilDiv(p.batches, kEnoughWorkgroups));
    heads = std::min({kMaxInvocations / perHead, p.workgroupBytes / bytes, p.batches, wanted});
  }
  int64_t invocations() const { return heads * perHead; }
  int64_t bytes() const { return heads * (16 * (q + k) + 4 * red); }
};

// `body(i)` for i < count, as separate statements (registers, not an array).
std::string each(int64_t count, const std::function<std::string(int64_t)>& body) {
  std::string s;
  for (int64_t i = 0; i < count; ++i) s += body(i);
  return s;
}

}  // namespace

int64_t attentionWorkgroupBytes(const AttentionProblem& p) {
  const Layout l(p);
  return l.heads > 0 ? l.bytes() : 16 * (l.q + l.k) + 4 * l.red;
}

std::string attentionUnsupported(const AttentionProblem& p) {
  if (p.t < 1 || p.t > kMaxAttentionRows || p.dv < 1 || p.dv > kMaxAttentionRows)
    return "t and dv must be 1 to " + n(kMaxAttentionRows);
  if (p.dk < 1 || p.dk > kMaxAttentionDepth) return "dk must be 1 to " + n(kMaxAttentionDepth);
  if (p.batches < 1 || p.batches > kMaxWorkgroupsPerDim * kMaxWorkgroupsPerDim)
    return "batches must be 1 to 65535²";
  // Flat indices are u32: every buffer's elements below 2^31.
  if (p.batches > (int64_t{1} << 31) / (std::max(p.t, p.dk) * std::max(p.t, p.dv)))
    return "more than 2^31 elements in one buffer";
  if (p.epilogue && (p.epilogue->bindings > 0 || p.epilogue->second))
    return "the output's epilogue reads or writes buffers of its own";
  if (Layout(p).heads < 1)
    return n(attentionWorkgroupBytes(p)) + " bytes of workgroup memory a head past the limit of " +
           n(p.workgroupBytes);
  return "";
}

KernelSource fastAttentionKernel(const AttentionProblem& p) {
  if (const std::string why = attentionUnsupported(p); !why.empty())
    throw std::logic_error("fastAttentionKernel: " + why);
  const Layout l(p);
  const int64_t workgroups = ceilDiv(p.batches, l.heads);
  const std::string T = u(p.t), DV = u(p.dv);
  const auto ac = [&](const std::string& name, int64_t a, int64_t c) {
    return name + n(a) + "_" + n(c);
  };
  std::string w = "// fast attention: " + n(p.batches) + " × softmax_causal([" + n(p.t) + ", " +
                  n(p.dk) + "]" + (p.transQ ? " stored ᵀ" : "") + " · [" + n(p.dk) + ", " +
                  n(p.t) + "]" + (p.transK ? " stored ᵀ" : "") + ") · [" + n(p.t) + ", " +
                  n(p.dv) + "]" + (p.transV ? " stored ᵀ" : "") + ", " + n(l.heads) +
                  (l.heads == 1 ? " head" : " heads") + " a workgroup\n";
  w += "var<workgroup> qS : array<vec4<f32>, " + n(l.heads * l.q) + ">;\n";
  w += "var<workgroup> kS : array<vec4<f32>, " + n(l.heads * l.k) + ">;\n";
  w += "var<workgroup> red : array<f32, " + n(l.heads * l.red) + ">;\n";
  w += "@group(0) @binding(0) var<storage, read> q : array<f32>;\n";
  w += "@group(0) @binding(1) var<storage, read> k : array<f32>;\n";
  w += "@group(0) @binding(2) var<storage, read> v : array<f32>;\n";
  w += "@group(0) @binding(3) var<storage, read_write> p : array<f32>;\n";
  w += "@group(0) @binding(4) var<storage, read_write> out : array<f32>;\n";
  w += p.scoreEpilogue;
  if (p.epilogue) w += p.epilogue->wgsl;
  w += "@compute @workgroup_size(" + n(l.invocations()) +
       ")\nfn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : "
       "u32) {\n";
  w += "  let wg = wid.x + wid.y * " + u(kMaxWorkgroupsPerDim) + ";\n";
  w += "  if (wg >= " + u(workgroups) + ") { return; }\n";
  w += "  let hh = lid / " + u(l.perHead) + ";\n  let b = wg * " + u(l.heads) + " + hh;\n";
  w += "  let ty = (lid % " + u(l.perHead) + ") / " + u(l.cols) + ";\n  let tx = lid % " +
       u(l.cols) + ";\n";
  w += "  let own = b < " + u(p.batches) + ";\n";
  w += "  let qo = hh * " + u(l.q) + ";\n  let ko = hh * " + u(l.k) + ";\n  let ro = hh * " +
       u(l.red) + ";\n";
  // Loads every head's [kExtent, rExtent] operand into `dst` as [k][stride] vec4s of 4
  // consecutive r. kMajor: element (k, r) stored at k·rExtent + r, else at r·kExtent + k (then 4
  // rows at one k are gathered). Unrolled, every load before the first store: a loop would wait
  // on each load in turn.
  int64_t loads = 0;
  const auto load = [&](const std::string& dst, int64_t region, const std::string& src,
                        int64_t kExtent, int64_t rExtent, int64_t stride, bool kMajor) {
    const int64_t r4 = ceilDiv(rExtent, 4), perHead = kExtent * r4, total = l.heads * perHead;
    const int64_t rounds = ceilDiv(total, l.invocations());
    std::string reads, writes;
    for (int64_t g = 0; g < rounds; ++g, ++loads) {
      const std::string id = n(loads);
      const bool edge = (g + 1) * l.invocations() > total;
      const std::string gi = "lid + " + u(g * l.invocations());
      reads += "  let g" + id + " = " + (edge ? "min(" + gi + ", " + u(total - 1) + ")" : gi) +
               ";\n";
      reads += "  let w" + id + " = g" + id + " % " + u(perHead) + ";\n";
      reads += "  let src" + id + " = min(wg * " + u(l.heads) + " + g" + id + " / " + u(perHead) +
               ", " + u(p.batches - 1) + ") * " + u(kExtent * rExtent) + ";\n";
      const std::string kk = kMajor ? "w" + id + " / " + u(r4) : "w" + id + " % " + u(kExtent);
      const std::string rr = kMajor ? "(w" + id + " % " + u(r4) + ") * 4u"
                                    : "(w" + id + " / " + u(kExtent) + ") * 4u";
      reads += "  let k" + id + " = " + kk + ";\n  let r" + id + " = " + rr + ";\n";
      reads += "  var l" + id + " = vec4<f32>(0.0);\n";
      for (int64_t j = 0; j < 4; ++j) {
        const std::string r = "r" + id + " + " + u(j);
        const std::string at = kMajor ? "k" + id + " * " + u(rExtent) + " + " + r
                                      : "(" + r + ") * " + u(kExtent) + " + k" + id;
        const std::string read = "l" + id + "." + lane(j) + " = " + src + "[src" + id + " + " + at + "];";
        reads += rExtent % 4 ? "  if (" + r + " < " + u(rExtent) + ") { " + read + " }\n"
                             : "  " + read + "\n";
      }
      const std::string store = dst + "[(g" + id + " / " + u(perHead) + ") * " + u(region) +
                                " + k" + id + " * " + u(stride) + " + r" + id + " / 4u] = l" +
                                id + ";";
      writes += edge ? "  if (" + gi + " < " + u(total) + ") { " + store + " }\n"
                     : "  " + store + "\n";
    }
    return reads + writes;
  };
  // Q [t, dk] (or stored [dk, t]) and Kᵀ [dk, t] (or stored [t, dk]) as [dk][t4 + 1].
  w += load("qS", l.q, "q", p.dk, p.t, l.tp, p.transQ);
  w += load("kS", l.k, "k", p.dk, p.t, l.tp, !p.transK);
  w += "  workgroupBarrier();\n";
  // Columns past the scores' (or the output's) last vec4 read that one and store nothing.
  w += "  let tq = min(tx, " + u(l.t4 - 1) + ");\n  let tv = min(tx, " + u(l.dv4 - 1) + ");\n";
  w += each(4, [&](int64_t a) {
    return "  let i" + n(a) + " = ty * 4u + " + u(a) + ";\n  let j" + n(a) + " = tx * 4u + " +
           u(a) + ";\n  var s" + n(a) + " = vec4<f32>(0.0);\n";
  });
  w += "  for (var kk = 0u; kk < " + u(p.dk) + "; kk = kk + 1u) {\n";
  w += "    let qa = qS[qo + kk * " + u(l.tp) + " + ty];\n";
  w += "    let kc = kS[ko + kk * " + u(l.tp) + " + tq];\n";
  w += each(4, [&](int64_t a) {
    return "    s" + n(a) + " = s" + n(a) + " + qa." + lane(a) + " * kc;\n";
  });
  w += "  }\n";
  // The scores through their epilogue; row i sees columns j <= i. Each row's max over the
  // invocations sharing it, through red.
  const std::string pBase = "b * " + u(p.t * p.t);
  w += each(4, [&](int64_t a) {
    std::string s = "  var m" + n(a) + " = -1.0e30;\n";
    for (int64_t c = 0; c < 4; ++c) {
      const std::string live = ac("live", a, c), x = ac("x", a, c);
      const std::string sum = "s" + n(a) + "." + lane(c);
      s += "  let " + live + " = j" + n(c) + " <= i" + n(a) + " && i" + n(a) + " < " + T + ";\n";
      s += "  let " + x + " = " +
           (p.scoreEpilogue.empty() ? sum
                                    : "scoreEpilogue(" + pBase + " + i" + n(a) + " * " + T +
                                          " + j" + n(c) + ", " + sum + ")") +
           ";\n";
      s += "  m" + n(a) + " = select(m" + n(a) + ", max(m" + n(a) + ", " + x + "), " + live +
           ");\n";
    }
    return s + "  if (i" + n(a) + " < " + T + ") { red[ro + i" + n(a) + " * " + u(l.cols) +
           " + tx] = m" + n(a) + "; }\n";
  });
  w += "  workgroupBarrier();\n";
  // Kᵀ is read: V [t, dv] (or stored [dv, t]) takes its place as [t][dv4 + 1].
  w += load("kS", l.k, "v", p.t, p.dv, l.vp, !p.transV);
  const auto rowTotal = [&](bool max) {
    return each(4, [&](int64_t a) {
      const std::string acc = (max ? "m" : "sum") + n(a), at = "red[ro + i" + n(a) + " * " +
                                                                 u(l.cols) + " + e]";
      return "  if (i" + n(a) + " < " + T + ") {\n    " + (max ? "" : acc + " = 0.0;\n    ") +
             "for (var e = 0u; e < " + u(l.cols) + "; e = e + 1u) { " + acc + " = " +
             (max ? "max(" + acc + ", " + at + ")" : acc + " + " + at) + "; }\n  }\n";
    });
  };
  w += rowTotal(true);
  w += "  workgroupBarrier();\n";
  w += each(4, [&](int64_t a) {
    std::string s, sum;
    for (int64_t c = 0; c < 4; ++c) {
      s += "  let " + ac("e", a, c) + " = select(0.0, exp(" + ac("x", a, c) + " - m" + n(a) +
           "), " + ac("live", a, c) + ");\n";
      sum += (c ? " + " : "") + ac("e", a, c);
    }
    // Rows past t divide by 1: no NaN in the lanes of Pᵀ that nothing reads.
    return s + "  var sum" + n(a) + " = 1.0;\n  if (i" + n(a) + " < " + T + ") { red[ro + i" +
           n(a) + " * " + u(l.cols) + " + tx] = " + sum + "; }\n";
  });
  w += "  workgroupBarrier();\n";
  w += rowTotal(false);
  // P: stored (the backward reads it), and kept as Pᵀ [t][t4 + 1] where Q was.
  w += each(4, [&](int64_t a) {
    return each(4, [&](int64_t c) {
      const std::string pv = ac("p", a, c);
      return "  let " + pv + " = " + ac("e", a, c) + " / sum" + n(a) + ";\n  if (own && i" + n(a) +
             " < " + T + " && j" + n(c) + " < " + T + ") { p[" + pBase + " + i" + n(a) + " * " + T +
             " + j" + n(c) + "] = " + pv + "; }\n";
    });
  });
  w += each(4, [&](int64_t c) {
    return "  if (j" + n(c) + " < " + T + ") { qS[qo + j" + n(c) + " * " + u(l.tp) +
           " + ty] = vec4<f32>(" + ac("p", 0, c) + ", " + ac("p", 1, c) + ", " + ac("p", 2, c) +
           ", " + ac("p", 3, c) + "); }\n";
  });
  w += "  workgroupBarrier();\n";
  w += each(4, [&](int64_t a) { return "  var o" + n(a) + " = vec4<f32>(0.0);\n"; });
  w += "  for (var kk = 0u; kk < " + T + "; kk = kk + 1u) {\n";
  w += "    let pa = qS[qo + kk * " + u(l.tp) + " + ty];\n";
  w += "    let vc = kS[ko + kk * " + u(l.vp) + " + tv];\n";
  w += each(4, [&](int64_t a) {
    return "    o" + n(a) + " = o" + n(a) + " + pa." + lane(a) + " * vc;\n";
  });
  w += "  }\n";
  const bool permuted = p.epilogue && p.epilogue->permuted;
  w += each(4, [&](int64_t a) {
    return each(4, [&](int64_t c) {
      const std::string o = ac("at", a, c), value = "o" + n(a) + "." + lane(c);
      return "  if (own && i" + n(a) + " < " + T + " && j" + n(c) + " < " + DV + ") {\n    let " +
             o + " = " + "b * " + u(p.t * p.dv) + " + i" + n(a) + " * " + DV + " + j" + n(c) +
             ";\n    out[" + (permuted ? "outIndex(" + o + ")" : o) + "] = " +
             (p.epilogue ? "epilogue(" + o + ", " + value + ")" : value) + ";\n  }\n";
    });
  });
  w += "}\n";
  return {std::move(w), workgroups * l.invocations(), static_cast<int>(l.invocations())};
}

}  // namespace tg::detail
