#include "fold_epilogue.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "../ops/op_registry.h"
#include "fuse_elementwise.h"
#include "fold_transpose.h"
#include "fused_chain.h"

namespace tg::detail {
namespace {

// The chain computing `group` on matmul op `matmul`'s value "mm", its buffers bound from
// `firstBinding`, the products of `summed` added in already.
FusedChain epilogueChain(const Graph& graph, int matmul, const std::vector<int>& group,
                         const std::vector<int>& summed, size_t firstBinding,
                         const ReusedBuffers& reuse) {
  FusedChain chain(graph, group, firstBinding);
  chain.provide(graph.ops[static_cast<size_t>(matmul)].out, "mm");
  for (const auto& [t, fns] : reuse) chain.reuse(t, fns.first, fns.second);
  for (int m : summed) chain.provideZero(graph.ops[static_cast<size_t>(m)].out);
  return chain;
}

// matmulEpilogue's `wgsl4` for an unpermuted `path` whose buffers (`external`, in binding
// order) are all read at the product's element: the chain computed lane by lane at vec4 index q.
std::string epilogue4(const Graph& graph, int matmul, const std::vector<int>& group,
                      const std::vector<int>& path, const std::vector<int>& external,
                      const std::vector<int>& summed, size_t firstBinding,
                      const std::string& name, const ReusedBuffers& reuse) {
  FusedChain chain = epilogueChain(graph, matmul, group, summed, firstBinding, reuse);
  int t = graph.ops[static_cast<size_t>(matmul)].out;
  for (int m : path) {
    t = graph.ops[static_cast<size_t>(m)].out;
    chain.pin(t, "q");
  }
  std::string lanes;
  for (const char* lane : {"x", "y", "z", "w"})
    lanes += (lanes.empty() ? "" : ", ") + chain.value(t, "q", lane);
  if (chain.external() != external)
    throw std::logic_error("matmul epilogue: the vec4 form binds other buffers");
  return chain.preamble() + chain.bindings(true) +
         "fn " + name + "4(o : u32, mm : vec4<f32>) -> vec4<f32> {\n  let q = o / 4u;\n" +
         chain.vec4Loads("q") + chain.body() + "  return vec4<f32>(" + lanes + ");\n}\n";
}

}  // namespace

std::set<int> epilogueInputs(const Graph& graph, int matmul, const std::vector<int>& group) {
  const int product = graph.ops[static_cast<size_t>(matmul)].out;
  std::set<int> inputs;
  for (int m : group)
    for (int t : graph.ops[static_cast<size_t>(m)].inputs)
      if (t != product && !inGroup(group, *graph.tensor(t).source)) inputs.insert(t);
  return inputs;
}

std::vector<int> epiloguePath(const Graph& graph, int matmul, const std::vector<int>& group) {
  std::vector<int> path;
  int t = graph.ops[static_cast<size_t>(matmul)].out;
  while (path.empty() || path.back() != group.back()) {
    int reader = -1;
    for (int m : group) {
      const Op& op = graph.ops[static_cast<size_t>(m)];
      if (std::find(op.inputs.begin(), op.inputs.end(), t) == op.inputs.end()) continue;
      if (reader >= 0) return {};
      reader = m;
    }
    if (reader < 0) return {};
    const Op& op = graph.ops[static_cast<size_t>(reader)];
    const bool bijective = op.kind == OpKind::Reshape || op.kind == OpKind::Permute;
    if (!bijective && graph.tensor(t).shape != graph.tensor(op.out).shape) return {};
    path.push_back(reader);
    t = op.out;
  }
  return path;
}

std::vector<int> foldEpilogues(const Graph& graph, const BufferUse& use,
                               const std::vector<std::vector<int>>& groups,
                               const std::vector<bool>& elsewhere,
                               const std::vector<std::array<int, 2>>& permuteOf,
                               const std::vector<int>& sumOf) {
  const size_t n = graph.ops.size();
  const std::vector<int> groupOf = groupEnds(groups);
  std::vector<int> epilogueOf(n, -1);
  for (size_t i = 0; i < n; ++i) {
    const Op& op = graph.ops[i];
    if (!isMatmul(op.kind) || (!sumOf.empty() && sumOf[i] >= 0)) continue;
    if (shapeSize(graph.tensor(op.out).shape) == 0 || graph.tensor(op.inputs[0]).shape.back() == 0)
      continue;
    const std::set<int>& readers = use.readers(op.out);
    if (readers.size() != 1 || !use.transient(op.out, *readers.begin())) continue;
    const int last = groupOf[static_cast<size_t>(*readers.begin())];
    // One product a group (the first; a sum of products reads the others from their buffers).
    if (last < 0 || std::find(epilogueOf.begin(), epilogueOf.end(), last) != epilogueOf.end())
      continue;
    const std::vector<int>& group = groups[static_cast<size_t>(last)];
    const Op& end = graph.ops[static_cast<size_t>(last)];
    // A lone aliased reshape costs nothing already; the store writes f32 only.
    if (group.size() == 1 && use.aliasedReshape(end)) continue;
    if (graph.tensor(end.out).dtype != Dtype::F32) continue;
    // Every op of a group of one too (fuseGroups lists every op in some group) must be one a
    // fused kernel may compute.
    if (!std::all_of(group.begin(), group.end(), [&](int m) { return fusable(graph, m, elsewhere); }))
      continue;
    if (epiloguePath(graph, static_cast<int>(i), group).empty()) continue;
    // The matmul now reads its operands at the group's end.
    const int at = static_cast<int>(i);
    bool safe = true;
    for (int read : operandSources(graph, at, permutesOf(permuteOf, at)))
      if (!use.untouched(read, at, last)) safe = false;
    if (!safe) continue;
    if (2 + epilogueInputs(graph, at, group).size() + 1 > kMaxStorageBuffersPerKernel) continue;
    epilogueOf[i] = last;
  }
  return epilogueOf;
}

std::array<int, 2> softmaxScores(const Graph& graph, const BufferUse& use, int softmax,
                                 const std::vector<std::vector<int>>& groups,
                                 const std::vector<int>& epilogueOf,
                                 const std::vector<int>& epilogueFrom,
                                 const std::vector<bool>& elsewhere) {
  const auto s = static_cast<size_t>(softmax);
  const Op& soft = graph.ops[s];
  if (soft.kind != OpKind::SoftmaxCausalLast || (s < elsewhere.size() && elsewhere[s]) ||
      groups[s].size() > 1 || graph.tensor(soft.out).dtype != Dtype::F32)
    return {-1, -1};
  const int scores = soft.inputs[0];
  if (!graph.tensor(scores).source || !use.transient(scores, softmax)) return {-1, -1};
  const auto producer = static_cast<size_t>(*graph.tensor(scores).source);
  if (epilogueFrom[producer] >= 0) return {epilogueFrom[producer], static_cast<int>(producer)};
  if (epilogueOf[producer] < 0 && isMatmul(graph.ops[producer].kind))
    return {static_cast<int>(producer), static_cast<int>(producer)};
  return {-1, -1};
}

bool epilogueNeedsHelper(const Graph& graph, int matmul, const std::vector<int>& group) {
  FusedChain probe(graph, group, 0);
  probe.provide(graph.ops[static_cast<size_t>(matmul)].out, "mm");
  probe.value(graph.ops[static_cast<size_t>(group.back())].out, "o");
  return !probe.preamble().empty();
}

MatmulEpilogue matmulEpilogue(const Graph& graph, int matmul, const std::vector<int>& group,
                              std::vector<int>& external, const std::vector<int>& summed,
                              std::optional<size_t> firstBindingAt, const std::string& name,
                              const ReusedBuffers& reuse) {
  const std::vector<int> path = epiloguePath(graph, matmul, group);
  const size_t firstBinding = firstBindingAt.value_or(2 + 2 * summed.size());
  FusedChain chain = epilogueChain(graph, matmul, group, summed, firstBinding, reuse);
  int t = graph.ops[static_cast<size_t>(matmul)].out;
  // Where the product's element o travels along the path: through a permute, from the input's
  // index to the output's (the permute's inverse map); the rest keep the flat index.
  std::string index, at = "o";
  int vars = 0;
  bool permuted = false;
  // Runs of 4 stay runs where every permute keeps a last axis 4k long last.
  bool runsOf4 = true;
  for (int m : path) {
    const Op& op = graph.ops[static_cast<size_t>(m)];
    if (op.kind == OpKind::Permute) {
      const Shape& in = graph.tensor(t).shape;
      runsOf4 = runsOf4 && !in.empty() && in.back() % 4 == 0 &&
                op.attrs.perm.back() == static_cast<int64_t>(in.size()) - 1;
      const Shape& out = graph.tensor(op.out).shape;
      const auto outStrides = stridesOf(out);
      std::string e;
      for (size_t d = 0; d < out.size(); ++d) {
        if (out[d] == 1) continue;
        e += (e.empty() ? "" : " + ") + axisOf(at, in, static_cast<size_t>(op.attrs.perm[d])) +
             " * " + u(outStrides[d]);
      }
      at = "po" + std::to_string(vars++);
      index += "  let " + at + " = " + (e.empty() ? "0u" : e) + ";\n";
      permuted = true;
    }
    t = op.out;
    chain.pin(t, at);
  }
  const std::string result = chain.value(t, at);
  external = chain.external();
  MatmulEpilogue e;
  e.bindings = external.size();
  e.permuted = permuted;
  e.keepsRunsOf4 = permuted && runsOf4;
  e.wgsl = chain.preamble() + chain.bindings() + "fn " + name + "(o : u32, mm : f32) -> f32 {\n" +
           index + chain.body() + "  return " + result + ";\n}\n";
  if (permuted) e.wgsl += "fn outIndex(o : u32) -> u32 {\n" + index + "  return " + at + ";\n}\n";
  const bool allF32 = std::all_of(external.begin(), external.end(), [&](int x) {
    return graph.tensor(x).dtype == Dtype::F32;
  });
  if (!permuted && allF32 && chain.readsOnlyAt("o"))
    e.wgsl4 = epilogue4(graph, matmul, group, path, external, summed, firstBinding, name, reuse);
  return e;
}

}  // namespace tg::detail
