#include "fold_second_output.h"

#include <algorithm>

#include "../ops/op_registry.h"
#include "fold_epilogue.h"
#include "fold_transpose.h"
#include "fuse_elementwise.h"
#include "fused_chain.h"

namespace tg::detail {

bool readsOnlyStoredValue(const Graph& graph, int stored, const std::vector<int>& group) {
  FusedChain probe(graph, group, 0);
  probe.value(graph.ops[static_cast<size_t>(group.back())].out, "o");
  return probe.external() == std::vector<int>{stored} && probe.readsOnlyAt("o") &&
         probe.preamble().empty();
}

std::vector<int> foldSecondOutputs(const Graph& graph, const BufferUse& use,
                                   const std::vector<std::vector<int>>& groups,
                                   const std::vector<bool>& elsewhere,
                                   const std::vector<int>& epilogueOf,
                                   const std::vector<int>& epilogueFrom,
                                   const std::vector<int>& sumOf,
                                   const std::vector<bool>& prologueFolded,
                                   const std::vector<std::array<int, 2>>& permuteOf) {
  const size_t n = graph.ops.size();
  std::vector<int> secondOf(n, -1);
  if (groups.empty()) return secondOf;
  const std::vector<int> groupOf = groupEnds(groups);
  std::vector<bool> taken(n, false);
  for (size_t place = 0; place < n; ++place) {
    // The matmul kernel standing here: its epilogue's end, or a matmul with none.
    int matmul = epilogueFrom.empty() ? -1 : epilogueFrom[place];
    if (matmul < 0 && isMatmul(graph.ops[place].kind) &&
        (epilogueOf.empty() || epilogueOf[place] < 0))
      matmul = static_cast<int>(place);
    if (matmul < 0 || (!sumOf.empty() && sumOf[static_cast<size_t>(matmul)] >= 0)) continue;
    const Op& mm = graph.ops[static_cast<size_t>(matmul)];
    if (shapeSize(graph.tensor(mm.out).shape) == 0 || graph.tensor(mm.inputs[0]).shape.back() == 0)
      continue;
    size_t epilogueBindings = 0;
    if (static_cast<int>(place) != matmul) {
      const std::vector<int>& epilogue = groups[place];
      if (std::any_of(epilogue.begin(), epilogue.end(), [&](int m) {
            return graph.ops[static_cast<size_t>(m)].kind == OpKind::Permute;
          }))
        continue;  // a permuted store: the value's index is not the product's
      std::vector<int> external;
      matmulEpilogue(graph, matmul, epilogue, external);
      epilogueBindings = external.size();
    }
    if (2 + epilogueBindings + 2 > kMaxStorageBuffersPerKernel) continue;
    const int stored = graph.ops[place].out;
    if (graph.tensor(stored).dtype != Dtype::F32) continue;
    int first = matmul;  // the kernel's first op (a folded permute of an operand comes before)
    for (int p : permutesOf(permuteOf, matmul))
      if (p >= 0) first = std::min(first, p);
    // Of the groups that qualify, the one whose result most ops read: they all start earlier.
    int best = -1;
    for (int reader : use.readers(stored)) {
      const int last = groupOf[static_cast<size_t>(reader)];
      if (last < 0 || last == static_cast<int>(place) || taken[static_cast<size_t>(last)]) continue;
      const std::vector<int>& group = groups[static_cast<size_t>(last)];
      if (group.empty() || group.back() != last) continue;
      if ((!epilogueFrom.empty() && epilogueFrom[static_cast<size_t>(last)] >= 0) ||
          (!prologueFolded.empty() && prologueFolded[static_cast<size_t>(last)]))
        continue;
      const Op& end = graph.ops[static_cast<size_t>(last)];
      if (use.aliasedReshape(end) || graph.tensor(end.out).dtype != Dtype::F32 ||
          shapeSize(graph.tensor(end.out).shape) != shapeSize(graph.tensor(stored).shape))
        continue;
      if (!std::all_of(group.begin(), group.end(),
                       [&](int m) { return fusable(graph, m, elsewhere); }))
        continue;
      if (!readsOnlyStoredValue(graph, stored, group)) continue;
      if (!use.idle(end.out, first, last, group)) continue;
      const auto readers = [&](int g) {
        return use.readers(graph.ops[static_cast<size_t>(g)].out).size();
      };
      if (best < 0 || readers(last) > readers(best)) best = last;
    }
    if (best < 0) continue;
    secondOf[place] = best;
    taken[static_cast<size_t>(best)] = true;
  }
  return secondOf;
}

std::string secondOutputFunction(const Graph& graph, int stored, const std::vector<int>& group) {
  FusedChain chain(graph, group, 0);
  chain.provide(stored, "v");
  const std::string result = chain.value(graph.ops[static_cast<size_t>(group.back())].out, "o");
  return "fn second(o : u32, v : f32) -> f32 {\n" + chain.body() + "  return " + result + ";\n}\n";
}

}  // namespace tg::detail
