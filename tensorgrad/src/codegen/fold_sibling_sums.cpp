#include "fold_sibling_sums.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <set>

#include "../ops/reduce_fast.h"
#include "fold_prologue.h"
#include "fold_transpose.h"
#include "fuse_elementwise.h"
#include "fused_chain.h"

namespace tg::detail {
namespace {

constexpr size_t kMaxSiblings = 4;  // the sums fastColumnSumsKernel adds side by side

struct Sum {
  int op = -1;
  int input = -1;  // the tensor summed over its rows
  std::array<int64_t, 3> shape{};
  std::vector<int> group;  // the fused group computing its input, else empty (read from a buffer)
  std::set<int> reads;     // the buffers (tensors) it reads
  int weight = -1;  // a matrix-vector product's vector: row r of the input is summed times it[r]
  int product = -1;  // that product's matmul op, where the sum stands at its identity sum
};

// The tensor whose buffer `t` views through aliased reshapes (planned into their input's
// buffer), else `t`: sums reading one buffer through different views then read it in common.
int viewedTensor(const Graph& graph, const BufferUse& use, int t) {
  for (;;) {
    const std::optional<int> source = graph.tensor(t).source;
    if (!source || !use.aliasedReshape(graph.ops[static_cast<size_t>(*source)])) return t;
    t = graph.ops[static_cast<size_t>(*source)].inputs[0];
  }
}

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
  Sum s{.op = static_cast<int>(i), .input = input, .shape = *shape};
  // The group its prologue computes, or would (foldPrologues takes no other).
  const std::vector<int> group =
      reductionInputGroup(graph, use, groups, elsewhere, epilogueFrom, static_cast<int>(i));
  if (!group.empty()) {
    s.group = group;
    for (int m : group)
      for (int t : graph.ops[static_cast<size_t>(m)].inputs)
        if (!inGroup(group, *graph.tensor(t).source)) s.reads.insert(t);
  } else {
    s.input = viewedTensor(graph, use, input);
    s.reads.insert(s.input);
  }
  return s;
}

// Matmul op `i` as a weighted column sum, else nullopt: out [1, N] = vᵀ·B with v K values (an
// lhs [1, K], or [K, 1] read through its folded permute), B [K, N] as stored (N a multiple of
// 4), all f32, and nothing folded into its kernel or it into another's (`absorbed`) but the
// identity sum it computes (`sumOf`), where the sum then stands.
std::optional<Sum> weightedCandidate(const Graph& graph, const BufferUse& use, size_t i,
                                     const std::vector<bool>& elsewhere,
                                     const std::vector<bool>& absorbed,
                                     const std::vector<std::array<int, 2>>& permuteOf,
                                     const std::vector<int>& sumOf) {
  const Op& op = graph.ops[i];
  if (op.kind != OpKind::Matmul || elsewhere[i] || absorbed[i]) return std::nullopt;
  const int place = sumOf.empty() || sumOf[i] < 0 ? static_cast<int>(i) : sumOf[i];
  if (elsewhere[static_cast<size_t>(place)] || absorbed[static_cast<size_t>(place)])
    return std::nullopt;
  const std::array<int, 2> permutes = permutesOf(permuteOf, static_cast<int>(i));
  if (permutes[1] >= 0) return std::nullopt;
  const int v = viewedTensor(graph, use, operandSources(graph, static_cast<int>(i), permutes)[0]);
  const int b = viewedTensor(graph, use, op.inputs[1]);
  const Shape& out = graph.tensor(op.out).shape;
  const Shape& bs = graph.tensor(op.inputs[1]).shape;
  const Shape& lhs = graph.tensor(op.inputs[0]).shape;
  if (out.size() != 2 || out[0] != 1 || bs.size() != 2 || lhs.size() != 2 || lhs[0] != 1 ||
      out[1] % 4 || out[1] == 0 || shapeSize(graph.tensor(v).shape) != bs[0])
    return std::nullopt;
  for (int t : {v, b, op.out})
    if (graph.tensor(t).dtype != Dtype::F32) return std::nullopt;
  return Sum{.op = place,
             .input = b,
             .shape = {1, bs[0], bs[1]},
             .reads = {b, v},
             .weight = v,
             .product = place == static_cast<int>(i) ? -1 : static_cast<int>(i)};
}

}  // namespace

SiblingSums foldSiblingSums(const Graph& graph, const BufferUse& use,
                            const std::vector<std::vector<int>>& groups,
                            const std::vector<bool>& elsewhere,
                            const std::vector<int>& epilogueFrom, const std::vector<int>& sumFrom,
                            const std::vector<bool>& absorbed,
                            const std::vector<std::array<int, 2>>& permuteOf,
                            const std::vector<int>& sumOf) {
  const size_t count = graph.ops.size();
  SiblingSums r{.folded = std::vector<bool>(count, false)};
  std::vector<Sum> sums;
  for (size_t i = 0; i < count; ++i) {
    if (!absorbed[i])
      if (auto s = candidate(graph, use, i, groups, elsewhere, epilogueFrom, sumFrom))
        sums.push_back(std::move(*s));
    if (auto s = weightedCandidate(graph, use, i, elsewhere, absorbed, permuteOf, sumOf))
      sums.push_back(std::move(*s));
  }
  // Every op a kernel of `members` computes, in op order: their groups and the sums.
  const auto opsOf = [&](const std::vector<size_t>& members) {
    std::vector<int> ops;
    for (size_t m : members) {
      ops.insert(ops.end(), sums[m].group.begin(), sums[m].group.end());
      ops.push_back(sums[m].op);
      if (sums[m].product >= 0) ops.push_back(sums[m].product);
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
        safe = safe &&
               (s.group.empty() ? use.untouched(s.input, s.op, place)
                                : readableAt(graph, use, s.group, place)) &&
               (s.weight < 0 || use.untouched(s.weight, s.op, place)) &&
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
    for (size_t m : members) inputs.push_back(sums[m].input);
    // The weighted sums' vectors, bound after the chain's buffers: weights[k] is member k's
    // binding name, empty for a plain sum.
    std::vector<int> vectors;
    std::vector<std::string> weights;
    for (size_t m : members) {
      const int w = sums[m].weight;
      if (w < 0) {
        weights.emplace_back();
        continue;
      }
      const auto at = std::find(vectors.begin(), vectors.end(), w);
      weights.push_back("weight" + n(at - vectors.begin()));
      if (at == vectors.end()) vectors.push_back(w);
    }
    FusedChain probe(graph, ops, 0);
    for (int t : inputs) probe.value(t, "i");
    const bool vec4 = probe.readsOnlyAt("i") &&
                      std::all_of(probe.external().begin(), probe.external().end(),
                                  [&](int t) { return graph.tensor(t).dtype == Dtype::F32; });
    auto chain = std::make_shared<FusedChain>(graph, ops, 0);
    // A row's vec4s: vec4 q is in row q / units (a weighted sum's shape has one outer index,
    // and the members share it).
    const int64_t units = sums[a].shape[2] / 4;
    const auto element = [chain, inputs, weights, units, vec4](const std::string& q,
                                                               const std::string& ind) {
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
        code += "let p" + n(static_cast<int64_t>(k)) + " = vec4<f32>(" + lanes[k] + ")" +
                (weights[k].empty() ? "" : " * " + weights[k] + "[q / " + u(units) + "]") + ";\n";
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
    std::string buffers = probe.preamble() + probe.bindings(vec4);
    for (size_t w = 0; w < vectors.size(); ++w)
      buffers += "@group(0) @binding(" + n(static_cast<int64_t>(probe.external().size() + w)) +
                 ") var<storage, read> weight" + n(static_cast<int64_t>(w)) + " : array<f32>;\n";
    const ColumnSums c{.outer = sums[a].shape[0],
                       .rows = sums[a].shape[1],
                       .cols = sums[a].shape[2],
                       .outputs = members.size(),
                       .buffers = buffers,
                       .bindings = probe.external().size() + vectors.size(),
                       .element = element};
    const KernelSource src = fastColumnSumsKernel(c);
    const int place = sums[members.back()].op;
    KernelSpec k{.opIndex = place,
                 .kind = graph.ops[static_cast<size_t>(place)].kind,
                 .wgsl = src.wgsl,
                 .threads = src.threads,
                 .workgroupSize = src.workgroupSize};
    for (int t : probe.external()) k.bindings.push_back(use.bufferOf(t));
    for (int t : vectors) k.bindings.push_back(use.bufferOf(t));
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
