#include "fold_sibling_sums.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <set>

#include "../ops/reduce_fast.h"
#include "fold_prologue.h"
#include "fuse_elementwise.h"
#include "fused_chain.h"

namespace tg::detail {
namespace {

constexpr size_t kMaxSiblings = 4;  // the sums fastColumnSumsKernel adds side by side

struct Sum {
  int op = -1;
  std::array<int64_t, 3> shape{};
  std::vector<int> group;  // the fused group computing its input, else empty (read from a buffer)
  std::set<int> reads;     // the buffers (tensors) it reads
};

// Sum op `i` as a candidate, else nullopt.
std::optional<Sum> candidate(const Graph& graph, const BufferUse& use, size_t i,
                             const std::vector<std::vector<int>>& groups,
                             const std::vector<bool>& elsewhere,
                             const std::vector<int>& epilogueFrom,
                             const std::vector<int>& sumFrom) {
  const Op& op = graph.ops[i];
  if (op.kind != OpKind::SumToShape || graph.tensor(op.out).dtype != Dtype::F32)
    return std::nullopt;
  if ((!elsewhere.empty() && elsewhere[i]) || (!sumFrom.empty() && sumFrom[i] >= 0))
    return std::nullopt;
  const int input = op.inputs[0];
  if (graph.tensor(input).dtype != Dtype::F32) return std::nullopt;
  const auto shape = columnSumOf(graph.tensor(input).shape, graph.tensor(op.out).shape);
  if (!shape || (*shape)[2] % 4) return std::nullopt;
  Sum s{.op = static_cast<int>(i), .shape = *shape};
  // The group its prologue computes, or would (foldPrologues takes no other).
  const std::vector<int> group =
      reductionInputGroup(graph, use, groups, elsewhere, epilogueFrom, static_cast<int>(i));
  if (!group.empty()) {
    s.group = group;
    for (int m : group)
      for (int t : graph.ops[static_cast<size_t>(m)].inputs)
        if (!inGroup(group, *graph.tensor(t).source)) s.reads.insert(t);
  } else {
    s.reads.insert(input);
  }
  return s;
}

}  // namespace

SiblingSums foldSiblingSums(const Graph& graph, const BufferUse& use,
                            const std::vector<std::vector<int>>& groups,
                            const std::vector<bool>& elsewhere,
                            const std::vector<int>& epilogueFrom, const std::vector<int>& sumFrom) {
  const size_t count = graph.ops.size();
  SiblingSums r{.folded = std::vector<bool>(count, false)};
  std::vector<Sum> sums;
  for (size_t i = 0; i < count; ++i)
    if (auto s = candidate(graph, use, i, groups, elsewhere, epilogueFrom, sumFrom))
      sums.push_back(std::move(*s));
  // Every op a kernel of `members` computes, in op order: their groups and the sums.
  const auto opsOf = [&](const std::vector<size_t>& members) {
    std::vector<int> ops;
    for (size_t m : members) {
      ops.insert(ops.end(), sums[m].group.begin(), sums[m].group.end());
      ops.push_back(sums[m].op);
    }
    std::sort(ops.begin(), ops.end());
    return ops;
  };
  std::vector<bool> taken(sums.size(), false);
  for (size_t a = 0; a < sums.size(); ++a) {
    if (taken[a]) continue;
    std::vector<size_t> members{a};
    std::set<int> reads = sums[a].reads;
    for (size_t b = a + 1; b < sums.size() && members.size() < kMaxSiblings; ++b) {
      if (taken[b] || sums[b].shape != sums[a].shape) continue;
      if (std::none_of(sums[b].reads.begin(), sums[b].reads.end(),
                       [&](int t) { return reads.contains(t); }))
        continue;
      std::set<int> joined = reads;
      joined.insert(sums[b].reads.begin(), sums[b].reads.end());
      if (joined.size() + members.size() + 1 > kMaxStorageBuffersPerKernel) continue;
      // The kernel would stand at b: every member so far still reads and writes as it would.
      std::vector<size_t> with = members;
      with.push_back(b);
      const std::vector<int> ops = opsOf(with);
      const int place = sums[b].op;
      bool safe = true;
      for (size_t m : members) {
        const Sum& s = sums[m];
        const int input = graph.ops[static_cast<size_t>(s.op)].inputs[0];
        safe = safe &&
               (s.group.empty() ? use.untouched(input, s.op, place)
                                : readableAt(graph, use, s.group, place)) &&
               use.idle(graph.ops[static_cast<size_t>(s.op)].out, s.op, place, ops);
      }
      if (!safe) continue;
      members.push_back(b);
      reads = std::move(joined);
    }
    if (members.size() < 2) continue;
    // One chain over every member's group, evaluated at 4 elements a block: vec4 loads where
    // every buffer is read at the element's own index, else 4 scalar evaluations.
    std::vector<int> ops;
    for (size_t m : members) ops.insert(ops.end(), sums[m].group.begin(), sums[m].group.end());
    std::sort(ops.begin(), ops.end());
    std::vector<int> inputs;
    for (size_t m : members) inputs.push_back(graph.ops[static_cast<size_t>(sums[m].op)].inputs[0]);
    FusedChain probe(graph, ops, 0);
    for (int t : inputs) probe.value(t, "i");
    const bool vec4 = probe.readsOnlyAt("i") &&
                      std::all_of(probe.external().begin(), probe.external().end(),
                                  [&](int t) { return graph.tensor(t).dtype == Dtype::F32; });
    auto chain = std::make_shared<FusedChain>(graph, ops, 0);
    const auto element = [chain, inputs, vec4](const std::string& q, const std::string& ind) {
      const FusedChain::Scope scope = chain->save();
      const size_t before = chain->body().size();
      std::vector<std::string> lanes(inputs.size());
      for (int64_t e = 0; e < 4; ++e)
        for (size_t k = 0; k < inputs.size(); ++k)
          lanes[k] += (e ? ", " : "") + (vec4 ? chain->value(inputs[k], "q", lane(e))
                                              : chain->value(inputs[k], "i" + n(e)));
      std::string head = "let q = " + q + ";\n";
      if (vec4) {
        head += chain->vec4Loads("q");
      } else {
        for (int64_t e = 0; e < 4; ++e) head += "let i" + n(e) + " = 4u * q + " + u(e) + ";\n";
      }
      std::string code = head + chain->body().substr(before);
      for (size_t k = 0; k < inputs.size(); ++k)
        code += "let p" + n(static_cast<int64_t>(k)) + " = vec4<f32>(" + lanes[k] + ");\n";
      chain->restore(scope);
      std::string out;  // each statement on a line of its own at `ind`
      for (size_t at = 0; at < code.size();) {
        const size_t end = code.find('\n', at);
        const size_t first = code.find_first_not_of(' ', at);
        out += ind + code.substr(first, end - first) + "\n";
        at = end + 1;
      }
      return out;
    };
    const ColumnSums c{.outer = sums[a].shape[0],
                       .rows = sums[a].shape[1],
                       .cols = sums[a].shape[2],
                       .outputs = members.size(),
                       .buffers = probe.preamble() + probe.bindings(vec4),
                       .bindings = probe.external().size(),
                       .element = element};
    const KernelSource src = fastColumnSumsKernel(c);
    const int place = sums[members.back()].op;
    KernelSpec k{.opIndex = place,
                 .kind = graph.ops[static_cast<size_t>(place)].kind,
                 .wgsl = src.wgsl,
                 .threads = src.threads,
                 .workgroupSize = src.workgroupSize};
    for (int t : probe.external()) k.bindings.push_back(use.bufferOf(t));
    for (size_t m : members)
      k.bindings.push_back(use.bufferOf(graph.ops[static_cast<size_t>(sums[m].op)].out));
    k.outputs = static_cast<int>(members.size());
    k.fusedOps = opsOf(members);
    k.loopLength =
        std::max<int64_t>(1, c.outer * c.rows * c.cols / std::max<int64_t>(src.threads, 1));
    for (int m : k.fusedOps)
      if (m != place) r.folded[static_cast<size_t>(m)] = true;
    for (size_t m : members) taken[m] = true;
    r.kernels.emplace(place, std::move(k));
  }
  return r;
}

}  // namespace tg::detail
