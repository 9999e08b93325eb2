#include "buffer_use.h"

#include <algorithm>

namespace tg::detail {

BufferUse::BufferUse(const Graph& graph, const BufferPlan& plan)
    : graph_(graph), plan_(plan), readers_(graph.tensors.size()) {
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    for (int t : graph.ops[i].inputs) readers_[static_cast<size_t>(t)].insert(static_cast<int>(i));
  }
  pinned_.insert(graph.outputs.begin(), graph.outputs.end());
  for (const auto& [name, t] : graph.captures) pinned_.insert(t);
  for (const Writeback& w : plan.writebacks) writebackSources_.insert(w.source);
}

bool BufferUse::transient(int t, int reader) const {
  return transientWithin(t, {reader});
}

bool BufferUse::transientWithin(int t, const std::vector<int>& group) const {
  const BufferSpec& b = plan_.buffers.at(static_cast<size_t>(bufferOf(t)));
  const std::set<int>& r = readers(t);
  return !r.empty() &&
         std::all_of(r.begin(), r.end(),
                     [&](int op) { return std::binary_search(group.begin(), group.end(), op); }) &&
         !pinned_.contains(t) && b.kind == BufferSpec::Kind::Intermediate &&
         !writebackSources_.contains(b.id);
}

bool BufferUse::untouched(int t, int from, int to) const {
  for (int k = from + 1; k <= to; ++k) {
    const Op& op = graph_.ops[static_cast<size_t>(k)];
    if (bufferOf(op.out) == bufferOf(t) && !aliasedReshape(op)) return false;
  }
  return true;
}

bool BufferUse::idle(int t, int from, int to, const std::vector<int>& group) const {
  const int buffer = bufferOf(t);
  for (int k = from; k < to; ++k) {
    if (std::find(group.begin(), group.end(), k) != group.end()) continue;
    const Op& op = graph_.ops[static_cast<size_t>(k)];
    if (bufferOf(op.out) == buffer) return false;
    for (int in : op.inputs)
      if (bufferOf(in) == buffer) return false;
  }
  return true;
}

}  // namespace tg::detail
