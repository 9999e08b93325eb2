#include <stdexcept>

#include "tensorgrad/passes.h"

namespace tg {

std::map<int, int> eliminateDeadCode(Graph& graph, const std::vector<int>& extraRoots) {
  std::vector<bool> live(graph.tensors.size(), false);
  std::vector<int> stack = graph.outputs;
  for (const auto& [name, id] : graph.captures) stack.push_back(id);
  stack.insert(stack.end(), extraRoots.begin(), extraRoots.end());
  while (!stack.empty()) {
    const int id = stack.back();
    stack.pop_back();
    if (live[static_cast<size_t>(id)]) continue;
    live[static_cast<size_t>(id)] = true;
    for (int in : graph.producer(id).inputs) stack.push_back(in);
  }

  std::map<int, int> remap;
  Graph out;
  for (const Op& op : graph.ops) {
    const bool namedLeaf = op.kind == OpKind::ParamInput || op.kind == OpKind::TensorInput ||
                           op.kind == OpKind::StateInput;
    if (!namedLeaf && !live[static_cast<size_t>(op.out)]) continue;
    Op kept = op;
    for (int& in : kept.inputs) in = remap.at(in);
    kept.out = static_cast<int>(out.tensors.size());
    TensorInfo t = graph.tensor(op.out);
    t.id = kept.out;
    t.source = static_cast<int>(out.ops.size());
    remap[op.out] = kept.out;
    out.tensors.push_back(std::move(t));
    out.ops.push_back(std::move(kept));
  }
  for (int id : graph.outputs) out.outputs.push_back(remap.at(id));
  for (const auto& [name, id] : graph.captures) out.captures.emplace_back(name, remap.at(id));
  graph = std::move(out);
  return remap;
}

}  // namespace tg
