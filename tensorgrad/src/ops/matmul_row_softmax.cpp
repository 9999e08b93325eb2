#include "matmul_row_softmax.h"

#include <algorithm>
#include <numeric>

#include "matmul_problem.h"

namespace tg::detail {
namespace {

// Elements idx .. idx + 3 of value `v` (a vec4 expression) through the epilogue: a vec4 at a
// time where the kernel declares epilogue4 (an unpermuted epilogue reading no buffer does).
std::string through(const MatmulProblem& p, const std::string& idx, const std::string& v) {
  if (!p.epilogue) return v;
  if (!p.epilogue->wgsl4.empty()) return "epilogue4(" + idx + ", " + v + ")";
  std::string s = "vec4<f32>(";
  for (int64_t j = 0; j < 4; ++j)
    s += (j ? ", " : "") + std::string("epilogue(") + idx + (j ? " + " + u(j) : "") + ", " + v +
         "." + lane(j) + ")";
  return s + ")";
}

}  // namespace

GemmTiling rowSoftmaxTiling(const MatmulProblem& p) {
  const int64_t across = std::max<int64_t>(1, ceilDiv(p.n, 4));  // invocations along a row
  // Rows of invocations: up to 128 invocations and m's rows, as many as let both tiles' loads
  // split evenly at a depth of at most 32 (a multiple of 4, across and down); the K tile is
  // that deep, or as many times that as fit in 16.
  int64_t down = std::clamp<int64_t>(128 / across, 1, std::max<int64_t>(1, ceilDiv(p.m, 4)));
  const auto depthFor = [&](int64_t d) { return std::lcm(std::lcm(int64_t{4}, across), d); };
  while (down > 1 && depthFor(down) > 32) --down;
  const int64_t depth = depthFor(down);
  GemmTiling g{.form = GemmTiling::Form::Tiled,
               .bm = 4 * down,
               .bn = 4 * across,
               .bk = depth * std::max<int64_t>(1, 16 / depth),
               .tm = 4,
               .tn = 4,
               .slices = 1};
  if (g.invocations() % kLanes == 0 && kLanes % across == 0 && down % (kLanes / across) == 0)
    g.laneRows = kLanes / across;
  return g;
}

int64_t rowSoftmaxBytes(const GemmTiling& g) {
  return g.invocations() * (g.tm / 4) * 16;
}

std::string rowSoftmaxUnsupported(const MatmulProblem& p, const GemmTiling& g) {
  if (!p.rowSoftmax) return "no row softmax";
  if (const std::string why = g.invalidReason(p.workgroupBytes); !why.empty()) return why;
  if (g.form != GemmTiling::Form::Tiled || g.slices != 1)
    return "a row softmax needs the tiled form, K unsliced";
  if (p.n % 4 || p.n > kMaxSoftmaxRow || g.bn != p.n)
    return "a row softmax needs rows of a multiple of 4 up to " + n(kMaxSoftmaxRow) +
           ", one block across";
  if (p.rowSoftmax->causal && (p.m != p.n || (!p.batchedRhs && p.batches > 1)))
    return "a causal softmax needs square matrices, batched alike";
  if (!p.kParts.empty() || p.outer) return "a row softmax takes one product";
  if (p.epilogue && (p.epilogue->permuted || p.epilogue->second || p.epilogue->bindings))
    return "a row softmax's epilogue reads no buffer and stores in place";
  if (g.workgroupBytes() + rowSoftmaxBytes(g) > p.workgroupBytes)
    return "more than " + n(p.workgroupBytes) + " bytes of workgroup memory";
  return "";
}

std::string rowSoftmaxStores(const MatmulProblem& p, const GemmTiling& g) {
  const int64_t thrM = g.bm / g.tm, thrN = g.bn / g.tn, inv = g.invocations();
  const bool causal = p.rowSoftmax->causal;
  std::string w;
  for (int64_t r = 0; r < g.tm; ++r)
    w += "  let rr" + n(r) + " = row0 + (ty + " + u(r / 4 * thrM) + ") * 4u + " + u(r % 4) + ";\n";
  for (int64_t h = 0; h < g.tn / 4; ++h)
    w += "  let cc" + n(h) + " = (tx + " + u(h * thrN) + ") * 4u;\n";
  const auto acc = [](int64_t r, int64_t h) { return "c" + n(r) + "_" + n(h); };
  const auto at = [&](int64_t r, int64_t h) {
    return "oBase + rr" + n(r) + " * " + u(p.n) + " + cc" + n(h);
  };
  // Each row's partials part<r> (scalars) meet in rS: invocation (ty, tx) writes its rows
  // 4q .. 4q + 3 as one vec4, then reads its row's thrN vec4s in column order, so every
  // invocation of a row gets the same total<q>.
  const auto meet = [&](const std::string& part, const std::string& total, bool isMax) {
    std::string s;
    for (int64_t q = 0; q < g.tm / 4; ++q) {
      s += "  rS[" + u(q * inv) + " + ty * " + u(thrN) + " + tx] = vec4<f32>(";
      for (int64_t j = 0; j < 4; ++j) s += (j ? ", " : "") + part + n(4 * q + j);
      s += ");\n";
    }
    s += "  workgroupBarrier();\n";
    for (int64_t q = 0; q < g.tm / 4; ++q) {
      const std::string t = total + n(q), base = u(q * inv) + " + ty * " + u(thrN);
      s += "  var " + t + " = rS[" + base + "];\n";
      s += "  for (var l = 1u; l < " + u(thrN) + "; l = l + 1u) { " + t + " = " +
           (isMax ? "max(" + t + ", rS[" + base + " + l])" : t + " + rS[" + base + " + l]") +
           "; }\n";
    }
    return s;
  };
  const auto total = [](const std::string& name, int64_t r) {
    return name + n(r / 4) + "." + lane(r % 4);
  };
  const std::string rowOk = p.m % g.bm ? "rr%R < " + u(p.m) : "";
  const auto store = [&](int64_t r, int64_t h, const std::string& v) {
    std::string s = "out[(" + at(r, h) + ") / 4u] = " + v + ";";
    if (!rowOk.empty()) {
      std::string cond = rowOk;
      cond.replace(cond.find("%R"), 2, n(r));
      s = "if (" + cond + ") { " + s + " }";
    }
    return "  " + s + "\n";
  };
  if (causal) {
    // The scores through the epilogue, each row's maximum over its columns j <= i, the
    // exponentials (0 past the diagonal), their sum, the quotients.
    for (int64_t r = 0; r < g.tm; ++r) {
      w += "  var mx" + n(r) + " = -3.0e38f;\n";
      for (int64_t h = 0; h < g.tn / 4; ++h) {
        if (p.epilogue) w += "  " + acc(r, h) + " = " + through(p, at(r, h), acc(r, h)) + ";\n";
        for (int64_t j = 0; j < 4; ++j)
          w += "  mx" + n(r) + " = max(mx" + n(r) + ", select(-3.0e38f, " + acc(r, h) + "." +
               lane(j) + ", cc" + n(h) + " + " + u(j) + " <= rr" + n(r) + "));\n";
      }
    }
    w += meet("mx", "rowMax", true);
    w += "  workgroupBarrier();\n";  // every total read before rS is written again
    for (int64_t r = 0; r < g.tm; ++r) {
      w += "  var sm" + n(r) + " = 0.0f;\n";
      for (int64_t h = 0; h < g.tn / 4; ++h) {
        const std::string c = acc(r, h);
        w += "  " + c + " = vec4<f32>(";
        for (int64_t j = 0; j < 4; ++j)
          w += (j ? ", " : "") + std::string("select(0.0f, exp(") + c + "." + lane(j) + " - " +
               total("rowMax", r) + "), cc" + n(h) + " + " + u(j) + " <= rr" + n(r) + ")";
        w += ");\n  sm" + n(r) + " = sm" + n(r) + " + ((" + c + ".x + " + c + ".y) + (" + c +
             ".z + " + c + ".w));\n";
      }
    }
    w += meet("sm", "rowSum", false);
    for (int64_t r = 0; r < g.tm; ++r)
      for (int64_t h = 0; h < g.tn / 4; ++h)
        w += store(r, h, acc(r, h) + " / " + total("rowSum", r));
    return w;
  }
  // The gradient: y at the product's elements (rows past m read the last row: never stored),
  // each row's sum of g·y, then epilogue((g - s)·y).
  const std::string clampRow = p.m % g.bm ? "min(rr%R, " + u(p.m - 1) + ")" : "rr%R";
  for (int64_t r = 0; r < g.tm; ++r) {
    std::string row = clampRow;
    row.replace(row.find("%R"), 2, n(r));
    w += "  var sg" + n(r) + " = 0.0f;\n";
    for (int64_t h = 0; h < g.tn / 4; ++h) {
      const std::string y = "y" + n(r) + "_" + n(h);
      w +=
          "  let " + y + " = rowY[(oBase + " + row + " * " + u(p.n) + " + cc" + n(h) + ") / 4u];\n";
      w += "  sg" + n(r) + " = sg" + n(r) + " + dot(" + acc(r, h) + ", " + y + ");\n";
    }
  }
  w += meet("sg", "rowDot", false);
  for (int64_t r = 0; r < g.tm; ++r)
    for (int64_t h = 0; h < g.tn / 4; ++h)
      w += store(r, h,
                 through(p, at(r, h),
                         "(" + acc(r, h) + " - vec4<f32>(" + total("rowDot", r) + ")) * y" + n(r) +
                             "_" + n(h)));
  return w;
}

}  // namespace tg::detail
