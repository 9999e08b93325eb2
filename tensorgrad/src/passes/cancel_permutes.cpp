#include <set>
#include <vector>

#include "tensorgrad/passes.h"

namespace tg {
namespace {

// Whether permuting by `first`, then by `second`, puts every axis back.
bool cancels(const std::vector<int64_t>& first, const std::vector<int64_t>& second) {
  if (first.size() != second.size()) return false;
  for (size_t d = 0; d < second.size(); ++d) {
    const int64_t s = second[d];
    if (s < 0 || s >= static_cast<int64_t>(first.size()) ||
        first[static_cast<size_t>(s)] != static_cast<int64_t>(d))
      return false;
  }
  return true;
}

}  // namespace

void readThroughCancellingPermutes(Graph& graph, const std::vector<int>& keep) {
  const auto permuteOf = [&](int t) -> const Op* {
    const TensorInfo& info = graph.tensor(t);
    if (!info.source) return nullptr;
    const Op& op = graph.ops[static_cast<size_t>(*info.source)];
    return op.kind == OpKind::Permute ? &op : nullptr;
  };
  std::vector<int> readers(graph.tensors.size(), 0);
  for (const Op& op : graph.ops)
    for (int in : op.inputs) ++readers[static_cast<size_t>(in)];
  bool changed = false;
  for (Op& op : graph.ops)
    for (int& in : op.inputs) {
      const Op* second = permuteOf(in);
      if (!second) continue;
      const Op* first = permuteOf(second->inputs[0]);
      if (!first || !cancels(first->attrs.perm, second->attrs.perm)) continue;
      --readers[static_cast<size_t>(in)];
      in = first->inputs[0];
      ++readers[static_cast<size_t>(in)];
      changed = true;
    }
  if (!changed) return;
  // The second permutes nothing reads now (and no output, capture or `keep` holds) go: their
  // tensors keep no producer, as a dropped op's in splitWeightGradients.
  std::set<int> kept(keep.begin(), keep.end());
  kept.insert(graph.outputs.begin(), graph.outputs.end());
  for (const auto& [name, id] : graph.captures) kept.insert(id);
  std::vector<Op> ops;
  for (Op& op : graph.ops) {
    if (op.kind == OpKind::Permute && readers[static_cast<size_t>(op.out)] == 0 &&
        !kept.contains(op.out) && permuteOf(op.inputs[0])) {
      graph.tensors[static_cast<size_t>(op.out)].source.reset();
      continue;
    }
    ops.push_back(std::move(op));
  }
  graph.ops = std::move(ops);
  for (size_t i = 0; i < graph.ops.size(); ++i)
    graph.tensors[static_cast<size_t>(graph.ops[i].out)].source = static_cast<int>(i);
}

}  // namespace tg
