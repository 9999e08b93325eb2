#include "fold_outer_product.h"

#include <algorithm>

#include "../ops/matmul_fast.h"
#include "../ops/op_registry.h"
#include "fold_epilogue.h"
#include "fold_transpose.h"
#include "folded_matmul.h"

namespace tg::detail {
namespace {

bool hasPermute(const Graph& graph, const std::vector<int>& group) {
  return std::any_of(group.begin(), group.end(), [&](int m) {
    return graph.ops[static_cast<size_t>(m)].kind == OpKind::Permute;
  });
}

}  // namespace

OuterFolds foldOuterProducts(
    const Graph& graph, const BufferUse& use, const std::vector<std::vector<int>>& groups,
    const std::vector<int>& epilogueOf, const std::vector<int>& epilogueFrom,
    const std::vector<int>& secondOf, const std::vector<int>& sumOf,
    const std::vector<std::vector<int>>& summedInto, const std::vector<int>& summedBy,
    const std::vector<std::array<int, 2>>& permuteOf, int64_t workgroupBytes, bool cpuDevice) {
  const size_t n = graph.ops.size();
  OuterFolds f{.outerOf = std::vector<int>(n, -1), .folded = std::vector<bool>(n, false)};
  if (groups.empty()) return f;
  const auto at = [](const std::vector<int>& v, int i) {
    return v.empty() ? -1 : v[static_cast<size_t>(i)];
  };
  const auto plain = [&](int m) {  // a product no other fold sums, sums into or replaces
    return graph.ops[static_cast<size_t>(m)].kind == OpKind::Matmul && at(sumOf, m) < 0 &&
           at(summedBy, m) < 0 &&
           (summedInto.empty() || summedInto[static_cast<size_t>(m)].empty());
  };
  for (size_t place = 0; place < n; ++place) {
    if (f.folded[place]) continue;
    int m = at(epilogueFrom, static_cast<int>(place));
    if (m < 0 && isMatmul(graph.ops[place].kind) && at(epilogueOf, static_cast<int>(place)) < 0)
      m = static_cast<int>(place);
    if (m < 0 || !plain(m)) continue;
    const Op& mm = graph.ops[static_cast<size_t>(m)];
    const std::array<int, 2> permutes = permutesOf(permuteOf, m);
    if (permutes[0] >= 0 || graph.tensor(mm.out).shape.back() != 1) continue;
    const int64_t rows = shapeSize(graph.tensor(mm.out).shape);
    if (rows == 0 || graph.tensor(mm.inputs[0]).shape.back() == 0) continue;
    size_t bindings = 3;  // lhs, rhs, out
    if (static_cast<int>(place) != m) {
      if (hasPermute(graph, groups[place])) continue;  // stored at another index
      std::vector<int> external;
      matmulEpilogue(graph, m, groups[place], external);
      bindings += external.size();
    }
    const MatmulProblem problem = foldedProblem(graph, m, permutes, {}, workgroupBytes, cpuDevice);
    const GemmTiling tiling = chooseTiling(problem);
    if (tiling.form != GemmTiling::Form::SplitK ||
        tiling.workgroupBytes() + tiling.bm * 4 > workgroupBytes)
      continue;
    const int stored = graph.ops[place].out;
    const int secondEnd = at(secondOf, static_cast<int>(place));
    const int second = secondEnd < 0 ? -1 : graph.ops[static_cast<size_t>(secondEnd)].out;
    if (second >= 0) ++bindings;
    int first = m;  // the kernel's first op (a folded permute of the rhs may come before)
    for (int p : permutes)
      if (p >= 0) first = std::min(first, p);
    for (const int value : {second, stored}) {
      if (value < 0 || f.outerOf[place] >= 0) continue;
      for (const int q : use.readers(value)) {
        if (!plain(q)) continue;
        const Op& qo = graph.ops[static_cast<size_t>(q)];
        const std::array<int, 2> qPermutes = permutesOf(permuteOf, q);
        const std::array<int, 2> sources = operandSources(graph, q, qPermutes);
        const int64_t cols = graph.tensor(qo.out).shape.back();
        if (sources[0] != value || graph.tensor(qo.inputs[0]).shape.back() != 1 ||
            shapeSize(graph.tensor(qo.inputs[0]).shape) != rows ||
            shapeSize(graph.tensor(sources[1]).shape) != cols ||
            shapeSize(graph.tensor(qo.out).shape) != rows * cols || cols == 0)
          continue;
        const int qPlace = at(epilogueOf, q) >= 0 ? epilogueOf[static_cast<size_t>(q)] : q;
        if (at(secondOf, qPlace) >= 0 || f.outerOf[static_cast<size_t>(qPlace)] >= 0) continue;
        std::vector<int> ops{q};             // Q's own ops: its folded permutes, Q, its epilogue
        std::vector<int> reads{sources[1]};  // what Q reads
        // Buffers the product reads already are read through its bindings; v and each of the
        // epilogue's other inputs bind once more.
        const std::array<int, 2> own = operandSources(graph, m, permutes);
        const auto binds = [&](int t) { return t != own[0] && t != own[1]; };
        size_t more = binds(sources[1]) ? 1 : 0;
        if (qPlace != q) {
          const std::vector<int>& group = groups[static_cast<size_t>(qPlace)];
          if (hasPermute(graph, group) || epilogueNeedsHelper(graph, q, group)) continue;
          ops.insert(ops.end(), group.begin(), group.end());
          std::vector<int> external;
          matmulEpilogue(graph, q, group, external);
          reads.insert(reads.end(), external.begin(), external.end());
          more += static_cast<size_t>(std::count_if(external.begin(), external.end(), binds));
        }
        for (int p : qPermutes)
          if (p >= 0) ops.push_back(p);
        if (bindings + more + 1 > kMaxStorageBuffersPerKernel) continue;
        // The kernel's own outputs are in memory only for the invocations that stored them.
        if (std::any_of(reads.begin(), reads.end(),
                        [&](int t) { return t == stored || t == second; }))
          continue;
        // Q now reads at `place` and writes there, not at its own place.
        if (!std::all_of(reads.begin(), reads.end(),
                         [&](int t) { return use.untouched(t, static_cast<int>(place), qPlace); }))
          continue;
        if (!use.idle(graph.ops[static_cast<size_t>(qPlace)].out, first, qPlace, ops)) continue;
        f.outerOf[place] = q;
        f.folded[static_cast<size_t>(q)] = f.folded[static_cast<size_t>(qPlace)] = true;
        break;
      }
    }
  }
  return f;
}

}  // namespace tg::detail
