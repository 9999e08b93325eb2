#include "fold_product_sum.h"

#include <algorithm>
#include <set>

#include "../ops/op_registry.h"
#include "fold_epilogue.h"
#include "fold_transpose.h"
#include "folded_matmul.h"
#include "fuse_elementwise.h"

namespace tg::detail {
namespace {

// An add of two values of `shape` (no broadcast) giving `shape`.
bool sameShapeAdd(const Graph& graph, const Op& op, const Shape& shape) {
  return op.kind == OpKind::Add && graph.tensor(op.out).shape == shape &&
         graph.tensor(op.inputs[0]).shape == shape && graph.tensor(op.inputs[1]).shape == shape;
}

// The leaves of the tree of same-shape adds of `group` under value `t`: t itself, or where an add
// of the group read only once produces it, the leaves under its two inputs.
void addLeaves(const Graph& graph, const BufferUse& use, const std::vector<int>& group, int t,
               const Shape& shape, std::vector<int>& leaves) {
  const int source = *graph.tensor(t).source;
  const Op& op = graph.ops[static_cast<size_t>(source)];
  if (inGroup(group, source) && sameShapeAdd(graph, op, shape) && use.readers(t).size() == 1) {
    for (int in : op.inputs) addLeaves(graph, use, group, in, shape, leaves);
    return;
  }
  leaves.push_back(t);
}

}  // namespace

std::vector<std::vector<int>> foldProductSums(const Graph& graph, const BufferUse& use,
                                              const std::vector<std::vector<int>>& groups,
                                              const std::vector<int>& epilogueOf,
                                              const std::vector<int>& secondOf,
                                              const std::vector<std::array<int, 2>>& permuteOf,
                                              const std::vector<int>& sumOf,
                                              int64_t workgroupBytes, bool cpuDevice) {
  const size_t n = graph.ops.size();
  std::vector<std::vector<int>> summedInto(n);
  if (epilogueOf.empty()) return summedInto;
  const auto permutes = [&](int m) { return permutesOf(permuteOf, m); };
  const auto at = [](const std::vector<int>& of, int m) {
    return of.empty() ? -1 : of[static_cast<size_t>(m)];
  };
  for (size_t i = 0; i < n; ++i) {
    const int last = epilogueOf[i];
    if (last < 0) continue;
    const Op& mm = graph.ops[i];
    const Shape& shape = graph.tensor(mm.out).shape;
    const std::vector<int>& group = groups[static_cast<size_t>(last)];
    // The adds that start the path carry mm + (their other inputs) on; what those other inputs
    // are made of, through adds read once, is a sum of leaves.
    std::vector<int> leaves;
    int value = mm.out;
    for (int m : epiloguePath(graph, static_cast<int>(i), group)) {
      const Op& op = graph.ops[static_cast<size_t>(m)];
      // The running sum read once, by this add alone: v + v doubles mm, which the K loop adds
      // once.
      if (!sameShapeAdd(graph, op, shape) || op.inputs[0] == op.inputs[1] ||
          use.readers(value).size() != 1)
        break;
      addLeaves(graph, use, group, op.inputs[op.inputs[0] == value ? 1 : 0], shape, leaves);
      value = op.out;
    }
    const auto mp = permutes(static_cast<int>(i));
    const MatmulProblem own =
        foldedProblem(graph, static_cast<int>(i), mp, {}, workgroupBytes, cpuDevice);
    std::vector<int> summed;
    for (int t : leaves) {
      // A product the tree adds twice (P + P) stays a kernel: the K loop would add it once.
      if (std::count(leaves.begin(), leaves.end(), t) != 1) continue;
      const int p = *graph.tensor(t).source;
      const Op& op = graph.ops[static_cast<size_t>(p)];
      const std::set<int>& readers = use.readers(t);
      if (!isMatmul(op.kind) || p == static_cast<int>(i) ||
          at(sumOf, p) >= 0 || at(epilogueOf, p) >= 0 || at(secondOf, p) >= 0 ||
          readers.size() != 1 || !use.transient(t, *readers.begin()) ||
          graph.tensor(t).shape != shape || op.kind != mm.kind)
        continue;
      // The same layout: folded permutes on the same operands.
      const auto pp = permutes(p);
      if ((pp[0] >= 0) != (mp[0] >= 0) || (pp[1] >= 0) != (mp[1] >= 0)) continue;
      // Its operands are read at the epilogue's end instead of at the product.
      bool safe = true;
      for (int read : operandSources(graph, p, pp))
        if (!use.untouched(read, p, last)) safe = false;
      if (!safe) continue;
      const MatmulProblem one = foldedProblem(graph, p, pp, {}, workgroupBytes, cpuDevice);
      if (one.batches != own.batches || one.m != own.m || one.n != own.n ||
          one.batchedRhs != own.batchedRhs)
        continue;
      summed.push_back(p);
    }
    if (summed.empty()) continue;
    std::sort(summed.begin(), summed.end());  // binding order is op order
    const MatmulProblem whole =
        foldedProblem(graph, static_cast<int>(i), mp, summed, workgroupBytes, cpuDevice);
    if (!kUnsupported(whole, chooseTiling(whole)).empty()) continue;
    // Storage buffers: every operand pair, the group's other inputs, the output and a second.
    std::set<int> external = epilogueInputs(graph, static_cast<int>(i), group);
    for (int p : summed) external.erase(graph.ops[static_cast<size_t>(p)].out);
    const size_t second = at(secondOf, last) >= 0 ? 1 : 0;
    if (2 * (1 + summed.size()) + external.size() + 1 + second > kMaxStorageBuffersPerKernel)
      continue;
    summedInto[i] = std::move(summed);
  }
  return summedInto;
}

}  // namespace tg::detail
