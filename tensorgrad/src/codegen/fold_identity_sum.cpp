#include "fold_identity_sum.h"

#include "fold_transpose.h"

namespace tg::detail {

std::vector<int> foldIdentitySums(const Graph& graph, const BufferUse& use,
                                  const std::vector<std::array<int, 2>>& permuteOf) {
  std::vector<int> sumOf(graph.ops.size(), -1);
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const Op& op = graph.ops[i];
    if (op.kind != OpKind::Matmul && op.kind != OpKind::MatmulBatched) continue;
    if (shapeSize(graph.tensor(op.out).shape) == 0 || graph.tensor(op.inputs[0]).shape.back() == 0)
      continue;
    const std::set<int>& readers = use.readers(op.out);
    if (readers.size() != 1) continue;
    const int s = *readers.begin();
    const Op& sum = graph.ops[static_cast<size_t>(s)];
    if (sum.kind != OpKind::SumToShape ||
        graph.tensor(sum.out).shape != graph.tensor(op.out).shape || !use.transient(op.out, s))
      continue;
    const int at = static_cast<int>(i);
    bool safe = true;
    for (int read : operandSources(graph, at, permutesOf(permuteOf, at)))
      if (!use.untouched(read, at, s) || use.bufferOf(read) == use.bufferOf(sum.out)) safe = false;
    if (safe) sumOf[i] = s;
  }
  return sumOf;
}

}  // namespace tg::detail
