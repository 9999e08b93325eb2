// What codegen may assume about a value's buffer when a kernel reads the value somewhere other
// than where op order puts it: in another op's kernel (fusion keeps it in registers; transpose
// folding reads its source instead), or later than the op that produced it.
#pragma once

#include <set>
#include <vector>

#include "tensorgrad/passes.h"

namespace tg::detail {

class BufferUse {
 public:
  BufferUse(const Graph& graph, const BufferPlan& plan);

  int bufferOf(int tensor) const { return plan_.tensorToBuffer.at(static_cast<size_t>(tensor)); }
  const std::set<int>& readers(int tensor) const {
    return readers_.at(static_cast<size_t>(tensor));
  }
  // Tensor `t` needs no buffer of its own: op `reader` alone reads it, it is no graph output or
  // capture, and its buffer is an intermediate that no writeback copies.
  bool transient(int t, int reader) const;
  // The same for a value that the ops of `group` (sorted) alone read.
  bool transientWithin(int t, const std::vector<int>& group) const;
  // Reading `t` at op `to` instead of op `from` is safe: no op in (from, to] writes its buffer
  // (an aliased reshape rewrites nothing).
  bool untouched(int t, int from, int to) const;
  // Writing `t` at op `from` instead of op `to` is safe: no op in [from, to) other than those of
  // `group` (sorted or not) reads or writes its buffer (a pooled plan may share it).
  bool idle(int t, int from, int to, const std::vector<int>& group) const;
  // A reshape planned into its input's buffer (planBuffers' aliasReshapes): nothing to copy.
  bool aliasedReshape(const Op& op) const {
    return op.kind == OpKind::Reshape && bufferOf(op.out) == bufferOf(op.inputs[0]);
  }

 private:
  const Graph& graph_;
  const BufferPlan& plan_;
  std::vector<std::set<int>> readers_;
  std::set<int> pinned_, writebackSources_;
};

}  // namespace tg::detail
