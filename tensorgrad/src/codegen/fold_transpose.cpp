#include "fold_transpose.h"

#include "../ops/transpose_fast.h"

namespace tg::detail {

std::array<int, 2> permutesOf(const std::vector<std::array<int, 2>>& permuteOf, int matmul) {
  return permuteOf.empty() ? std::array<int, 2>{-1, -1} : permuteOf[static_cast<size_t>(matmul)];
}

std::array<int, 2> operandSources(const Graph& graph, int matmul,
                                  const std::array<int, 2>& permutes) {
  const Op& op = graph.ops[static_cast<size_t>(matmul)];
  std::array<int, 2> read{};
  for (size_t i = 0; i < 2; ++i) {
    const int perm = permutes[i];
    read[i] = perm >= 0 ? graph.ops[static_cast<size_t>(perm)].inputs[0] : op.inputs[i];
  }
  return read;
}

TransposeFolds foldTransposes(const Graph& graph, const BufferUse& use,
                              const std::set<int>& materialized) {
  TransposeFolds f;
  f.permuteOf.assign(graph.ops.size(), {-1, -1});
  f.folded.assign(graph.ops.size(), false);
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const Op& op = graph.ops[i];
    if (op.kind != OpKind::Matmul && op.kind != OpKind::MatmulBatched) continue;
    if (shapeSize(graph.tensor(op.out).shape) == 0 || graph.tensor(op.inputs[0]).shape.back() == 0)
      continue;
    const int at = static_cast<int>(i);
    for (size_t operand = 0; operand < 2; ++operand) {
      const int t = op.inputs[operand];
      const int p = *graph.tensor(t).source;
      const Op& permute = graph.ops[static_cast<size_t>(p)];
      if (permute.kind != OpKind::Permute || !swapsLastTwo(permute.attrs.perm)) continue;
      if (materialized.contains(p)) continue;
      if (!use.transient(t, at) || !use.untouched(permute.inputs[0], p, at)) continue;
      f.permuteOf[i][operand] = p;
      f.folded[static_cast<size_t>(p)] = true;
    }
  }
  return f;
}

}  // namespace tg::detail
