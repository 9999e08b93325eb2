#include "fold_prologue.h"

#include <algorithm>

#include "../ops/op_registry.h"
#include "fuse_elementwise.h"
#include "fused_chain.h"

namespace tg::detail {
namespace {

// A reduction takes its group in only where each invocation sums at most this many elements.
constexpr int64_t kMaxPrologueElements = 16;

bool reduction(OpKind kind) {
  return kind == OpKind::SumLast || kind == OpKind::MeanLast || kind == OpKind::SumToShape;
}

}  // namespace

std::vector<int> reductionInputGroup(const Graph& graph, const BufferUse& use,
                                     const std::vector<std::vector<int>>& groups,
                                     const std::vector<bool>& elsewhere,
                                     const std::vector<int>& epilogueFrom, int reduction) {
  const int input = graph.ops[static_cast<size_t>(reduction)].inputs[0];
  const auto last = static_cast<size_t>(*graph.tensor(input).source);
  const std::vector<int>& group = groups.empty() ? std::vector<int>{} : groups[last];
  if (group.empty() || group.back() != static_cast<int>(last)) return {};
  if (!epilogueFrom.empty() && epilogueFrom[last] >= 0) return {};
  if (group.size() == 1 && use.aliasedReshape(graph.ops[last])) return {};
  if (graph.tensor(input).dtype != Dtype::F32 || !use.transient(input, reduction)) return {};
  if (!std::all_of(group.begin(), group.end(), [&](int m) { return fusable(graph, m, elsewhere); }))
    return {};
  return group;
}

PrologueFolds foldPrologues(const Graph& graph, const BufferUse& use,
                            const std::vector<std::vector<int>>& groups,
                            const std::vector<bool>& elsewhere, const std::vector<int>& epilogueFrom,
                            const std::vector<int>& sumFrom, int64_t workgroupBytes,
                            bool cpuDevice) {
  const size_t n = graph.ops.size();
  PrologueFolds folds{.folded = std::vector<bool>(n, false)};
  for (size_t i = 0; i < n; ++i) {
    const Op& op = graph.ops[i];
    if (!reduction(op.kind) || graph.tensor(op.out).dtype != Dtype::F32) continue;
    if ((!elsewhere.empty() && elsewhere[i]) || (!sumFrom.empty() && sumFrom[i] >= 0)) continue;
    const int input = op.inputs[0];
    const std::vector<int> group =
        reductionInputGroup(graph, use, groups, elsewhere, epilogueFrom, static_cast<int>(i));
    if (group.empty() || folds.folded[static_cast<size_t>(group.back())]) continue;
    if (!readableAt(graph, use, group, static_cast<int>(i))) continue;

    FusedChain chain(graph, group, 0);
    const std::string value = chain.value(input, "i");
    if (chain.external().size() + 1 > kMaxStorageBuffersPerKernel) continue;
    const ReducePrologue prologue{
        .wgsl = chain.preamble() + chain.bindings() + "fn prologue(i : u32) -> f32 {\n" +
                chain.body() + "  return " + value + ";\n}\n",
        .bindings = chain.external().size()};
    const OpDef& def = opDef(op.kind);
    if (!def.fastKernel) continue;
    const KernelSource src = def.fastKernel({op, graph, def, workgroupBytes, &prologue, cpuDevice});
    if (src.wgsl.empty()) continue;
    // Each invocation now also computes the group for every element it sums: where that is
    // many (a column sum of [1024, 64] into 64 outputs: 32 each), the group's own kernel, with an
    // invocation an element, is faster than the dispatch it saves (H100: 4 → 8-9 µs).
    const int64_t perInvocation = shapeSize(graph.tensor(input).shape) / std::max<int64_t>(src.threads, 1);
    if (perInvocation > kMaxPrologueElements) continue;

    KernelSpec k{.opIndex = static_cast<int>(i), .kind = op.kind};
    k.wgsl = src.wgsl;
    k.threads = src.threads;
    k.workgroupSize = src.workgroupSize;
    k.loopLength = std::max<int64_t>(1, perInvocation);
    k.fusedOps = group;
    k.fusedOps.push_back(static_cast<int>(i));
    for (int t : chain.external()) k.bindings.push_back(use.bufferOf(t));
    k.bindings.push_back(use.bufferOf(op.out));
    for (int m : group) folds.folded[static_cast<size_t>(m)] = true;
    folds.kernels.emplace(static_cast<int>(i), std::move(k));
  }
  return folds;
}

}  // namespace tg::detail
