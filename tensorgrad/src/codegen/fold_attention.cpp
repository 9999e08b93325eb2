#include "fold_attention.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "../ops/attention_fast.h"
#include "fold_epilogue.h"
#include "fold_transpose.h"
#include "folded_matmul.h"

namespace tg::detail {
namespace {

// The tensors the kernel reads: Q, K (or Kᵀ), V, each through its folded permute.
std::array<int, 3> sourcesOf(const Graph& graph, const AttentionFold& f,
                             const std::vector<std::array<int, 2>>& permuteOf) {
  const std::array<int, 2> qk = operandSources(graph, f.scores, permutesOf(permuteOf, f.scores));
  const std::array<int, 2> pv =
      operandSources(graph, f.weighted, permutesOf(permuteOf, f.weighted));
  return {qk[0], qk[1], pv[1]};
}

// The problem `f` computes, or nullopt where the kernel cannot take it.
std::optional<AttentionProblem> problemOf(const Graph& graph, const AttentionFold& f,
                                          const std::vector<std::vector<int>>& groups,
                                          const std::vector<std::array<int, 2>>& permuteOf,
                                          int64_t workgroupBytes) {
  const std::array<int, 2> sp = permutesOf(permuteOf, f.scores);
  const std::array<int, 2> wp = permutesOf(permuteOf, f.weighted);
  if (wp[0] >= 0) return std::nullopt;  // P read transposed
  const MatmulProblem s = foldedProblem(graph, f.scores, sp, {}, workgroupBytes, false);
  const MatmulProblem o = foldedProblem(graph, f.weighted, wp, {}, workgroupBytes, false);
  if (s.m != s.n || o.m != s.m || o.k != s.m || o.batches != s.batches || !s.batchedRhs ||
      !o.batchedRhs)
    return std::nullopt;
  const std::array<int, 3> src = sourcesOf(graph, f, permuteOf);
  const auto elements = [&](int t) { return shapeSize(graph.tensor(t).shape); };
  if (elements(src[0]) != s.batches * s.m * s.k || elements(src[1]) != s.batches * s.k * s.n ||
      elements(src[2]) != o.batches * o.k * o.n)
    return std::nullopt;
  AttentionProblem a{.batches = s.batches, .t = s.m, .dk = s.k, .dv = o.n, .transQ = s.transA,
                     .transK = s.transB, .transV = o.transB, .workgroupBytes = workgroupBytes};
  std::vector<int> external;
  if (f.scoresEnd != f.scores) {
    // Stored in place, with no helper the output's epilogue might define too.
    const std::vector<int>& group = groups[static_cast<size_t>(f.scoresEnd)];
    if (epilogueNeedsHelper(graph, f.scores, group)) return std::nullopt;
    const MatmulEpilogue e =
        matmulEpilogue(graph, f.scores, group, external, {}, std::nullopt, "scoreEpilogue");
    if (!external.empty() || e.permuted) return std::nullopt;
    a.scoreEpilogue = e.wgsl;
  }
  if (f.place != f.weighted) {
    a.epilogue = matmulEpilogue(graph, f.weighted, groups[static_cast<size_t>(f.place)], external);
    if (!external.empty()) return std::nullopt;
  }
  if (!attentionUnsupported(a).empty()) return std::nullopt;
  return a;
}

// Every op the kernel computes, in op order.
std::vector<int> opsOf(const AttentionFold& f, const std::vector<std::vector<int>>& groups,
                       const std::vector<std::array<int, 2>>& permuteOf) {
  std::vector<int> ops{f.scores, f.softmax, f.weighted};
  for (const int m : {f.scores, f.weighted})
    for (const int p : permutesOf(permuteOf, m))
      if (p >= 0) ops.push_back(p);
  if (f.scoresEnd != f.scores) {
    const std::vector<int>& g = groups[static_cast<size_t>(f.scoresEnd)];
    ops.insert(ops.end(), g.begin(), g.end());
  }
  if (f.place != f.weighted) {
    const std::vector<int>& g = groups[static_cast<size_t>(f.place)];
    ops.insert(ops.end(), g.begin(), g.end());
  }
  std::sort(ops.begin(), ops.end());
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  return ops;
}

}  // namespace

AttentionFolds foldAttention(const Graph& graph, const BufferUse& use,
                             const std::vector<std::vector<int>>& groups,
                             const std::vector<int>& epilogueOf, const std::vector<int>& epilogueFrom,
                             const std::vector<bool>& elsewhere, const std::vector<bool>& taken,
                             const std::vector<std::array<int, 2>>& permuteOf,
                             int64_t workgroupBytes) {
  const size_t count = graph.ops.size();
  AttentionFolds r(count);
  if (groups.empty() || epilogueOf.empty()) return r;
  const auto batched = [&](int m) { return graph.ops[static_cast<size_t>(m)].kind == OpKind::MatmulBatched; };
  const auto free = [&](int m) {
    return !taken[static_cast<size_t>(m)] && r.free(m);
  };
  for (size_t s = 0; s < count; ++s) {
    const Op& soft = graph.ops[s];
    const std::array<int, 2> scores =
        softmaxScores(graph, use, static_cast<int>(s), groups, epilogueOf, epilogueFrom, elsewhere);
    AttentionFold f{.scores = scores[0], .scoresEnd = scores[1], .softmax = static_cast<int>(s)};
    if (f.scores < 0 || !batched(f.scores) || !free(f.scores) || !free(f.scoresEnd)) continue;
    for (const int reader : use.readers(soft.out)) {
      if (!batched(reader) || graph.ops[static_cast<size_t>(reader)].inputs[0] != soft.out)
        continue;
      const int end = epilogueOf[static_cast<size_t>(reader)];
      AttentionFold g = f;
      g.weighted = reader;
      g.place = end >= 0 ? end : reader;
      if (!free(g.weighted) || !free(g.place)) continue;
      if (!problemOf(graph, g, groups, permuteOf, workgroupBytes)) continue;
      // Q and K are read at the place instead of the scores' op, V instead of the product's;
      // P is written there instead of at the softmax.
      const std::array<int, 3> src = sourcesOf(graph, g, permuteOf);
      if (!use.untouched(src[0], g.scores, g.place) || !use.untouched(src[1], g.scores, g.place) ||
          !use.untouched(src[2], g.weighted, g.place))
        continue;
      const std::vector<int> ops = opsOf(g, groups, permuteOf);
      if (!use.idle(soft.out, g.softmax, g.place, ops)) continue;
      r.add(g, g.place, ops);
      break;
    }
  }
  return r;
}

KernelSpec attentionKernel(const Graph& graph, const BufferPlan& plan, const AttentionFold& fold,
                           const std::vector<std::vector<int>>& groups,
                           const std::vector<std::array<int, 2>>& permuteOf,
                           int64_t workgroupBytes) {
  const std::optional<AttentionProblem> a =
      problemOf(graph, fold, groups, permuteOf, workgroupBytes);
  if (!a) throw std::logic_error("attentionKernel: the fold no longer fits the kernel");
  const KernelSource src = fastAttentionKernel(*a);
  const auto bufferOf = [&](int t) { return plan.tensorToBuffer.at(static_cast<size_t>(t)); };
  KernelSpec k{.opIndex = fold.place,
               .kind = graph.ops[static_cast<size_t>(fold.weighted)].kind,
               .wgsl = src.wgsl,
               .threads = src.threads,
               .workgroupSize = src.workgroupSize};
  for (const int t : sourcesOf(graph, fold, permuteOf)) k.bindings.push_back(bufferOf(t));
  k.bindings.push_back(bufferOf(graph.ops[static_cast<size_t>(fold.softmax)].out));
  k.bindings.push_back(bufferOf(graph.ops[static_cast<size_t>(fold.place)].out));
  k.outputs = 2;
  k.fusedOps = opsOf(fold, groups, permuteOf);
  // An invocation's share of both products' multiply-adds.
  k.loopLength = std::max<int64_t>(1, a->batches * a->t * a->t * (a->dk + a->dv) / src.threads);
  return k;
}

}  // namespace tg::detail
