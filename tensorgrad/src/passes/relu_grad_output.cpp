#include <map>

#include "tensorgrad/passes.h"

namespace tg {

void readReluGradsFromOutputs(Graph& graph) {
  std::map<int, int> reluOf;  // x → the first relu(x), by op order
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const Op& op = graph.ops[i];
    if (op.kind == OpKind::Relu) reluOf.emplace(op.inputs[0], static_cast<int>(i));
    if (op.kind != OpKind::ReluGrad) continue;
    const auto it = reluOf.find(op.inputs[0]);
    if (it == reluOf.end()) continue;  // no relu of this x before the gradient
    graph.ops[i].inputs[0] = graph.ops[static_cast<size_t>(it->second)].out;
  }
}

}  // namespace tg
